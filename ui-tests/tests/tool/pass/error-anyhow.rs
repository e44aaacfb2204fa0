use anyhow::Context;
use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Parse a number.
#[tool]
async fn parse(text: String) -> anyhow::Result<i64> {
    let number = text.trim().parse::<i64>().context("not a number")?;
    Ok(number)
}

/// Fail with a bare `anyhow::Error`.
#[tool]
async fn fail() -> Result<(), anyhow::Error> {
    anyhow::bail!("always")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _parse = registry.register::<parse>().unwrap();
    let _fail = registry.register::<fail>().unwrap();
    let result = registry.call("parse", json!({ "text": "x" })).await;
    assert!(result.is_error());
    assert!(result.text().contains("not a number: invalid digit"), "{}", result.text());
    let result = registry.call("fail", json!({})).await;
    assert!(result.text().contains("always"), "{}", result.text());
}
