use dsh_kit::prelude::*;

#[derive(ToolOutput)]
struct Forecast {
    celsius: f64,
}

/// Forecast the weather.
#[tool(read_only, render_only, render = forecast_text)]
async fn forecast(city: String) -> Forecast {
    let _ = city;
    Forecast { celsius: 21.5 }
}

#[render]
fn forecast_text(args: &ForecastArgs, value: &Forecast) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{}: {} °C", args.city, value.celsius))]
}

/// `render_only = false` says nothing, with or without a render.
#[tool(read_only, render_only = false)]
async fn plain() -> String {
    "plain".to_owned()
}

fn main() {
    assert_eq!(
        <forecast as Tool>::DEFINITION.result_shape(),
        Some(dsh_kit::ResultShape::Structured)
    );
    assert_eq!(<plain as Tool>::DEFINITION.result_shape(), None);
}
