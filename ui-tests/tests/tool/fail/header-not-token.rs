use dsh_kit::prelude::*;

/// Route by region.
#[tool]
async fn route(
    /// The region
    #[dsh(header = "Cloud Region")]
    region: String,
    /// The zone
    #[dsh(header = "")]
    zone: String,
    /// The rack
    #[dsh(header = "rack:id")]
    rack: String,
) -> String {
    format!("{region} {zone} {rack}")
}

fn main() {}
