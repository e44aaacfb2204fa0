//! Deferred tools stay out of the list until tool search finds and loads them.

use dsh_sdk::export::Format;
use dsh_sdk::prelude::*;
use dsh_sdk::search::tool_search;

/// Convert an amount of money between currencies at today's exchange rate.
#[tool(defer, read_only)]
async fn convert_currency(
    /// The amount to convert
    amount: f64,
    /// ISO 4217 code of the target currency, e.g. EUR
    to: String,
) -> String {
    format!("{amount} {to}")
}

/// Look up the weather forecast for a city.
#[tool(defer, read_only)]
async fn weather_forecast(
    /// The city
    city: String,
    /// Days ahead, 1 to 7
    days: Option<u8>,
) -> String {
    format!("sunny in {city} for {days:?} days")
}

/// Create a calendar event with a title, a start time and attendees.
#[tool(defer)]
async fn create_event(
    /// What the event is called
    title: String,
    /// Email addresses to invite
    attendees: Vec<String>,
) -> String {
    format!("{title} with {}", attendees.len())
}

/// Tell the time in a time zone.
#[tool(defer, always_load, read_only)]
async fn clock(
    /// IANA time zone name
    zone: String,
) -> String {
    zone
}

/// Greet someone by name.
#[tool(read_only)]
async fn greet(
    /// The name to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

fn names(registry: &Registry) -> Vec<String> {
    registry
        .export(Format::Anthropic)
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

fn registry() -> Registry {
    let registry = Registry::new();
    registry.register::<convert_currency>().unwrap();
    registry.register::<weather_forecast>().unwrap();
    registry.register::<create_event>().unwrap();
    registry.register::<clock>().unwrap();
    registry.register::<greet>().unwrap();
    registry.register::<tool_search>().unwrap();
    registry
}

#[test]
fn deferred_tools_are_left_out_unless_always_loaded() {
    assert_eq!(names(&registry()), ["clock", "greet", "tool_search"]);
}

#[test]
fn bm25_ranks_by_name_description_and_parameters() {
    let registry = registry();
    let best = |query: &str| -> Vec<String> {
        registry
            .search_deferred(query, 3)
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect()
    };
    assert_eq!(best("exchange rate for euros")[0], "convert_currency");
    assert_eq!(
        best("will it rain in Paris tomorrow forecast")[0],
        "weather_forecast"
    );
    assert_eq!(best("invite attendees to a meeting")[0], "create_event");
    // A parameter's description alone is enough.
    assert_eq!(best("ISO 4217")[0], "convert_currency");
    assert!(best("quantum chromodynamics").is_empty());
}

#[tokio::test]
async fn tool_search_returns_full_definitions_and_appends_them_after_the_stable_prefix() {
    let registry = registry();
    let before = registry.export_json(Format::Anthropic);

    let result = registry
        .call(
            "tool_search",
            json!({ "query": "weather forecast for a city", "limit": 1 }),
        )
        .await;
    assert!(!result.is_error, "{}", result.text());
    let found = &result.value.unwrap()["tools"];
    assert_eq!(found.as_array().unwrap().len(), 1);
    assert_eq!(found[0]["name"], "weather_forecast");
    assert_eq!(
        found[0]["description"],
        "Look up the weather forecast for a city."
    );
    assert_eq!(found[0]["input_schema"]["required"], json!(["city"]));

    registry
        .call(
            "tool_search",
            json!({ "query": "currency exchange", "limit": 1 }),
        )
        .await;
    assert_eq!(
        names(&registry),
        [
            "clock",
            "greet",
            "tool_search",
            "weather_forecast",
            "convert_currency"
        ]
    );
    // The prefix the model saw before is byte-identical.
    let after = registry.export_json(Format::Anthropic);
    let prefix = before.trim_end().trim_end_matches(']').trim_end();
    assert!(after.starts_with(prefix), "the stable prefix changed");

    // Loading again changes nothing.
    registry
        .call("tool_search", json!({ "query": "weather", "limit": 1 }))
        .await;
    assert_eq!(names(&registry).len(), 5);

    // A deferred tool can be called whether or not it is loaded.
    let called = registry
        .call(
            "create_event",
            json!({ "title": "standup", "attendees": [] }),
        )
        .await;
    assert_eq!(called.text(), "standup with 0");
}

#[tokio::test]
async fn the_index_follows_the_pool() {
    let registry = Registry::new();
    registry.register::<tool_search>().unwrap();
    assert!(registry.search_deferred("weather", 5).is_empty());
    let handle = registry.register::<weather_forecast>().unwrap();
    assert_eq!(registry.search_deferred("weather", 5).len(), 1);
    handle.unregister();
    assert!(registry.search_deferred("weather", 5).is_empty());
    let result = registry
        .call("tool_search", json!({ "query": "weather" }))
        .await;
    assert_eq!(result.value.unwrap(), json!({ "tools": [] }));
}
