use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let text = unsafe { String::from_utf8_unchecked(value.clone().into_bytes()) };
    vec![ContentBlock::text(format!("{}: {text}", args.path))]
}

fn main() {}
