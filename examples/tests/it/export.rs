//! What the model sees, for the example tools: reviewed snapshots, order
//! independence, and schemas that are valid JSON Schema 2020-12.
//!
//! To review a change to an export, run with `UPDATE_SNAPSHOTS=1`, read the
//! diff of `tests/snapshots/`, and commit it.

use std::path::PathBuf;

use dsh_kit::Registry;
use dsh_kit::export::Format;
use dsh_kit_examples::{add_days, edit_file, greet, read_file, register_all};
use serde_json::Value;

const FORMATS: [(&str, Format); 3] = [
    ("anthropic", Format::Anthropic),
    ("openai", Format::OpenAi),
    ("mcp", Format::Mcp),
];

fn snapshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.json"))
}

#[test]
fn exports_match_the_reviewed_snapshots() {
    let registry = Registry::new();
    register_all(&registry).unwrap();
    let mut stale = Vec::new();
    for (name, format) in FORMATS {
        let actual = registry.export_json(format) + "\n";
        let path = snapshot_path(name);
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|error| {
            panic!("{}: {error}; run with UPDATE_SNAPSHOTS=1", path.display())
        });
        if actual != expected {
            stale.push(format!("{name}:\n{actual}"));
        }
    }
    assert!(
        stale.is_empty(),
        "exports differ from tests/snapshots (run with UPDATE_SNAPSHOTS=1 and review the diff):\n{}",
        stale.join("\n")
    );
}

#[test]
fn exports_are_byte_identical_whatever_the_registration_order() {
    let forward = Registry::new();
    let _a = forward.register::<greet>().unwrap();
    let _b = forward.register::<read_file>().unwrap();
    let _c = forward.register::<add_days>().unwrap();
    let _d = forward.register::<edit_file>().unwrap();

    let backward = Registry::new();
    let _d2 = backward.register::<edit_file>().unwrap();
    let _c2 = backward.register::<add_days>().unwrap();
    let _b2 = backward.register::<read_file>().unwrap();
    let _a2 = backward.register::<greet>().unwrap();

    for (name, format) in FORMATS {
        assert_eq!(
            forward.export_json(format),
            backward.export_json(format),
            "{name} export depends on registration order"
        );
    }
    let names: Vec<String> = forward
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(names, ["add_days", "edit_file", "greet", "read_file"]);
}

#[test]
fn every_schema_is_valid_json_schema_2020_12() {
    let registry = Registry::new();
    register_all(&registry).unwrap();
    for tool in registry.tools() {
        for (which, schema) in [
            ("input", tool.input_schema()),
            ("output", tool.output_schema()),
        ] {
            if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
                panic!(
                    "{} {which} schema is invalid: {error}\n{schema:#}",
                    tool.name()
                );
            }
        }
        assert_eq!(tool.input_schema()["type"], "object", "{}", tool.name());
    }
}

#[test]
fn output_schemas_describe_what_serde_writes() {
    let registry = Registry::new();
    register_all(&registry).unwrap();
    // `replace_all` has `#[serde(default)]`: optional to read...
    let edit = registry.get("edit_file").unwrap();
    let required: Vec<&Value> = edit.input_schema()["required"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert!(!required.contains(&&Value::from("replace_all")));
    // ...while every field of an output is always written, so always required.
    let read = registry.get("read_file").unwrap();
    let mut required: Vec<&str> = read.output_schema()["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    required.sort_unstable();
    assert_eq!(
        required,
        ["content", "end_line", "path", "start_line", "total_lines"]
    );
    // A non-object output is exported as it is (MCP 2026-07-28 allows it).
    let greet = registry.get("greet").unwrap();
    assert_eq!(
        greet.output_schema(),
        &serde_json::json!({ "type": "string" })
    );
}

#[test]
fn mcp_annotations_follow_the_flags() {
    let registry = Registry::new();
    register_all(&registry).unwrap();
    let Value::Array(tools) = registry.export(Format::Mcp) else {
        panic!("not an array")
    };
    let annotations = |name: &str| {
        tools
            .iter()
            .find(|tool| tool["name"] == name)
            .map(|tool| tool["annotations"].clone())
            .unwrap()
    };
    assert_eq!(
        annotations("edit_file"),
        serde_json::json!({ "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false })
    );
    assert_eq!(
        annotations("greet"),
        serde_json::json!({ "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false })
    );
    // Said of a tool that reaches the web; left out of one that did not say.
    assert_eq!(annotations("fetch")["openWorldHint"], true);
    assert!(annotations("edit_file").get("openWorldHint").is_none());
}
