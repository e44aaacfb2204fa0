use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Contents {
    text: String,
}

/// Read a file.
#[tool]
async fn read_file(path: String) -> Result<Contents, ToolError> {
    Ok(Contents { text: path })
}

fn main() {}
