use dsh_kit::prelude::*;

/// Say hello.
#[tool]
async fn hello(name: String) -> &'static str {
    let _ = name;
    "Hello!"
}

fn main() {}
