//! Unit tests of the index: its bounds, the misspelling index and the rerank.

use super::*;
use crate::tool::DynamicTool;
use crate::{Registry, ToolDef};
use evidence::Values;
use serde_json::json;
use spelling::one_edit_apart;
use tuning::{MAX_EXTENSIONS, MAX_NEIGHBOURS, MAX_PROPERTIES, MAX_TERMS_PER_FIELD, MAX_WORD_BYTES};

fn pool() -> Vec<ToolInfo> {
    let registry = Registry::new();
    let verbs = ["get", "list", "createNew", "delete", "send"];
    let things = [
        "invoice",
        "customer_record",
        "email-draft",
        "file",
        "payment",
    ];
    for (at, verb) in verbs.iter().enumerate() {
        for thing in &things[..=at.min(things.len() - 1)] {
            for place in ["stripe", "gmail", "drive"] {
                let name = format!("{place}_{verb}_{thing}");
                let tool = DynamicTool::new(
                    ToolDef::builder_owned(name, format!("{verb} a {thing} in {place}")).build(),
                    json!({
                        "type": "object",
                        "properties": {
                            "id": { "type": "string", "description": format!("The {thing}") },
                            "mode": { "enum": ["draft", "final"] }
                        }
                    }),
                    |_, _| async { Ok(serde_json::Value::Null) },
                );
                registry.register_dynamic(tool).unwrap();
            }
        }
    }
    registry.tools()
}

fn ranking(index: &ToolIndex, query: &str) -> Vec<(String, f32)> {
    index
        .rank(query, 50)
        .into_iter()
        .map(|(doc, score)| (index.doc(doc).unwrap().tool.name().to_owned(), score))
        .collect()
}

#[test]
fn updates_rank_exactly_as_a_fresh_build_does() {
    let tools = pool();
    let mut index = ToolIndex::build(&tools);
    // Take every third tool out, put some back, replace one with itself.
    for tool in tools.iter().step_by(3) {
        assert!(index.remove(tool.name()));
    }
    assert!(!index.remove(tools[0].name()));
    for tool in tools.iter().step_by(6) {
        index.insert(tool.clone());
    }
    index.insert(tools[1].clone());
    let kept: Vec<ToolInfo> = tools
        .iter()
        .enumerate()
        .filter(|(at, _)| at % 3 != 0 || at % 6 == 0)
        .map(|(_, tool)| tool.clone())
        .collect();
    let fresh = ToolIndex::build(&kept);
    assert_eq!(index.len(), kept.len());
    for query in [
        "send an email draft",
        "list payments in stripe",
        "get invoice",
        "final customer records",
        "delete file from drive",
    ] {
        let (updated, built) = (ranking(&index, query), ranking(&fresh, query));
        assert!(!built.is_empty(), "{query}");
        assert_eq!(updated, built, "{query}");
    }
    // Emptied, it holds no term at all.
    for tool in &kept {
        assert!(index.remove(tool.name()));
    }
    assert!(index.is_empty());
    assert!(index.ids.is_empty());
    assert!(index.neighbours.terms.is_empty());
    assert_eq!(index.total_length, PerField::default());
    assert!(index.search("invoice", 5).is_empty());
}

fn one_tool(name: &str, description: &str) -> ToolInfo {
    let registry = Registry::new();
    let tool = DynamicTool::new(
        ToolDef::builder_owned(name.to_owned(), description.to_owned()).build(),
        json!({ "type": "object" }),
        |_, _| async { Ok(serde_json::Value::Null) },
    );
    registry.register_dynamic(tool).unwrap();
    registry.tools().remove(0)
}

/// The index of tools given by name and description.
fn index_of(tools: &[(&str, &str)]) -> ToolIndex {
    let tools: Vec<ToolInfo> = tools
        .iter()
        .map(|(name, description)| one_tool(name, description))
        .collect();
    ToolIndex::build(&tools)
}

