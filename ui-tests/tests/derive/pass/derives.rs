use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Search options.
#[derive(ToolArgs)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SearchArgs {
    /// What to look for
    query: String,
    /// How many at most
    #[serde(default = "ten")]
    max_count: u32,
    #[serde(skip)]
    cache: Option<u32>,
}

fn ten() -> u32 {
    10
}

#[derive(Debug, PartialEq, ToolOutput)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Hit {
    File { path: String },
    Line { path: String, line: u32 },
}

#[derive(Debug, PartialEq, ToolOutput)]
struct Page<T> {
    items: Vec<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    next: Option<String>,
    #[serde(rename = "total")]
    count: usize,
}

/// Search the files.
#[tool(read_only)]
async fn search(args: SearchArgs) -> Page<Hit> {
    let _ = args.cache;
    let items = vec![
        Hit::File { path: args.query.clone() },
        Hit::Line { path: args.query, line: args.max_count },
    ];
    Page { count: items.len(), items, next: None }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _search = registry.register::<search>().unwrap();
    let result = registry.call("search", json!({ "query": "a", "maxCount": 3 })).await;
    assert!(!result.is_error(), "{}", result.text());
    let value = result.value.unwrap();
    assert_eq!(
        value,
        json!({
            "items": [{ "kind": "file", "path": "a" }, { "kind": "line", "path": "a", "line": 3 }],
            "total": 2,
        })
    );
    let page: Page<Hit> = serde_json::from_value(value).unwrap();
    assert_eq!(page.count, 2);
    let result = registry.call("search", json!({ "query": "a", "maxCount": 3, "extra": 1 })).await;
    assert!(result.is_error());
    // The field's doc comment is its description.
    let schema = serde_json::to_string(&schemars::schema_for!(SearchArgs)).unwrap();
    assert!(schema.contains("What to look for"), "{schema}");
}
