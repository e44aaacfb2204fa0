use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Check a name.
#[tool]
async fn check(name: String) -> Result<String, String> {
    if name.is_empty() {
        return Err(format!("`name` is empty"));
    }
    Ok(name)
}

/// Check a name, with a static message.
#[tool]
async fn check_static(name: String) -> Result<String, &'static str> {
    if name.is_empty() {
        return Err("`name` is empty");
    }
    Ok(name)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _check = registry.register::<check>().unwrap();
    let _check_static = registry.register::<check_static>().unwrap();
    for name in ["check", "check_static"] {
        let result = registry.call(name, json!({ "name": "" })).await;
        assert!(result.is_error());
        assert!(result.text().contains("`name` is empty"), "{}", result.text());
    }
}
