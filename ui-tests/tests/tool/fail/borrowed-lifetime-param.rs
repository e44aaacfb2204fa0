use std::borrow::Cow;

use dsh_kit::prelude::*;

/// Greet someone.
#[tool]
async fn greet(name: Cow<'_, str>) -> String {
    format!("Hello, {name}!")
}

fn main() {}
