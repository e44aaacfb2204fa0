//! The prelude's `Serialize`, `Deserialize` and `JsonSchema` in this crate,
//! which has no serde or schemars of its own: on field enums, nested helper
//! structs, a typed error, generic types and types with serde attributes.

use dsh_kit::Registry;
use dsh_kit::prelude::*;

/// A unit of temperature.
#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Where to read.
#[derive(Deserialize, JsonSchema, Debug)]
struct Place {
    /// The city
    city: String,
    #[serde(default)]
    country: Option<String>,
}

/// A reading, with every field defaulted.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Default)]
#[serde(default)]
struct Reading {
    value: f64,
    unit: Option<Unit>,
}

/// A wrapper, generic.
#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct Page<T> {
    items: Vec<T>,
    next: Option<String>,
}

/// A newtype and a tuple struct.
#[derive(Serialize, Deserialize, JsonSchema, Debug)]
struct Meters(f64);

/// What went wrong, as a typed failure.
#[derive(ToolFailure, Debug)]
enum WeatherError {
    #[error("unknown city `{city}`")]
    UnknownCity { city: String },
    #[error("the weather service is offline")]
    Offline,
    #[error("{0} readings are too many (at most {1})")]
    TooMany(usize, usize),
}

#[derive(ToolArgs)]
struct WeatherArgs {
    /// Where
    place: Place,
    /// In which unit
    unit: Unit,
}

#[derive(ToolOutput)]
struct Weather {
    readings: Page<Reading>,
    height: Meters,
}

/// Read the weather.
#[tool(read_only)]
async fn weather(args: WeatherArgs) -> Result<Weather, WeatherError> {
    if args.place.city.is_empty() {
        return Err(WeatherError::UnknownCity {
            city: args.place.city,
        });
    }
    let _ = args.place.country;
    Ok(Weather {
        readings: Page {
            items: vec![Reading {
                value: 21.5,
                unit: Some(args.unit),
            }],
            next: None,
        },
        height: Meters(3.0),
    })
}

#[tokio::test]
async fn helper_types_derive_through_dsh_kit_alone() {
    let registry = Registry::new();
    registry.register::<weather>().unwrap();
    assert_eq!(json!(Unit::Celsius), json!("celsius"));
    let _ = WeatherError::Offline;
    assert_eq!(
        WeatherError::TooMany(12, 10).to_string(),
        "12 readings are too many (at most 10)"
    );
    let _: &dyn std::error::Error = &WeatherError::Offline;

    let ok = registry
        .call(
            "weather",
            json!({ "place": { "city": "Oslo" }, "unit": "fahrenheit" }),
        )
        .await;
    assert!(!ok.is_error(), "{ok:?}");
    assert_eq!(
        ok.value.as_ref().unwrap()["readings"]["items"][0],
        json!({ "value": 21.5, "unit": "fahrenheit" })
    );

    let bad = registry
        .call(
            "weather",
            json!({ "place": { "city": "" }, "unit": "celsius" }),
        )
        .await;
    assert!(bad.is_error());
    let failure = bad.failure.as_ref().unwrap();
    assert!(bad.text().contains("unknown city"), "{}", bad.text());
    assert_eq!(failure.kind.as_deref(), Some("UnknownCity"), "{failure:?}");

    // A unit enum's schema lists its spellings.
    let tools = registry.export(dsh_kit::export::Format::Anthropic);
    let unit = &tools[0]["input_schema"]["$defs"]["Unit"];
    assert_eq!(unit["enum"], json!(["celsius", "fahrenheit"]), "{unit}");
}
