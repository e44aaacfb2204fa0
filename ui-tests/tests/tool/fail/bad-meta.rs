use dsh_kit::prelude::*;

const TIER: u32 = 2;

/// Look a word up.
#[tool(meta(
    "io.modelcontextprotocol/ui" = "x",
    "dsh/version" = "1",
    "com.example/" = 1,
    owner = "a",
    owner = "b",
    tier = TIER,
    size = 1 + 1,
))]
async fn lookup(word: String) -> String {
    word
}

/// Look a word up.
#[tool(meta = "owner")]
async fn lookup_again(word: String) -> String {
    word
}

fn main() {}
