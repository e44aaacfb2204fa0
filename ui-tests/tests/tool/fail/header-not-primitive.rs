use dsh_kit::prelude::*;

/// Route by several values at once.
#[tool]
async fn route(
    /// A ratio
    #[dsh(header = "Ratio")]
    ratio: f64,
    /// Several regions
    #[dsh(header = "Regions")]
    regions: Vec<String>,
    /// Maybe a weight
    #[dsh(header = "Weight")]
    weight: Option<f32>,
) -> String {
    format!("{ratio} {regions:?} {weight:?}")
}

fn main() {}
