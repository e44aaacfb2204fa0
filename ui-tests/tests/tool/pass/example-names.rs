use dsh_kit::prelude::*;

/// Count lines of a file.
#[tool(example(file = "src/lib.rs", count = 2))]
async fn count_lines(
    #[serde(rename = "file")] path: String,
    count: u32,
) -> String {
    format!("{path}{count}")
}

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Read a file; its examples are checked when it registers.
#[tool(example(path = "src/lib.rs"))]
async fn read(args: ReadArgs) -> String {
    args.path
}

/// Take anything.
#[tool(allow_unknown_args, example(text = "a", extra = true))]
async fn loose(text: String) -> String {
    text
}

fn main() {
    let registry = dsh_kit::Registry::new();
    registry.register::<count_lines>().unwrap();
    registry.register::<read>().unwrap();
    registry.register::<loose>().unwrap();
}