/// The names `index` ranks for `query`, best first.
fn ranked(index: &ToolIndex, query: &str, limit: usize) -> Vec<String> {
    let found = index.search(query, limit);
    found.iter().map(|tool| tool.name().to_owned()).collect()
}

#[test]
fn a_remembered_word_whose_term_was_freed_is_not_taken_for_its_successor() {
    let mut index = ToolIndex::new();
    index.insert(one_tool("first", "Feed the zebra"));
    assert!(index.remove("first"));
    // The freed slots of `first`'s terms go to `second`'s.
    index.insert(one_tool("second", "Groom the yak"));
    index.insert(one_tool("third", "Feed the zebra"));
    let names = |query| -> Vec<String> {
        let found = index.search(query, 5);
        found.iter().map(|tool| tool.name().to_owned()).collect()
    };
    assert_eq!(names("zebra"), ["third"]);
    assert_eq!(names("yak"), ["second"]);
    assert_eq!(names("feed"), ["third"]);
}

#[test]
fn long_words_are_found_but_not_remembered() {
    let long = "x".repeat(MAX_WORD_BYTES + 1);
    let mut index = ToolIndex::new();
    index.insert(one_tool("first", &format!("Feed {long}")));
    index.insert(one_tool("second", &format!("Groom {long}")));
    assert_eq!(index.search(&long, 5).len(), 2);
    assert!(index.words.keys().all(|word| word.len() <= MAX_WORD_BYTES));
}

#[test]
fn numbers_in_a_query_count_less_than_words() {
    let index = index_of(&[
        // "resize" only in the description, "2023" in the name too.
        ("scale_picture", "Resize an image to a new width"),
        ("report_2023", "The summary of 2023"),
    ]);
    assert_eq!(
        ranked(&index, "resize 2023", 2),
        ["scale_picture", "report_2023"]
    );
}

#[test]
fn of_tools_scored_alike_the_one_holding_more_of_the_query_comes_first() {
    let index = index_of(&[
        ("alpha_tool", "Feed the zebra."),
        ("beta_tool", "Feed the zebra and the yak."),
    ]);
    assert_beta_first(&index, &["zebra", "yak"]);
}

/// `alpha_tool` and `beta_tool` scored alike for the query `terms`: the
/// rerank puts `beta_tool` first, though by name `alpha_tool` would be.
fn assert_beta_first(index: &ToolIndex, terms: &[&str]) {
    let doc = |name: &str| index.by_name[name];
    let wanted: Vec<_> = terms.iter().map(|text| (index.ids[*text], 1.0)).collect();
    let query = rerank::Query::new(index, &wanted, &wanted, Values::default());
    let mut best = vec![(doc("alpha_tool"), 1.0), (doc("beta_tool"), 1.0)];
    index.rerank(&mut best, &query);
    assert_eq!(best[0].0, doc("beta_tool"));
    assert!(best[0].1 > best[1].1);
}

#[test]
fn terms_sharing_a_deletion_are_bounded() {
    let mut index = ToolIndex::new();
    let letters = ('a'..='z').chain('α'..='ω').chain('а'..='я');
    for (at, last) in letters.enumerate() {
        index.insert(one_tool(&format!("tool{at}"), &format!("Feed zebr{last}")));
    }
    let lengths = index.neighbours.terms.values().map(Vec::len);
    assert_eq!(lengths.max(), Some(MAX_NEIGHBOURS));
    // A misspelling still finds a term under a full deletion.
    assert!(!index.search("zebar", 5).is_empty());
    let names: Vec<String> = index.by_name.keys().cloned().collect();
    for name in names {
        assert!(index.remove(&name));
    }
    assert!(index.neighbours.terms.is_empty());
}

