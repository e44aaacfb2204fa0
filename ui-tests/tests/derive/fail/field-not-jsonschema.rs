use dsh_kit::prelude::*;

#[derive(Deserialize)]
enum Mode {
    Fast,
    Slow,
}

#[derive(Deserialize, JsonSchema)]
struct Options {
    modes: Option<Mode>,
}

/// Run.
#[tool]
async fn run(options: Options) -> bool {
    options.modes.is_some()
}

fn main() {}
