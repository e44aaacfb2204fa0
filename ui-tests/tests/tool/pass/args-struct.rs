use dsh_kit::prelude::*;
use dsh_kit::Registry;

#[derive(Deserialize, JsonSchema)]
struct ReadFileArgs {
    /// Absolute path
    path: String,
    /// Maximum lines to return
    limit: Option<u32>,
}

/// Read a file from disk.
#[tool(read_only)]
async fn read_file(args: ReadFileArgs) -> String {
    format!("{} {:?}", args.path, args.limit)
}

#[derive(Deserialize, JsonSchema)]
struct Query {
    text: String,
}

/// Search, taking the struct under the name `args`.
#[tool]
async fn search(mut args: Query) -> String {
    args.text.push('!');
    args.text
}

/// Ignore the arguments, named `_args`.
#[tool]
async fn ignore(_args: Query) {}

/// Take the arguments apart, found by the type's name.
#[tool]
async fn destructure(ReadFileArgs { path, .. }: ReadFileArgs) -> String {
    path
}

fn main() {
    let registry = Registry::new();
    let _read_file = registry.register::<read_file>().unwrap();
    let _search = registry.register::<search>().unwrap();
    let _ignore = registry.register::<ignore>().unwrap();
    let _destructure = registry.register::<destructure>().unwrap();
}
