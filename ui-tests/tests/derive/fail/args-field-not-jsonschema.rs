use dsh_kit::prelude::*;

#[derive(Deserialize)]
enum Mode {
    Fast,
    Slow,
}

#[derive(ToolArgs)]
struct RunArgs {
    mode: Mode,
}

/// Run.
#[tool]
async fn run(args: RunArgs) -> bool {
    matches!(args.mode, Mode::Fast)
}

fn main() {}
