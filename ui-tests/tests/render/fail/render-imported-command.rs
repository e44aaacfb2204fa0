use std::process::Command;

use dsh_kit::prelude::*;

/// Count lines.
#[tool(render = lines_text)]
async fn count(text: String) -> usize {
    text.lines().count()
}

#[render]
fn lines_text(_: &CountArgs, value: &usize) -> Vec<ContentBlock> {
    let host = Command::new("hostname").output().map(|out| out.stdout).unwrap_or_default();
    vec![ContentBlock::text(format!("{value} lines on {}", String::from_utf8_lossy(&host)))]
}

fn main() {}
