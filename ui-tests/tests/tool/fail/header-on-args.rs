use dsh_kit::prelude::*;

#[derive(ToolArgs)]
struct RouteArgs {
    /// The region
    region: String,
}

/// Route by region.
#[tool]
async fn route(#[dsh(header = "Region")] args: RouteArgs) -> String {
    args.region
}

fn main() {}
