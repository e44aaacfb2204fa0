use dsh_kit::prelude::*;
use dsh_kit::Registry;

#[derive(Debug, thiserror::Error)]
#[error("nothing to read at `{0}`")]
struct ReadError(String);

type Res<T> = Result<T, ReadError>;

/// Read a file.
#[tool]
async fn read_file(path: String) -> Res<String> {
    if path.is_empty() {
        return Err(ReadError(path));
    }
    Ok(path)
}

/// Count, through an alias whose error is the SDK's.
#[tool]
async fn count(items: Vec<String>) -> dsh_result::Result<usize> {
    Ok(items.len())
}

mod dsh_result {
    pub type Result<T> = std::result::Result<T, dsh_kit::ToolError>;
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _read = registry.register::<read_file>().unwrap();
    let _count = registry.register::<count>().unwrap();
    let result = registry.call("read_file", json!({ "path": "" })).await;
    assert_eq!(result.text(), "`read_file` failed: nothing to read at ``");
    let result = registry.call("count", json!({ "items": ["a", "b"] })).await;
    assert_eq!(result.text(), "2");
}
