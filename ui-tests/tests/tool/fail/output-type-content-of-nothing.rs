use dsh_kit::prelude::*;

/// Touch a file.
#[tool(output_type = "file_content")]
async fn touch(path: String) -> std::io::Result<()> {
    let _ = path;
    Ok(())
}

fn main() {}
