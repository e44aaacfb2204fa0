use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let pick: u32 = rand::random();
    let other = random();
    vec![ContentBlock::text(format!("{}: {value} {pick} {other}", args.path))]
}

fn random() -> u32 {
    4
}

mod rand {
    pub fn random() -> u32 {
        4
    }
}

fn main() {}
