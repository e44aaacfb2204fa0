use dsh_kit::prelude::*;

struct Greeter;

impl Greeter {
    /// Greet someone.
    #[tool]
    async fn greet(&self, name: String) -> String {
        format!("Hello, {name}!")
    }
}

fn main() {}
