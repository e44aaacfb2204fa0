use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(value: &String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(value.clone())]
}

fn main() {}
