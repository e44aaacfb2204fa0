use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// A command to run, which the user happens to call `Exec`.
#[derive(Deserialize, JsonSchema)]
struct Exec {
    command: String,
}

/// Describe a command.
#[tool]
async fn describe(exec: Exec, verbose: bool) -> String {
    format!("{} ({verbose})", exec.command)
}

/// Describe a command, with the SDK's context beside it.
#[tool]
async fn describe_in(exec: Exec, context: &dsh_kit::Exec) -> String {
    format!("{} in {}", exec.command, context.tool_name())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _describe = registry.register::<describe>().unwrap();
    let _describe_in = registry.register::<describe_in>().unwrap();
    let args = json!({ "exec": { "command": "ls" }, "verbose": true });
    assert_eq!(registry.call("describe", args).await.text(), "ls (true)");
    let args = json!({ "exec": { "command": "ls" } });
    assert_eq!(registry.call("describe_in", args).await.text(), "ls in describe_in");
}
