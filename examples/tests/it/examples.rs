//! Every example call the example tools declare runs through the pipeline
//! and gives a value its output schema accepts; the examples reach the
//! model in each format that carries them; a wrong one is refused when its
//! tool is registered, naming the tool, the example and the pointer.

use dsh_kit::export::{Format, META_INPUT_EXAMPLES};
use dsh_kit::prelude::*;
use dsh_kit::{RegisterError, Registry};
use dsh_kit_examples::register_all;
use serde_json::json;

#[tokio::test]
async fn every_example_of_the_example_tools_runs() {
    let registry = Registry::new();
    register_all(&registry).expect("the example tools register");
    let made = dsh_kit::testing::run_examples(&registry)
        .await
        .unwrap_or_else(|failed| panic!("{failed}"));
    assert_eq!(made, 7);
}

#[test]
fn examples_are_exported_for_anthropic_and_in_mcp_meta() {
    let registry = Registry::new();
    register_all(&registry).expect("the example tools register");
    let anthropic = registry.export(Format::Anthropic);
    let add_days = anthropic
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "add_days")
        .unwrap();
    assert_eq!(
        add_days["input_examples"],
        json!([
            { "date": "2024-02-28", "days": 1 },
            { "date": "2024-03-01", "days": -1 },
        ])
    );
    let mcp = registry.export(Format::Mcp);
    let greet = mcp
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "greet")
        .unwrap();
    assert_eq!(
        greet["_meta"][META_INPUT_EXAMPLES],
        json!([{ "input": { "name": "Ada" } }])
    );
    // A tool with none says nothing of examples.
    let edit = anthropic
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "edit_file")
        .unwrap();
    assert!(edit.get("input_examples").is_none(), "{edit}");
}

/// Greet someone, by a name the example gives as a number. (A name that
/// is no argument is refused at compile time; a value of the wrong type,
/// here, when the tool registers.)
#[tool(read_only, example(name = 7), example())]
async fn greet_badly(name: String) -> String {
    name
}

#[test]
fn an_example_that_breaks_the_input_schema_is_refused_at_registration() {
    let registry = Registry::new();
    let Err(error) = registry.register::<greet_badly>() else {
        panic!("a wrong example registers");
    };
    let RegisterError::InvalidExample { tool, index, .. } = &error else {
        panic!("another refusal: {error}");
    };
    assert_eq!((tool.as_str(), *index), ("greet_badly", 0));
    let said = error.to_string();
    assert!(said.contains("example 0"), "{said}");
    assert!(said.contains("/name"), "{said}");
    assert!(said.contains("string"), "{said}");
}

/// A tool whose example the tool itself refuses.
#[tool(read_only, example(days = 400))]
async fn fail_on_example(days: i64) -> Result<i64, ToolError> {
    if days > 365 {
        return Err(ToolError::new("more than a year"));
    }
    Ok(days)
}

#[tokio::test]
async fn a_failing_example_is_reported_with_its_tool_and_index() {
    let registry = Registry::new();
    let _tool = registry.register::<fail_on_example>().unwrap();
    let failed = dsh_kit::testing::run_examples(&registry)
        .await
        .expect_err("the example fails");
    assert_eq!(failed.0.len(), 1);
    assert_eq!(failed.0[0].tool, "fail_on_example");
    assert_eq!(failed.0[0].index, 0);
    assert!(failed.0[0].problem.contains("more than a year"));
}
