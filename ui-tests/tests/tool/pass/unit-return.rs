use dsh_sdk::prelude::*;
use dsh_sdk::Registry;

/// Forget everything.
#[tool(destructive)]
async fn forget(exec: &Exec) {
    exec.progress("forgetting");
}

/// Do nothing, explicitly.
#[tool]
async fn nothing() -> () {}

fn main() {
    let registry = Registry::new();
    let _forget = registry.register::<forget>().unwrap();
    let _nothing = registry.register::<nothing>().unwrap();
}
