use dsh_kit::prelude::*;

/// Route by zone.
#[tool]
async fn route(
    /// The zone
    #[dsh(headr = "Zone")]
    zone: String,
) -> String {
    zone
}

fn main() {}
