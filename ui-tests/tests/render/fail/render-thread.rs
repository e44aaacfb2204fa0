use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    std::thread::sleep(std::time::Duration::from_millis(1));
    vec![ContentBlock::text(format!("{}: {value}", args.path))]
}

fn main() {}
