//! Helper types inside arguments and outputs, each deriving what the type
//! holding it needs, and fields read another way needing nothing.

use std::collections::BTreeMap;

use dsh_kit::Registry;
use dsh_kit::prelude::*;

#[derive(Serialize, Deserialize, JsonSchema, PartialEq, Debug)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Slow,
}

#[derive(Deserialize, JsonSchema)]
struct Limits {
    max: Option<u32>,
}

/// Not serde's or schemars' at all.
#[derive(Default)]
struct Cache;

#[derive(ToolArgs)]
struct RunArgs {
    mode: Mode,
    modes: Vec<Mode>,
    limits: Option<Limits>,
    #[serde(skip)]
    _cache: Cache,
    #[serde(deserialize_with = "deserialize_count")]
    #[schemars(with = "u32")]
    count: Count,
}

struct Count(u32);

fn deserialize_count<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Count, D::Error> {
    u32::deserialize(deserializer).map(Count)
}

#[derive(ToolOutput)]
struct Summary {
    mode: Mode,
    by_name: BTreeMap<String, Mode>,
}

#[derive(ToolOutput)]
struct Page<T> {
    items: Vec<T>,
}

/// Run.
#[tool]
async fn run(args: RunArgs) -> Summary {
    let _ = (args.modes, args.limits.and_then(|limits| limits.max));
    let by_name = BTreeMap::from([("count".to_owned(), Mode::Slow)]);
    let _ = args.count.0;
    Summary { mode: args.mode, by_name }
}

/// List.
#[tool]
async fn list() -> Page<Mode> {
    Page { items: vec![Mode::Fast] }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _run = registry.register::<run>().unwrap();
    let _list = registry.register::<list>().unwrap();
    let args = json!({ "mode": "fast", "modes": [], "count": 2 });
    let result = registry.call("run", args).await;
    assert!(!result.is_error(), "{}", result.text());
    assert!(!registry.call("list", json!({})).await.is_error());
}
