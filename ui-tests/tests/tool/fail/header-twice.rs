use dsh_kit::prelude::*;

/// Route by region.
#[tool]
async fn route(
    /// The region
    #[dsh(header = "Region")]
    region: String,
    /// The region the caller asked for
    #[dsh(header = "region")]
    wanted: String,
) -> String {
    format!("{region} {wanted}")
}

fn main() {}
