use dsh_kit::prelude::*;
use dsh_kit::{Principal, Registry};

/// Write a file, for callers granted `files:write`.
#[tool(scopes = ["files:write"])]
async fn write_file(path: String, exec: &Exec) -> String {
    format!("{} wrote {path}", exec.principal().subject())
}

/// Read a file, for anyone: no scopes is the same as leaving the key out.
#[tool(scopes = [], read_only)]
async fn read_file(path: String) -> String {
    path
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    registry.register::<write_file>().unwrap().keep();
    registry.register::<read_file>().unwrap().keep();
    let ada = Principal::new("ada").with_scopes(["files:write"]);
    let call = dsh_kit::ToolCall::new("write_file", json!({ "path": "a.txt" })).principal(ada);
    assert_eq!(registry.call_with(call).await.text(), "ada wrote a.txt");
    let names: Vec<String> = (registry.as_caller(Principal::new("bob")).tools().iter())
        .map(|tool| tool.name().to_owned())
        .collect();
    assert_eq!(names, ["read_file"]);
}
