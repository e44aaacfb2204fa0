use std::fs::File;
use std::io::Read;

use dsh_kit::prelude::*;

/// Count lines.
#[tool(render = lines_text)]
async fn count(text: String) -> usize {
    text.lines().count()
}

#[render]
fn lines_text(_: &CountArgs, value: &usize) -> Vec<ContentBlock> {
    let mut motd = String::new();
    if let Ok(mut file) = File::open("/etc/motd") {
        let _ = file.read_to_string(&mut motd);
    }
    vec![ContentBlock::text(format!("{value} lines\n{motd}"))]
}

fn main() {}
