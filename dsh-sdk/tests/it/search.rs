//! Deferred tools stay out of the list until tool search finds and loads them.

use dsh_kit::Registry;
use dsh_kit::catalog::tool_search;
use dsh_kit::export::Format;
use dsh_kit::prelude::*;
use serde_json::Value;

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
            .host()
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
    assert!(!result.is_error(), "{}", result.text());
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
    assert!(registry.host().search_deferred("weather", 5).is_empty());
    let handle = registry.register::<weather_forecast>().unwrap();
    assert_eq!(registry.host().search_deferred("weather", 5).len(), 1);
    handle.unregister();
    assert!(registry.host().search_deferred("weather", 5).is_empty());
    let result = registry
        .call("tool_search", json!({ "query": "weather" }))
        .await;
    assert_eq!(result.value.unwrap(), json!({ "tools": [] }));
}

/// A deferred dynamic tool with one described parameter per `(name, description)`.
fn dynamic(name: &str, description: &str, parameters: &[(&str, &str)]) -> dsh_kit::DynamicTool {
    let properties: serde_json::Map<String, Value> = parameters
        .iter()
        .map(|(name, description)| {
            (
                (*name).to_owned(),
                json!({ "type": "string", "description": description }),
            )
        })
        .collect();
    dsh_kit::DynamicTool::new(
        ToolDef::builder_owned(name.to_owned(), description.to_owned())
            .defer(true)
            .build(),
        json!({ "type": "object", "properties": properties }),
        |_args: Value, _exec| async { Ok(Value::Null) },
    )
}

/// A registry of `tools`.
fn registry_of(tools: impl IntoIterator<Item = dsh_kit::DynamicTool>) -> Registry {
    let registry = Registry::new();
    for tool in tools {
        registry.register_dynamic(tool).unwrap();
    }
    registry
}

/// A small catalog of look-alike tools, as a host with several services has.
fn catalog() -> Registry {
    registry_of([
        dynamic(
            "fetchUserProfile",
            "Return a member's profile.",
            &[("user_id", "Who")],
        ),
        dynamic(
            "delete_user_profile",
            "Erase a member's profile for good.",
            &[("user_id", "Who")],
        ),
        dynamic(
            "archive-user-profile",
            "Hide a member's profile without erasing it.",
            &[("user_id", "Who")],
        ),
        dynamic(
            "GEO_lookup",
            "Find a place.",
            &[
                ("place", "Street address or landmark"),
                (
                    "precision",
                    "How many decimal places the latitude and longitude keep",
                ),
            ],
        ),
        dynamic(
            "get_temp",
            "Read the thermometer.",
            &[("sensor", "Which one")],
        ),
        dynamic(
            "send_invoice",
            "Send an invoice to a customer by email.",
            &[("invoice_id", "Which invoice")],
        ),
        dynamic(
            "list_payments",
            "List the payments a customer made.",
            &[("customer_id", "Whose payments")],
        ),
        dynamic(
            "translate_text",
            "Translate text into another language.",
            &[("target", "Language code to translate into")],
        ),
        dynamic(
            "detect_language",
            "Tell which language a text is written in.",
            &[(
                "text",
                "The text, e.g. a message someone may want to translate",
            )],
        ),
    ])
}

fn ranked(registry: &Registry, query: &str) -> Vec<String> {
    registry
        .host()
        .search_deferred(query, 3)
        .iter()
        .map(|tool| tool.name().to_owned())
        .collect()
}

#[test]
fn names_are_found_whatever_their_case_style() {
    let registry = catalog();
    assert_each_best(
        &registry,
        &[
            ("fetch user profile", "fetchUserProfile"),
            ("fetch_user_profile", "fetchUserProfile"),
            ("deleteUserProfile", "delete_user_profile"),
            ("DELETE-USER-PROFILE", "delete_user_profile"),
            ("ArchiveUserProfile", "archive-user-profile"),
            ("archive user profile", "archive-user-profile"),
            ("geo.lookup", "GEO_lookup"),
            ("geoLookup", "GEO_lookup"),
        ],
    );
}

/// That each `(query, best)` ranks `best` first for `query`.
#[track_caller]
fn assert_each_best(registry: &Registry, cases: &[(&str, &str)]) {
    for &(query, best) in cases {
        assert_best(registry, query, best);
    }
}

/// That `best` ranks first for `query`.
#[track_caller]
fn assert_best(registry: &Registry, query: &str, best: &str) {
    assert_eq!(
        ranked(registry, query).first().map(String::as_str),
        Some(best),
        "{query}"
    );
}

#[test]
fn a_parameter_description_alone_finds_its_tool() {
    let registry = catalog();
    assert_eq!(ranked(&registry, "latitude longitude"), ["GEO_lookup"]);
}

