use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Options, named like an args struct but used as one field.
#[derive(Deserialize, JsonSchema)]
struct FilterArgs {
    case_sensitive: bool,
}

/// Search, with the options as one field.
#[tool]
async fn search(query: String, options: FilterArgs) -> String {
    format!("{query} {}", options.case_sensitive)
}

/// Search, with the options as the only field.
#[tool]
async fn search_with(options: FilterArgs) -> bool {
    options.case_sensitive
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _search = registry.register::<search>().unwrap();
    let _search_with = registry.register::<search_with>().unwrap();
    let args = json!({ "query": "a", "options": { "case_sensitive": true } });
    assert_eq!(registry.call("search", args).await.text(), "a true");
    let args = json!({ "options": { "case_sensitive": false } });
    assert_eq!(registry.call("search_with", args).await.text(), "false");
}
