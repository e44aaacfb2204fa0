//! The prelude's `Serialize`, `Deserialize` and `JsonSchema` in this crate,
//! which has no serde or schemars of its own: on field enums, nested helper
//! structs, a typed error, generic types and types with serde attributes.

use dsh_kit::Registry;
use dsh_kit::prelude::*;
use dsh_kit_quickstart::{Unit, WeatherError, weather};

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
