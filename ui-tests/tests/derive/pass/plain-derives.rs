use dsh_kit::prelude::*;
use dsh_kit::Registry;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Contents {
    text: String,
}

/// Read a file.
#[tool(read_only)]
async fn read_file(args: ReadArgs) -> Contents {
    Contents { text: args.path }
}

fn main() {
    let registry = Registry::new();
    let _read = registry.register::<read_file>().unwrap();
}
