use dsh_kit::prelude::*;

/// Append to a list.
#[tool]
async fn append(items: &mut Vec<String>, item: String) {
    items.push(item);
}

fn main() {}