#[test]
fn other_word_forms_find_the_same_tool() {
    let registry = catalog();
    assert_eq!(ranked(&registry, "sending invoices")[0], "send_invoice");
    assert_eq!(ranked(&registry, "emailed")[0], "send_invoice");
    assert_eq!(
        ranked(&registry, "which payment did they make")[0],
        "list_payments"
    );
    // Identifiers abbreviate.
    assert_eq!(ranked(&registry, "room temperature"), ["get_temp"]);
    // A synonym of the name's verb: `fetch` is how tools say "get".
    assert_eq!(
        ranked(&registry, "get the user's profile")[0],
        "fetchUserProfile"
    );
}

#[test]
fn a_misspelt_word_finds_the_tools_one_edit_away() {
    let registry = catalog();
    assert_each_best(
        &registry,
        &[
            // Two letters swapped.
            ("paymnets", "list_payments"),
            ("send an invocie", "send_invoice"),
            // A letter missing.
            ("termometer", "get_temp"),
            // A letter too many.
            ("transslate", "translate_text"),
            // A letter wrong.
            ("languoge", "detect_language"),
        ],
    );
    // Two edits away is too far to guess.
    assert!(ranked(&registry, "thremometr").is_empty());
}

#[test]
fn a_query_word_finds_the_longer_words_it_begins() {
    // "multiplication" stems short of "multiply": it begins the latter's stem.
    let registry = registry_of([
        dynamic("multiply", "Multiply two numbers.", &[]),
        dynamic("times_table", "Print a multiplication table.", &[]),
    ]);
    assert_eq!(
        ranked(&registry, "multiplication"),
        ["times_table", "multiply"]
    );
}

#[test]
fn the_name_counts_more_than_a_parameter_description() {
    let registry = catalog();
    assert_eq!(
        ranked(&registry, "translate"),
        ["translate_text", "detect_language"]
    );
}

#[test]
fn text_written_without_spaces_is_found_by_its_words() {
    // Chinese and Japanese leave no space between words, and Korean joins
    // particles to them: the query's words are inside longer runs.
    let registry = registry_of(
        [
            ("weather_now", "查询城市当前的天气状况", "城市名称"),
            ("ticket_list", "获取公司所有未解决的工单", "公司名称"),
            ("send_mail", "メールを送信します", "宛先のアドレス"),
            ("recipe_search", "요리 레시피를 검색합니다", "요리 이름"),
            ("ironing_service", "บริการรีดผ้า", "ที่อยู่"),
            ("currency_rate", "Convert an amount between currencies.", ""),
        ]
        .map(|(name, description, parameter)| dynamic(name, description, &[("target", parameter)])),
    );
    assert_each_best(
        &registry,
        &[
            ("北京现在的天气怎么样？", "weather_now"),
            (
                "请帮我检索一下'红星科技'公司目前所有未解决的工单",
                "ticket_list",
            ),
            ("田中さんにメールを送って", "send_mail"),
            ("스테이크 레시피 알려줘", "recipe_search"),
            ("ช่วยหาคุณแม่บ้านที่ให้บริการรีดผ้า", "ironing_service"),
            // A mixed query finds by its English words as ever.
            ("convert 100 USD 到 EUR", "currency_rate"),
        ],
    );
    // A character shared by chance is no match: "work" (工作) shares its
    // first character with "ticket" (工单), not a pair.
    assert!(ranked(&registry, "工作").is_empty());
}

#[test]
fn stop_words_alone_find_nothing() {
    let registry = catalog();
    assert!(ranked(&registry, "can you please do it for me").is_empty());
}

#[test]
fn removing_a_tool_takes_it_out_of_the_ranking_and_adding_it_back_restores_it() {
    let registry = catalog();
    let before = ranked(&registry, "member profile");
    let handle = registry
        .register_dynamic(dynamic(
            "rename_member",
            "Change the display name of a member's profile.",
            &[],
        ))
        .unwrap();
    assert!(ranked(&registry, "rename member").starts_with(&["rename_member".to_owned()]));
    assert!(handle.unregister());
    assert!(!ranked(&registry, "rename member").contains(&"rename_member".to_owned()));
    assert_eq!(ranked(&registry, "member profile"), before);
}

#[derive(Deserialize, JsonSchema)]
struct TransferArgs {
    /// Amount in cents
    cents: u64,
}

/// A tool that declares how it fails.
struct TransferMoney;

impl Tool for TransferMoney {
    type Args = TransferArgs;
    type Output = u64;
    const DEFINITION: ToolDef =
        ToolDef::builder("transfer_money", "Move money between two accounts.")
            .defer(true)
            .build();

    async fn execute(args: TransferArgs, _exec: &Exec) -> Result<u64, ToolError> {
        Ok(args.cents)
    }

