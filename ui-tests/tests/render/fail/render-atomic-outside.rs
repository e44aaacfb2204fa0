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


use std::sync::atomic::{AtomicU32, Ordering};

static CALLS: AtomicU32 = AtomicU32::new(0);

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let calls = CALLS.fetch_add(1, Ordering::Relaxed);
    vec![ContentBlock::text(format!("{}: {value} ({calls})", args.path))]
}

fn main() {}
