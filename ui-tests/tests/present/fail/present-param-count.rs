use dsh_kit::prelude::*;

#[present]
fn card() -> Card {
    Card::generic("x", json!({}), None)
}

fn main() {}
