use dsh_kit::prelude::*;
use dsh_kit::Registry;

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    name: String,
}

/// Greet, the context first.
#[tool]
async fn first(exec: &Exec, name: String) -> String {
    format!("{} {name}", exec.tool_name())
}

/// Greet, the context between parameters.
#[tool]
async fn middle(greeting: String, exec: &dsh_kit::Exec, name: String) -> String {
    format!("{greeting} {name} {}", exec.is_cancelled())
}

/// Greet, the context last, beside an args struct.
#[tool]
async fn last(args: GreetArgs, _exec: &::dsh_kit::Exec) -> String {
    args.name
}

/// Greet, the context before an args struct.
#[tool]
async fn before(_: &Exec, args: GreetArgs) -> String {
    args.name
}

fn main() {
    let registry = Registry::new();
    let _first = registry.register::<first>().unwrap();
    let _middle = registry.register::<middle>().unwrap();
    let _last = registry.register::<last>().unwrap();
    let _before = registry.register::<before>().unwrap();
}
