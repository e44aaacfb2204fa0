use dsh_kit::prelude::*;

/// `crate` takes the path dsh-kit is reached by, as a string or bare.
#[tool(crate = "not a path")]
async fn one() -> String {
    String::new()
}

/// A number is no path.
#[tool(crate = 3)]
async fn two() -> String {
    String::new()
}

fn main() {}
