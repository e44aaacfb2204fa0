use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Read a file.
#[tool(present = read_card)]
async fn read_file(args: ReadArgs) -> String {
    args.path
}

#[present]
fn read_card(args: &ReadArgs, value: &Vec<String>) -> Card {
    Card::generic(args.path.clone(), json!({}), Some(json!(value)))
}

fn main() {}
