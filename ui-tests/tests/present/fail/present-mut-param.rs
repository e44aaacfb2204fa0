use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[present]
fn read_card(args: &mut ReadArgs, value: &String) -> Card {
    Card::generic(args.path.clone(), json!({}), Some(json!(value)))
}

fn main() {}
