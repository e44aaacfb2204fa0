use dsh_kit::prelude::*;
use dsh_kit::Registry;
use std::error::Error;

/// Parse a number.
#[tool]
async fn parse(text: String) -> Result<i64, Box<dyn Error + Send + Sync>> {
    Ok(text.parse::<i64>()?)
}

/// Parse a number, with an error that is not `Send`.
#[tool]
async fn parse_local(text: String) -> Result<i64, Box<dyn Error>> {
    Ok(text.parse::<i64>().map_err(|error| error.to_string())?)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _parse = registry.register::<parse>().unwrap();
    let _parse_local = registry.register::<parse_local>().unwrap();
    for name in ["parse", "parse_local"] {
        let result = registry.call(name, json!({ "text": "x" })).await;
        assert!(result.text().contains("invalid digit"), "{}", result.text());
    }
}