    fn failure_schema() -> Option<Value> {
        Some(json!({ "oneOf": [{ "const": "InsufficientFunds" }, { "const": "AccountFrozen" }] }))
    }
}

#[tokio::test]
async fn found_tools_come_with_their_output_and_failure_schemas_where_they_have_them() {
    let registry = catalog();
    registry.register::<TransferMoney>().unwrap();
    registry.register::<tool_search>().unwrap();

    let result = registry
        .call("tool_search", json!({ "query": "move money", "limit": 1 }))
        .await;
    let found = &result.value.unwrap()["tools"][0];
    assert_eq!(found["name"], "transfer_money");
    assert_eq!(found["input_schema"]["required"], json!(["cents"]));
    assert_eq!(found["output_schema"]["type"], "integer");
    assert_eq!(
        found["failure_schema"],
        json!({ "oneOf": [{ "const": "InsufficientFunds" }, { "const": "AccountFrozen" }] })
    );

    // A dynamic tool declares neither.
    let result = registry
        .call(
            "tool_search",
            json!({ "query": "send invoice", "limit": 1 }),
        )
        .await;
    let found = &result.value.unwrap()["tools"][0];
    assert_eq!(found["name"], "send_invoice");
    assert!(found.get("output_schema").is_none(), "{found}");
    assert!(found.get("failure_schema").is_none(), "{found}");
}

#[test]
fn the_search_tool_tells_the_model_how_to_phrase_a_query() {
    let definition = tool_search::DEFINITION;
    let description = definition.description();
    assert!(
        description.contains("\"convert currency\""),
        "{description}"
    );
    // Details the user gave count: a tool that needs one the query lacks
    // ranks lower.
    assert!(
        description.contains("keep the details the user gave"),
        "{description}"
    );
}

/// A deferred dynamic tool with the given parameter schema.
fn with_schema(name: &str, description: &str, schema: Value) -> dsh_kit::DynamicTool {
    dsh_kit::DynamicTool::new(
        ToolDef::builder_owned(name.to_owned(), description.to_owned())
            .defer(true)
            .build(),
        schema,
        |_args: Value, _exec| async { Ok(Value::Null) },
    )
}

/// Two tools alike in all but whether `second` of their parameters is
/// required; the one requiring it has the name that sorts first, so it wins
/// any tie.
fn twins(names: [&str; 2], description: &str, first: Value, second: (&str, Value)) -> Registry {
    let registry = Registry::new();
    for (name, required) in names.into_iter().zip([true, false]) {
        let mut schema = json!({
            "type": "object",
            "properties": { "place": first.clone(), second.0: second.1.clone() },
            "required": ["place"],
        });
        if required {
            schema["required"] = json!(["place", second.0]);
        }
        registry
            .register_dynamic(with_schema(name, description, schema))
            .unwrap();
    }
    registry
}

#[test]
fn a_tool_needing_a_date_the_query_lacks_ranks_below_its_twin() {
    let registry = twins(
        ["city_weather_daily", "city_weather_hourly"],
        "Weather for a city.",
        json!({ "type": "string", "description": "The city" }),
        (
            "when",
            json!({ "type": "string", "format": "date", "description": "The day" }),
        ),
    );
    assert_best(&registry, "city weather in Paris", "city_weather_hourly");
    // Given one, the tie goes by name again.
    for query in [
        "city weather in Paris on 2024-05-01",
        "city weather in Paris on 12/05",
        "city weather in Paris on May 1st",
        "city weather in Paris at 4pm",
    ] {
        assert_best(&registry, query, "city_weather_daily");
    }
    // "may" as a verb is no month.
    assert_best(
        &registry,
        "city weather in Paris, it may rain",
        "city_weather_hourly",
    );
}

#[test]
fn a_tool_needing_more_numbers_than_the_query_holds_ranks_below_its_twin() {
    let registry = twins(
        ["loan_payment_fixed", "loan_payment_plan"],
        "Monthly payment of a loan.",
        json!({ "type": "number", "description": "The principal" }),
        (
            "years",
            json!({ "type": "integer", "description": "How long" }),
        ),
    );
    assert_best(&registry, "loan payment for 20000", "loan_payment_plan");
    assert_best(
        &registry,
        "loan payment for 20000 over 15 years",
        "loan_payment_fixed",
    );
}

#[test]
fn a_tool_whose_required_choice_the_query_does_not_name_ranks_below_its_twin() {
    let registry = twins(
        ["room_heat_read", "room_heat_report"],
        "Temperature of a room.",
        json!({ "type": "string", "description": "The room" }),
        (
            "scale",
            json!({ "type": "string", "enum": ["kelvin", "rankine"] }),
        ),
    );
    assert_best(&registry, "room heat of the kitchen", "room_heat_report");
    assert_best(
        &registry,
        "room heat of the kitchen in kelvin",
        "room_heat_read",
    );
}
