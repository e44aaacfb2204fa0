use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[present]
fn read_card(args: &ReadArgs, value: &String) -> Card {
    let now = std::time::SystemTime::now();
    Card::generic(args.path.clone(), json!({}), Some(json!(format!("{value} {now:?}"))))
}

fn main() {}
