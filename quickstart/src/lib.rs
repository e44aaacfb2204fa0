//! A tool crate with the helper types real tools have (field enums, nested
//! and generic helper structs, a newtype, a typed error), written against
//! `dsh-kit` alone: the prelude's derives stand in for serde's and
//! schemars', and `ToolFailure` for thiserror's. The `weather-server`
//! binary serves it over MCP on stdio.

use dsh_kit::prelude::*;

/// A unit of temperature: `celsius` or `fahrenheit`.
#[allow(
    missing_docs,
    reason = "doc comments on the variants would make the schema a `oneOf` of described constants; a plain `enum` of spellings is what this crate shows"
)]
#[derive(Serialize, Deserialize, JsonSchema, Clone, Copy, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}

/// Where to read.
#[derive(Deserialize, JsonSchema, Debug)]
pub struct Place {
    /// The city
    pub city: String,
    #[serde(default)]
    /// The country, when the city's name is not enough
    pub country: Option<String>,
}

/// A reading, with every field defaulted.
#[derive(Serialize, Deserialize, JsonSchema, Debug, Default)]
#[serde(default)]
pub struct Reading {
    /// The temperature
    pub value: f64,
    /// Its unit, when known
    pub unit: Option<Unit>,
}

/// A wrapper, generic.
#[derive(Serialize, Deserialize, JsonSchema, Debug)]
pub struct Page<T> {
    /// The items of this page
    pub items: Vec<T>,
    /// Where the next page starts, if there is one
    pub next: Option<String>,
}

/// A newtype and a tuple struct.
#[derive(Serialize, Deserialize, JsonSchema, Debug)]
pub struct Meters(pub f64);

/// What went wrong, as a typed failure.
#[derive(ToolFailure, Debug)]
pub enum WeatherError {
    #[error("unknown city `{city}`")]
    /// No city goes by that name.
    UnknownCity {
        /// The name asked for
        city: String,
    },
    #[error("the weather service is offline")]
    /// The service cannot be reached.
    Offline,
    #[error("{0} readings are too many (at most {1})")]
    /// More readings were asked for than a call gives.
    TooMany(usize, usize),
}

/// The arguments of the `weather` tool.
#[derive(ToolArgs)]
pub struct WeatherArgs {
    /// Where
    pub place: Place,
    /// In which unit
    pub unit: Unit,
}

/// What the `weather` tool gives.
#[derive(ToolOutput)]
pub struct Weather {
    /// The readings
    pub readings: Page<Reading>,
    /// The station's height
    pub height: Meters,
}

/// Read the weather.
#[tool(read_only)]
pub async fn weather(args: WeatherArgs) -> Result<Weather, WeatherError> {
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
