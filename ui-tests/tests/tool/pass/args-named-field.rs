//! A parameter named `args` whose type can never be an object is one field
//! named `args`, like any other parameter; one whose type is a struct is the
//! whole arguments.

use dsh_kit::Registry;
use dsh_kit::prelude::*;

/// Run a command line.
#[tool]
async fn run(
    /// The command's arguments
    args: Vec<String>,
) -> String {
    args.join(" ")
}

/// Echo a text.
#[tool]
async fn echo(args: String, times: u32) -> String {
    args.repeat(times as usize)
}

/// Look a pair up.
#[tool(render = pair_text)]
async fn pair(args: (String, u32)) -> String {
    format!("{}={}", args.0, args.1)
}

#[render]
fn pair_text(args: &PairArgs, value: &String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{} → {value}", args.args.0))]
}

#[derive(ToolArgs)]
struct ReadArgs {
    path: String,
}

/// Read a file.
#[tool]
async fn read(args: ReadArgs) -> String {
    args.path
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    registry.register::<run>().unwrap();
    registry.register::<echo>().unwrap();
    registry.register::<pair>().unwrap();
    registry.register::<read>().unwrap();
    let ran = registry.call("run", json!({ "args": ["ls", "-l"] })).await;
    assert_eq!(ran.text(), "ls -l");
    let echoed = registry.call("echo", json!({ "args": "ab", "times": 2 })).await;
    assert_eq!(echoed.text(), "abab");
    let read = registry.call("read", json!({ "path": "/tmp/x" })).await;
    assert_eq!(read.text(), "/tmp/x");
}
