use dsh_kit::prelude::*;

#[derive(ToolArgs)]
struct RouteArgs {
    /// The region
    #[dsh(header = "Region")]
    region: String,
    /// The same header under another case
    #[dsh(header = "REGION")]
    wanted: String,
}

fn main() {}
