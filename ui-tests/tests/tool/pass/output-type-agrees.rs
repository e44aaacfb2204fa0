//! `output_type` that agrees with what each tool returns.

use dsh_kit::prelude::*;

/// Touch a file.
#[tool(output_type = "empty")]
async fn touch(path: String) {
    let _ = path;
}

/// Remove a file.
#[tool(output_type = "empty")]
async fn remove(path: String) -> Result<(), String> {
    let _ = path;
    Ok(())
}

/// Read a file.
#[tool(output_type = "file_content")]
async fn read(path: String) -> std::io::Result<String> {
    Ok(path)
}

#[derive(ToolOutput)]
struct Listing {
    names: Vec<String>,
}

/// List a directory.
#[tool(output_type = "file_list")]
async fn list(path: String) -> Listing {
    Listing { names: vec![path] }
}

fn main() {
    let _ = (
        <touch as Tool>::DEFINITION,
        <remove as Tool>::DEFINITION,
        <read as Tool>::DEFINITION,
        <list as Tool>::DEFINITION,
    );
}
