//! Properties of the input path over generated names and arguments: no call
//! panics, every result is whole, what ran passed the schema and the rules,
//! and every record of the call reads back from the session log.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dsh_kit::Registry;
use dsh_kit::Status;
use dsh_kit::event::Event;
use dsh_kit::log::Record;
use dsh_kit::permission::{Approval, ApprovalRequest, FnApprover, Rule};
use dsh_kit::prelude::*;
use proptest::prelude::*;
use serde_json::{Map, Number, Value};

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    /// The path
    path: String,
    /// At most this many lines
    #[schemars(range(max = 1000))]
    limit: Option<u32>,
}

/// Calls that reached a tool with a path under `/secret` or a limit over
/// its schema's maximum: must stay 0.
static FORBIDDEN_RAN: AtomicUsize = AtomicUsize::new(0);

/// Read a file (pretend).
#[tool(destructive)]
async fn read_file(args: ReadArgs) -> String {
    if args.path.starts_with("/secret") || args.limit.is_some_and(|limit| limit > 1000) {
        FORBIDDEN_RAN.fetch_add(1, Ordering::SeqCst);
    }
    args.path
}

/// Echo any JSON value.
#[tool(read_only)]
async fn echo(
    /// Anything
    value: Value,
) -> Value {
    value
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| Value::Number(n.into())),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
        "(/secret|/tmp)?[a-z/é🦀]{0,8}".prop_map(Value::String),
        Just(Value::String(r#"{"path":"/secret/x"}"#.into())),
    ];
    leaf.prop_recursive(6, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("path|limit|value|file|[a-z]{0,4}", inner, 0..5)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// `levels` nested arrays, built without recursion.
fn chain(levels: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..levels {
        value = Value::Array(vec![value]);
    }
    value
}

fn args() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => json(),
        2 => ("(/secret|/tmp)[a-z/]{0,6}", prop::option::of(any::<u32>())).prop_map(|(path, limit)| {
            let mut map = Map::new();
            map.insert("path".into(), Value::String(path));
            if let Some(limit) = limit {
                map.insert("limit".into(), limit.into());
            }
            Value::Object(map)
        }),
        1 => (0usize..200).prop_map(|levels| {
            let mut map = Map::new();
            map.insert("value".into(), chain(levels));
            Value::Object(map)
        }),
        1 => json().prop_map(|value| Value::String(value.to_string())),
    ]
}

fn registry(overrides: Value) -> Registry {
    let registry = Registry::builder()
        .rule(Rule::deny("read_file").when("path", "/secret*").unwrap())
        .approver(FnApprover(move |request: &ApprovalRequest<'_>| {
            if request.args == &overrides {
                Approval::Approve
            } else {
                Approval::ApproveWith(overrides.clone())
            }
        }))
        .build();
    registry.register::<read_file>().unwrap().keep();
    registry.register::<echo>().unwrap().keep();
    registry
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Whatever the model and the approver send, the call ends in one whole
    /// result, nothing under `/secret` runs, and every event of the call
    /// makes a log record that reads back.
    #[test]
    fn every_call_ends_in_a_whole_result_and_readable_records(
        name in prop_oneof![Just("read_file".to_owned()), Just("echo".to_owned()), ".{0,12}"],
        args in args(),
        overrides in args(),
    ) {
        let registry = registry(overrides);
        let records = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&records);
        let _subscription = registry.subscribe(move |event: &Event| {
            let line = serde_json::to_string(&Record::from_event(event)).unwrap();
            seen.lock().unwrap().push(line);
        });
        let result = runtime().block_on(registry.call(&name, args));
        prop_assert_eq!(result.is_error(), result.status() != Status::Success);
        prop_assert!(!result.is_error() || !result.text().trim().is_empty());
        prop_assert!(result.is_error() || result.value.is_some());
        prop_assert_eq!(FORBIDDEN_RAN.load(Ordering::SeqCst), 0);
        let records = records.lock().unwrap();
        prop_assert!(records.len() >= 2, "a request and a result at least");
        for line in records.iter() {
            let read: Result<Record, _> = serde_json::from_str(line);
            prop_assert!(read.is_ok(), "{:?} in {}", read.err(), &line[..line.len().min(300)]);
        }
    }

    /// An unknown name of any length is answered briefly.
    #[test]
    fn an_unknown_name_is_answered_briefly(name in ".{0,400}") {
        let registry = registry(Value::Null);
        prop_assume!(registry.get(&name).is_none());
        let result = runtime().block_on(registry.call(&name, Value::Null));
        prop_assert!(result.is_error());
        // The name is echoed at most 128 characters long, in a short message.
        prop_assert!(result.text().chars().count() <= 128 + 150, "{}", result.text());
    }
}
