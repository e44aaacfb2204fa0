use dsh_kit::prelude::*;

struct Exec;

/// Greet someone.
#[tool]
async fn greet(name: String, exec: &Exec) -> String {
    let _ = exec;
    name
}

fn main() {}
