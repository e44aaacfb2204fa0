use dsh_kit::prelude::*;

#[derive(JsonSchema)]
struct Window {
    start: u32,
    end: u32,
}

#[derive(ToolArgs)]
struct QueryArgs {
    text: String,
    window: Option<Window>,
}

/// Query.
#[tool]
async fn query(args: QueryArgs) -> String {
    args.text
}

fn main() {}
