use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
enum Unit {
    Metre,
    Foot,
}

#[derive(ToolOutput)]
struct Length {
    value: f64,
    units: Vec<Unit>,
}

/// Measure.
#[tool]
async fn measure() -> Length {
    Length { value: 1.0, units: vec![Unit::Metre] }
}

fn main() {}
