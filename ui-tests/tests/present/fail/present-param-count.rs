use dsh_sdk::prelude::*;

#[present]
fn card() -> Card {
    Card::generic("x", json!({}), None)
}

fn main() {}
