use std::collections::HashMap;

use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
}

/// Not a choice: no `Elicit` derive.
#[derive(Deserialize, JsonSchema)]
enum Color {
    Red,
    Blue,
}

/// Each field that is not a primitive, one error each, at its type.
#[derive(Deserialize, JsonSchema, Elicit)]
struct Form {
    name: String,
    address: Address,
    tags: Vec<String>,
    scores: HashMap<String, u32>,
    color: Color,
    maybe_address: Option<Address>,
}

fn main() {}
