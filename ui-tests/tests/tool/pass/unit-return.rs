use dsh_kit::prelude::*;
use dsh_kit::Registry;

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
