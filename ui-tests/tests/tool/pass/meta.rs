use dsh_kit::export::Format;
use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Look a word up.
#[tool(
    read_only,
    meta(
        owner = "search-team",
        "com.example/tier" = 2,
        "com.example/weight" = -0.5,
        beta = true,
        r#type = "dictionary",
        note = "says \"hi\"\n",
        size = 2u32,
    )
)]
async fn lookup(word: String) -> String {
    word
}

fn main() {
    let meta = <lookup as Tool>::DEFINITION.meta().unwrap();
    assert_eq!(
        serde_json::Value::Object(meta.clone()),
        json!({
            "owner": "search-team",
            "com.example/tier": 2,
            "com.example/weight": -0.5,
            "beta": true,
            "type": "dictionary",
            "size": 2,
            "note": "says \"hi\"\n",
        })
    );
    // Beside the `dsh/` entries, in the MCP export.
    let registry = Registry::new();
    registry.register::<lookup>().unwrap();
    let exported = registry.export(Format::Mcp);
    assert_eq!(exported[0]["_meta"]["owner"], "search-team");
    assert_eq!(exported[0]["_meta"]["com.example/tier"], 2);
}
