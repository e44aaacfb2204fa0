use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Say hello.
#[tool(read_only)]
async fn hello() -> String {
    "hello".to_owned()
}

/// Tell the tool's own name.
#[tool]
async fn whoami(exec: &Exec) -> String {
    exec.tool_name().to_owned()
}

fn main() {
    let _ = HelloArgs {};
    let _ = WhoamiArgs {};
    let registry = Registry::new();
    let _hello = registry.register::<hello>().unwrap();
    let _whoami = registry.register::<whoami>().unwrap();
}