#[test]
fn one_edit_apart_is_one_edit_apart() {
    for (a, b) in [
        ("search", "seach"),
        ("search", "searchh"),
        ("search", "saarch"),
        ("search", "seacrh"),
        ("search", "esarch"),
        ("straße", "strase"),
    ] {
        assert!(one_edit_apart(a, b), "{a} {b}");
        assert!(one_edit_apart(b, a), "{b} {a}");
    }
    for (a, b) in [
        ("search", "search"),
        ("search", "sarc"),
        ("search", "saerhc"),
        ("search", "scraeh"),
        ("search", "research"),
    ] {
        assert!(!one_edit_apart(a, b), "{a} {b}");
    }
}

#[test]
fn ties_go_by_name_and_the_limit_holds() {
    let tools = pool();
    let index = ToolIndex::build(&tools);
    let names = ranked(&index, "gmail", 4);
    assert_eq!(names.len(), 4);
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    assert!(index.search("gmail", 0).is_empty());
}

#[test]
fn ties_go_by_the_whole_name_past_its_first_bytes() {
    let names = [
        "billing_export_b",
        "billing_export",
        "billing_export_a",
        "bil",
        "billingsx",
        "zeta",
    ];
    // Keys that differ order names as the names do, whatever their bytes.
    for a in names.iter().chain(&["bil\u{0}", "é_first", ""]) {
        for b in names.iter().chain(&["bil\u{0}", "é_first", ""]) {
            let (ka, kb) = (super::name_key(a), super::name_key(b));
            assert!(ka == kb || ka.cmp(&kb) == a.cmp(b), "{a:?} {b:?}");
        }
    }
    // Tied: the query is only in their descriptions, which are alike.
    let tools: Vec<(&str, &str)> = names
        .iter()
        .map(|name| (*name, "Send an invoice."))
        .collect();
    let index = index_of(&tools);
    let mut sorted = names.map(str::to_owned).to_vec();
    sorted.sort_unstable();
    assert_eq!(ranked(&index, "invoice", names.len()), sorted);
}

#[test]
fn hostile_tool_text_is_bounded() {
    let registry = Registry::new();
    let description = "word ".repeat(100_000);
    let mut properties = serde_json::Map::new();
    for at in 0..2_000 {
        properties.insert(format!("p{at}"), json!({ "description": "deep" }));
    }
    let tool = DynamicTool::new(
        ToolDef::builder_owned("huge".to_owned(), description).build(),
        json!({ "type": "object", "properties": properties }),
        |_, _| async { Ok(serde_json::Value::Null) },
    );
    registry.register_dynamic(tool).unwrap();
    let index = ToolIndex::build(&registry.tools());
    let lengths = index.lengths[0];
    assert_eq!(
        usize::from(lengths[Field::Description]),
        MAX_TERMS_PER_FIELD
    );
    assert_eq!(usize::from(lengths[Field::ParameterText]), MAX_PROPERTIES);
    assert_eq!(index.search("word", 5).len(), 1);
}

#[test]
fn of_tools_scored_alike_the_one_whose_allowed_value_the_query_names_comes_first() {
    let registry = Registry::new();
    // Both hold "fahrenheit"; only `beta_tool` as a value its parameter allows.
    for (name, description, units) in [
        (
            "alpha_tool",
            "Read the thermometer in fahrenheit.",
            ["kelvin", "rankine"],
        ),
        (
            "beta_tool",
            "Read the thermometer.",
            ["celsius", "fahrenheit"],
        ),
    ] {
        let schema = json!({
            "type": "object",
            "properties": { "unit": { "type": "string", "enum": units } }
        });
        let tool = DynamicTool::new(
            ToolDef::builder_owned(name.to_owned(), description.to_owned()).build(),
            schema,
            |_, _| async { Ok(serde_json::Value::Null) },
        );
        registry.register_dynamic(tool).unwrap();
    }
    let index = ToolIndex::build(&registry.tools());
    assert_beta_first(&index, &["thermomet", "fahrenheit"]);
}

