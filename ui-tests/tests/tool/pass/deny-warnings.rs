#![deny(warnings, unused_qualifications, missing_docs)]
//! The generated code compiles without a warning.

use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// The arguments of `read_file`.
#[derive(Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    /// Absolute path
    pub path: String,
}

/// Read a file from disk.
#[tool(read_only, render = read_text, present = read_card, validate = check)]
pub async fn read_file(args: ReadFileArgs, exec: &Exec) -> Result<String, ToolError> {
    exec.progress("reading");
    Ok(args.path)
}

/// Greet someone.
#[tool]
pub async fn greet(
    /// The name to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// A private tool with no arguments.
#[tool]
async fn ping() {}

/// Checks the path.
pub fn check(args: &ReadFileArgs, _: &Exec) -> Validation {
    let _ = args;
    Validation::Ok
}

/// Renders the file.
#[render]
pub fn read_text(_args: &ReadFileArgs, value: &String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(value.clone())]
}

/// Presents the file.
#[present]
pub fn read_card(args: &ReadFileArgs, value: &String) -> Card {
    Card::Read(card::ReadCard::new(args.path.clone(), value.clone()))
}

fn main() {
    let registry = Registry::new();
    let _ping = registry.register::<ping>().unwrap();
}
