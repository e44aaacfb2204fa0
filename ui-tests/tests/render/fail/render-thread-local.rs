use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Read a file.
#[tool(render = read_text)]
async fn read_file(args: ReadArgs) -> String {
    args.path
}

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    thread_local! {
        static CALLS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    vec![ContentBlock::text(format!("{}: {value}", args.path))]
}

fn main() {}
