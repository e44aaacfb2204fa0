//! Forms of a tool's signature and of the types it names that a tool
//! author writes: each compiles and registers.

use std::collections::HashMap;

use dsh_kit::Registry;
use dsh_kit::prelude::*;

/// A helper enum, one field's type, with its derives.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Careful,
}

#[derive(Deserialize, JsonSchema)]
struct Paging {
    #[serde(default)]
    page: u32,
}

#[derive(Deserialize, JsonSchema)]
struct ListArgs {
    query: String,
    #[serde(flatten)]
    paging: Paging,
    modes: Option<Vec<Mode>>,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Entry {
    #[serde(rename = "entryName")]
    name: String,
    #[serde(rename(serialize = "size", deserialize = "size"))]
    bytes: u64,
    mode: Mode,
}

/// A unit struct: its output is `null`.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Done;

type Res<T> = Result<T, String>;

/// List entries.
#[tool(read_only)]
async fn list(args: ListArgs) -> Res<Vec<Entry>> {
    let _ = (args.query, args.paging.page, args.modes);
    Ok(Vec::new())
}

/// Count words.
#[tool(read_only)]
async fn count(
    text: String,
    #[serde(default)] modes: Option<Vec<Mode>>,
) -> HashMap<String, u32> {
    let _ = modes;
    text.split_whitespace().map(|word| (word.to_owned(), 1)).collect()
}

/// Touch a file.
#[tool]
async fn touch(path: String) -> Result<(), std::io::Error> {
    let _ = path;
    Ok(())
}

/// Finish.
#[tool]
async fn finish() -> Done {
    Done
}

/// Echo any JSON.
#[tool(read_only)]
async fn echo(value: serde_json::Value) -> serde_json::Value {
    value
}

fn main() {
    let registry = Registry::new();
    registry.register::<list>().unwrap();
    registry.register::<count>().unwrap();
    registry.register::<touch>().unwrap();
    registry.register::<finish>().unwrap();
    registry.register::<echo>().unwrap();

    // A tool declared in a fn body, with a type of that body.
    #[derive(Deserialize, JsonSchema)]
    enum Size {
        Small,
        Large,
    }

    /// Pick a size.
    #[tool]
    async fn pick(size: Size) -> String {
        match size {
            Size::Small => "small".into(),
            Size::Large => "large".into(),
        }
    }
    registry.register::<pick>().unwrap();
}
