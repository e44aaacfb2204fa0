use dsh_kit::prelude::*;

#[derive(Serialize, Deserialize)]
struct Contents {
    text: String,
}

/// Read a file.
#[tool]
async fn read_file(path: String) -> Contents {
    Contents { text: path }
}

fn main() {}
