use dsh_kit::prelude::*;

#[derive(ToolArgs)]
struct RouteArgs {
    /// Several regions
    #[dsh(header = "Regions")]
    regions: Vec<String>,
}

fn main() {}
