use std::fmt::Write;

use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ListArgs {
    dir: String,
}

/// List a directory.
#[tool(read_only, render = list_text)]
async fn list(args: ListArgs) -> Vec<String> {
    vec![args.dir]
}

/// Formats, iterates, and uses `std` paths that are pure.
#[render]
fn list_text(args: &ListArgs, value: &Vec<String>) -> Vec<ContentBlock> {
    let mut text = String::new();
    let _ = writeln!(text, "{}:", args.dir);
    for (i, name) in value.iter().enumerate() {
        let _ = writeln!(text, "{i}. {name}");
    }
    let timeout = std::time::Duration::from_secs(1);
    let _ = write!(text, "{}", std::cmp::max(timeout.as_secs(), 0));
    vec![ContentBlock::text(text)]
}

fn main() {}