#[test]
fn dates_and_times_are_told_from_other_numbers() {
    for text in [
        "on 2024-05-01",
        "by 12/05",
        "at 16:00",
        "at 4pm",
        "at 9 PM",
        "in March",
        "on the 4th of December",
    ] {
        assert!(Values::of(text, 64).dated, "{text}");
    }
    for text in [
        "add 5.0 to 3.0",
        "it may rain",
        "march on",
        "4 pmol",
        "scale 3-d",
        "",
    ] {
        assert!(!Values::of(text, 64).dated, "{text}");
    }
}

#[test]
fn query_values_are_counted_within_bounds() {
    let values = Values::of("add 5.0 to 3 and 12", 64);
    assert_eq!(values.numbers, 4);
    assert!(!values.dated);
    assert_eq!(Values::of(&"7 ".repeat(1_000), 64).numbers, 64);
    // A date past the bytes looked at is not seen, and cutting there never
    // splits a character.
    for pad in 0..4 {
        let query = format!("{}{}ü 2024-05-01", "x".repeat(4_090 + pad), "é");
        assert!(!Values::of(&query, 64).dated);
    }
}

#[test]
fn numbers_of_a_date_or_time_are_the_dates_not_values() {
    for (query, numbers) in [
        ("the forecast for April 11th, 2023", 0),
        ("on the 5th of march 2023", 0),
        ("between 16:00 - 18:00 on 2024-03-12", 0),
        ("at 4pm or 5 pm", 0),
        ("add 3 and 12 on 2024-03-12", 2),
        ("7 days from March 3", 1),
        ("tonight 2023.10.02, for 2 people", 1),
    ] {
        let values = Values::of(query, 64);
        assert!(values.dated, "{query}");
        assert_eq!(values.numbers, numbers, "{query}");
    }
    // Two numbers joined by a dot are a decimal; four are a version.
    for query in ["add 5.0 and 2", "version 1.2.3.4 of 2"] {
        assert!(!Values::of(query, 64).dated, "{query}");
    }
    // A month's name near no number, in lowercase, is a word like any other.
    let values = Values::of("march 10 miles north", 64);
    assert!(values.dated);
    let values = Values::of("they march on for miles", 64);
    assert!(!values.dated);
    assert_eq!(values.numbers, 0);
}

#[test]
fn a_forecast_for_a_date_is_not_taken_for_one_for_a_number_of_days() {
    let registry = Registry::new();
    for (name, parameter, kind) in [
        ("alpha_tool", "days", "integer"),
        ("beta_tool", "date", "string"),
    ] {
        let schema = json!({
            "type": "object",
            "properties": { "city": { "type": "string" }, parameter: { "type": kind } },
            "required": ["city", parameter]
        });
        let tool = DynamicTool::new(
            ToolDef::builder_owned(
                name.to_owned(),
                "The weather forecast for a city.".to_owned(),
            )
            .build(),
            schema,
            |_, _| async { Ok(serde_json::Value::Null) },
        );
        registry.register_dynamic(tool).unwrap();
    }
    let index = ToolIndex::build(&registry.tools());
    // A date fills `date` and leaves `days` wanting; a count of days, the other way.
    for (query, order) in [
        (
            "the forecast for Pacifica on April 11th, 2023",
            ["beta_tool", "alpha_tool"],
        ),
        (
            "the forecast for Pacifica for the next 3 days",
            ["alpha_tool", "beta_tool"],
        ),
    ] {
        assert_eq!(ranked(&index, query, 2), order, "{query}");
    }
}

#[test]
fn a_query_finds_the_short_forms_identifiers_use() {
    let index = index_of(&[
        ("cmd_execute", "Run it in the shell."),
        ("shell_open", "Open the shell for a run."),
        ("average_price", "The price over a window."),
        ("price_list", "Every price."),
    ]);
    // A word finds its short form, and a short form the word.
    for (query, best) in [
        ("run this command in the shell", "cmd_execute"),
        ("avg price", "average_price"),
    ] {
        assert_eq!(ranked(&index, query, 1), [best], "{query}");
    }
}

