//! The validator against the JSON Schema Test Suite's 2020-12 cases (copied
//! under `tests/fixtures/json-schema-test-suite`, with its licence and the
//! commit they came from), and the messages the model reads.

use std::path::Path;

use serde_json::{Value, json};

use super::{ErrorKind, Refusal, Validator};

/// Cases that need what this validator does not do by design: fetching a
/// schema from elsewhere (the meta-schema included).
const FETCHES: &[&str] = &[
    "validate definition against metaschema",
    "remote ref, containing refs itself",
    "strict-tree schema, guards against misspelled properties",
    "tests for implementation dynamic anchor and reference link",
    "$ref and $dynamicAnchor are independent of order - $defs first",
    "$ref and $dynamicAnchor are independent of order - $ref first",
    "$ref to $dynamicRef finds detached $dynamicAnchor",
];

fn fixtures(sub: &str) -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/json-schema-test-suite")
        .join(sub);
    let mut files: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let groups = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            (name, groups)
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

#[test]
fn passes_the_json_schema_test_suite() {
    let (ran, failures) = run(fixtures(""), FETCHES);
    assert!(ran > 1000, "only {ran} cases ran");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Format cases this validator reads otherwise: an A-label (`xn--…`) host
/// name is checked for its shape, not decoded and held to the IDNA tables,
/// which would weigh more than the rest of the validator.
const FORMATS_READ_OTHERWISE: &[&str] = &["validation of A-label (punycode) host names"];

#[test]
fn asserts_formats_as_the_test_suite_does() {
    let (ran, failures) = run(fixtures("format"), FORMATS_READ_OTHERWISE);
    assert!(ran > 300, "only {ran} cases ran");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs the groups of `files` but those `skipped` names: how many cases
/// ran, and a line for each that went otherwise than the suite says.
fn run(files: Vec<(String, Value)>, skipped: &[&str]) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut ran = 0;
    for (file, groups) in files {
        for group in groups.as_array().unwrap() {
            let description = group["description"].as_str().unwrap();
            if skipped.contains(&description) {
                continue;
            }
            let validator = match Validator::new(&group["schema"]) {
                Ok(validator) => validator,
                Err(refusal) => {
                    failures.push(format!("{file}: {description}: refused: {refusal:?}"));
                    continue;
                }
            };
            for case in group["tests"].as_array().unwrap() {
                ran += 1;
                let expected = case["valid"].as_bool().unwrap();
                let data = &case["data"];
                let valid = validator.is_valid(data);
                let errors = validator.errors(data);
                if valid != expected || errors.is_empty() != expected {
                    failures.push(format!(
                        "{file}: {description}: {}: {data}: expected valid={expected}, is_valid={valid}, errors={:?}",
                        case["description"].as_str().unwrap(),
                        errors.iter().map(|e| e.message.as_str()).collect::<Vec<_>>()
                    ));
                }
            }
        }
    }
    (ran, failures)
}

fn messages(schema: Value, instance: Value) -> Vec<(String, String)> {
    let validator = Validator::new(&schema).unwrap();
    let mut found: Vec<(String, String)> = validator
        .errors(&instance)
        .into_iter()
        .map(|error| (error.instance_path, error.message))
        .collect();
    found.sort();
    found
}

#[test]
fn says_what_was_found_and_what_was_wanted() {
    let schema = json!({
        "type": "object",
        "properties": {
            "limit": { "type": ["integer", "null"], "minimum": 0 },
            "mode": { "enum": ["fast", "slow"] },
            "tags": { "type": "array", "maxItems": 1, "items": { "type": "string", "maxLength": 2 } }
        },
        "required": ["path"],
        "additionalProperties": false
    });
    let found = messages(
        schema,
        json!({ "limit": -1, "mode": "quick", "tags": ["abc", 3], "extra": true }),
    );
    let expected: Vec<(String, String)> = [
        ("", "\"path\" is a required property"),
        (
            "",
            "Additional properties are not allowed ('extra' was unexpected)",
        ),
        ("/limit", "-1 is less than the minimum of 0"),
        ("/mode", "\"quick\" is not one of \"fast\" or \"slow\""),
        ("/tags", "[\"abc\",3] has more than 1 item"),
        ("/tags/0", "\"abc\" is longer than 2 characters"),
        ("/tags/1", "3 is not of type \"string\""),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_owned(), b.to_owned()))
    .collect::<std::collections::BTreeSet<_>>()
    .into_iter()
    .collect();
    assert_eq!(found, expected);
    assert_eq!(
        messages(json!({ "type": ["integer", "null"] }), json!("ten")),
        [(
            String::new(),
            r#""ten" is not of types "null", "integer""#.to_owned()
        )]
    );
}

#[test]
fn tells_required_and_additional_properties_apart() {
    let validator = Validator::new(&json!({
        "type": "object",
        "properties": { "a": {} },
        "required": ["b"],
        "additionalProperties": false
    }))
    .unwrap();
    let kinds: Vec<ErrorKind> = validator
        .errors(&json!({ "c": 1, "d": 2 }))
        .into_iter()
        .map(|error| error.kind)
        .collect();
    assert!(kinds.contains(&ErrorKind::Required {
        property: "b".into()
    }));
    assert!(kinds.contains(&ErrorKind::AdditionalProperties {
        unexpected: vec!["c".into(), "d".into()]
    }));
}

#[test]
fn a_reference_loop_ends_in_an_error_not_a_stack_overflow() {
    let validator = Validator::new(&json!({ "$ref": "#" })).unwrap();
    assert!(!validator.is_valid(&json!(1)));
    let errors = validator.errors(&json!(1));
    assert!(errors[0].message.contains("nests more than"), "{errors:?}");
}

#[test]
fn refuses_what_it_cannot_compile() {
    let Err(Refusal::Build(error)) =
        Validator::new(&json!({ "$ref": "https://example.com/elsewhere.json" }))
    else {
        panic!("a reference out of the schema compiled");
    };
    assert_eq!(
        error.to_string(),
        "/$ref: `https://example.com/elsewhere.json` resolves to nothing in this schema (references are not fetched)"
    );
    assert!(matches!(
        Validator::new(&json!({ "pattern": "(?=look)" })),
        Err(Refusal::Build(super::BuildError::BadPattern { .. }))
    ));
    let Err(Refusal::Meta(error)) =
        Validator::new(&json!({ "properties": { "a": { "type": "strin" } } }))
    else {
        panic!("a misspelt type compiled");
    };
    assert_eq!(error.pointer, "/properties/a/type");
    assert!(error.about_type);
}

#[test]
fn a_long_chain_of_references_compiles_without_recursion() {
    let mut defs = serde_json::Map::new();
    for at in 0..20_000 {
        defs.insert(
            format!("d{at}"),
            json!({ "$ref": format!("#/$defs/d{}", at + 1) }),
        );
    }
    defs.insert("d20000".into(), json!({ "type": "integer" }));
    let validator = Validator::new(&json!({ "$defs": defs, "$ref": "#/$defs/d0" })).unwrap();
    // Evaluating it goes as deep as the chain: past the bound, an error.
    assert!(!validator.is_valid(&json!(1)));
    let shallow = Validator::new(&json!({
        "$defs": { "a": { "$ref": "#/$defs/b" }, "b": { "type": "integer" } },
        "$ref": "#/$defs/a"
    }))
    .unwrap();
    assert!(shallow.is_valid(&json!(1)));
    assert!(!shallow.is_valid(&json!("1")));
}
