use dsh_kit::prelude::*;
use dsh_kit::Registry;

#[derive(Debug, thiserror::Error)]
enum EditError {
    #[error("`old` is empty: give the text to replace")]
    InvalidInput,
    #[error("no match for `{0}` in the file")]
    NoMatchesFound(String),
}

/// Replace text.
#[tool(destructive)]
async fn edit(text: String, old: String, new: String) -> Result<String, EditError> {
    if old.is_empty() {
        return Err(EditError::InvalidInput);
    }
    if !text.contains(&old) {
        return Err(EditError::NoMatchesFound(old));
    }
    Ok(text.replace(&old, &new))
}

/// Fail with the SDK's own error.
#[tool]
async fn fail() -> Result<(), ToolError> {
    Err(ToolError::new("always"))
}

fn main() {
    let registry = Registry::new();
    let _edit = registry.register::<edit>().unwrap();
    let _fail = registry.register::<fail>().unwrap();
}