#[test]
fn hostile_parameter_schemas_are_bounded() {
    let mut properties = serde_json::Map::new();
    for at in 0..1_000 {
        let values: Vec<String> = (0..1_000).map(|value| format!("v{at}x{value}")).collect();
        properties.insert(
            format!("p{at}"),
            json!({ "type": ["integer", "null"], "enum": values }),
        );
    }
    properties.insert(
        "long".to_owned(),
        json!({ "type": "string", "enum": ["word ".repeat(100_000)] }),
    );
    let required: Vec<String> = (0..100_000).map(|at| format!("p{at}")).collect();
    let registry = Registry::new();
    let tool = DynamicTool::new(
        ToolDef::builder_owned("huge".to_owned(), "Feed the zebra.".to_owned()).build(),
        json!({ "type": "object", "properties": properties, "required": required }),
        |_, _| async { Ok(serde_json::Value::Null) },
    );
    registry.register_dynamic(tool).unwrap();
    let index = ToolIndex::build(&registry.tools());
    assert_eq!(index.search("feed zebra", 5).len(), 1);
    assert_eq!(index.search("feed zebra 1 2 3 2024-05-01", 5).len(), 1);
}

#[test]
fn a_query_word_finds_the_longer_words_it_begins() {
    // `multiplication` stems to `multipl`, which begins `multiply`'s `multipli`;
    // the table keeps `multipl` known, so no misspelling lookup stands in.
    let mut index = index_of(&[
        ("multiply", "Multiply two numbers."),
        ("times_table", "Print a multiplication table."),
        ("cats", "A cat sits."),
        ("catalogue", "Browse the catalogue."),
    ]);
    let found = ranked(&index, "multiplication", 5);
    assert_eq!(found, ["times_table", "multiply"]);
    // Short words begin too many others to count.
    assert_eq!(ranked(&index, "cat", 5), ["cats"]);
    // The sorted terms follow the pool.
    assert!(index.remove("multiply"));
    assert_eq!(ranked(&index, "multiplication", 5), ["times_table"]);
    assert!(!index.sorted.contains_key("multipli"));
    assert_eq!(index.sorted.len(), index.ids.len());
}

#[test]
fn extensions_are_bounded_and_the_shortest_come_first() {
    let mut tools = vec![("base", "Reach the abcdefz.")];
    let names: Vec<(String, String)> = (0..100)
        .map(|at| {
            (
                format!("tool{at}"),
                format!("Reach the abcdef{}.", "y".repeat(at + 1)),
            )
        })
        .collect();
    tools.extend(names.iter().map(|(n, d)| (n.as_str(), d.as_str())));
    let index = index_of(&tools);
    let found = index.extensions("abcdef");
    assert_eq!(found.len(), MAX_EXTENSIONS);
    let lengths: Vec<usize> = found
        .iter()
        .map(|&id| index.terms[id.slot()].text.len())
        .collect();
    assert!(
        lengths.windows(2).all(|pair| pair[0] <= pair[1]),
        "{lengths:?}"
    );
    assert_eq!(lengths[0], "abcdefi".len());
}

#[test]
fn the_candidates_weighed_by_the_rerank_weights_rank_as_a_search_does() {
    let index = ToolIndex::build(&pool());
    for query in [
        "send an email draft",
        "list payments in stripe",
        "get invoice",
        "final customer records",
    ] {
        let mut weighed: Vec<(f32, String)> = index
            .candidates(query)
            .into_iter()
            .map(|(tool, features)| {
                let score = features
                    .iter()
                    .zip(RERANK_WEIGHTS)
                    .map(|(f, w)| f * w)
                    .sum();
                (score, tool.name().to_owned())
            })
            .collect();
        assert!(weighed.len() > 5, "{query}");
        weighed.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let names: Vec<String> = weighed.into_iter().map(|(_, name)| name).take(10).collect();
        assert_eq!(names, ranked(&index, query, 10), "{query}");
    }
    assert!(index.candidates("").is_empty());
}
