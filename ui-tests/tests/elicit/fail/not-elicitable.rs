use dsh_kit::prelude::*;

/// A form without `#[derive(Elicit)]`.
#[derive(Deserialize, JsonSchema)]
struct Contact {
    name: String,
}

/// Asks for a contact.
#[tool]
async fn ask(exec: &Exec) -> Result<String, ToolError> {
    let _ = exec.elicit::<Contact>("Who are you?").await?;
    Ok(String::new())
}

fn main() {}
