use dsh_kit::Exec as Ctx;
use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Greet someone, from the tool's name.
#[tool]
async fn greet(name: String, ctx: &Ctx) -> String {
    format!("{}: hello, {name}", ctx.tool_name())
}

/// The context through a full path, first.
#[tool]
async fn wave(exec: &::dsh_kit::Exec, name: String) -> String {
    format!("{}: bye, {name}", exec.tool_name())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    let _wave = registry.register::<wave>().unwrap();
    let result = registry.call("greet", json!({ "name": "Ada" })).await;
    assert_eq!(result.text(), "greet: hello, Ada");
    let result = registry.call("wave", json!({ "name": "Ada" })).await;
    assert_eq!(result.text(), "wave: bye, Ada");
}
