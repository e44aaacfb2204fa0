use dsh_kit::prelude::*;

/// Look a word up.
#[tool(read_only, idempotent = false)]
async fn lookup(word: String) -> String {
    word
}

fn main() {}
