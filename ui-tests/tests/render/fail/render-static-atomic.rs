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
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    vec![ContentBlock::text(format!("{}: {value}", args.path))]
}

fn main() {}
