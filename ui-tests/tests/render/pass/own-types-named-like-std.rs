//! A render may name types of the crate's own that share a name with an
//! impure std type: only the std type itself is refused.

use dsh_kit::prelude::*;

/// A shell command, as the tool reports it.
struct Command {
    line: String,
}

impl Command {
    fn new(line: &str) -> Self {
        Command { line: line.to_owned() }
    }
}

mod paths {
    /// A file, as the tool names it.
    pub struct File(pub String);
}

use paths::File;

/// What a path names, its variants named like std types.
#[derive(Clone, Copy)]
enum Node {
    Child,
    Stdout,
}

use Node::*;

/// Run a command (pretend).
#[tool(render = ran_text)]
async fn run(line: String) -> String {
    line
}

#[render]
fn ran_text(_: &RunArgs, value: &String) -> Vec<ContentBlock> {
    let command = Command::new(value);
    let file = File(format!("{}.log", command.line));
    let node = if value.is_empty() { Child } else { Stdout };
    let kind = match node {
        Child => "child",
        Stdout => "stdout",
    };
    vec![ContentBlock::text(format!("ran `{}` ({kind}), log in {}", command.line, file.0))]
}

fn main() {}
