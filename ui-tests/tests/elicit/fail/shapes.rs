use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema, Elicit)]
struct Pair(String, String);

#[derive(Deserialize, JsonSchema, Elicit)]
struct Nothing;

#[derive(Deserialize, JsonSchema, Elicit)]
enum Shape {
    Dot,
    Circle { radius: f64 },
    Line(f64),
}

#[derive(Deserialize, JsonSchema)]
struct Inner {
    street: String,
}

#[derive(Deserialize, JsonSchema, Elicit)]
struct Flattened {
    name: String,
    #[serde(flatten)]
    inner: Inner,
}

fn main() {}
