use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[present]
fn read_card(args: &ReadArgs, value: &String) -> Card {
    println!("{value}");
    Card::generic(args.path.clone(), json!({}), None)
}

fn main() {}
