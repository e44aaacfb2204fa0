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
    assert!(<forecast as Tool>::DEFINITION.render_only());
    assert!(!<plain as Tool>::DEFINITION.render_only());
}
