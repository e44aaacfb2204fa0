//! Dynamic tools: built at run time from raw JSON Schemas and a JSON handler,
//! run through the same pipeline as typed tools, and placed after them in the pool.

use std::sync::{Arc, Mutex};

use dsh_kit::Registry;
use dsh_kit::card::Card;
use dsh_kit::catalog::TOOL_SHADOWED;
use dsh_kit::event::rawp::Severity;
use dsh_kit::event::{Event, StreamType};
use dsh_kit::export::Format;
use dsh_kit::prelude::*;
use dsh_kit::{DynamicTool, RegisterError, SchemaRole, Status};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// Greet someone by name.
#[tool(read_only)]
async fn greet(
    /// The name to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Add two numbers.
#[tool(read_only)]
async fn add(
    /// The first
    a: i64,
    /// The second
    b: i64,
) -> i64 {
    a + b
}

fn object_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "text": { "type": "string", "maxLength": 5 },
            "times": { "type": "integer", "minimum": 1 }
        },
        "required": ["text"],
        "additionalProperties": false
    })
}

/// Repeats `text`, `times` times; declares a string output.
fn repeat(name: &str) -> DynamicTool {
    DynamicTool::new(
        ToolDef::builder_owned(name, "Repeat a text.")
            .read_only(true)
            .build(),
        object_schema(),
        |args, _exec| async move {
            let text = args["text"].as_str().unwrap_or_default();
            let times = args["times"].as_u64().unwrap_or(1) as usize;
            Ok(json!(text.repeat(times)))
        },
    )
    .output_schema(json!({ "type": "string" }))
}

/// Returns whatever `value` it is given, with no output schema.
fn echo(name: &str) -> DynamicTool {
    DynamicTool::new(
        ToolDef::builder_owned(name, "Echo a value.").build(),
        json!({ "type": "object", "properties": { "value": {} }, "required": ["value"] }),
        |args, _exec| async move { Ok(args["value"].clone()) },
    )
}

#[tokio::test]
async fn a_dynamic_tool_runs_through_the_pipeline() {
    let registry = Registry::new();
    let _repeat = registry.register_dynamic(repeat("repeat")).unwrap();

    let result = registry
        .call("repeat", json!({ "text": "ab", "times": 3 }))
        .await;
    assert_eq!(result.status(), Status::Success);
    assert_eq!(result.text(), "ababab");
    assert_eq!(result.value, Some(json!("ababab")));
    // No `present`: the generic card, with the raw arguments.
    assert_eq!(
        result.card(),
        Some(&Card::generic(
            "repeat",
            json!({ "text": "ab", "times": 3 }),
            Some(json!("ababab"))
        ))
    );
}

#[tokio::test]
async fn arguments_are_validated_before_the_handler_sees_them() {
    let registry = Registry::new();
    let called = Arc::new(Mutex::new(0));
    let count = Arc::clone(&called);
    let tool = DynamicTool::new(
        ToolDef::builder_owned("strict", "Take a short text.").build(),
        object_schema(),
        move |_args, _exec| {
            *count.lock().unwrap() += 1;
            async { Ok(json!(null)) }
        },
    );
    let _strict = registry.register_dynamic(tool).unwrap();

    let result = registry
        .call(
            "strict",
            json!({ "text": "too long", "times": 0, "extra": true }),
        )
        .await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "invalid arguments for `strict`: /extra: unknown property; \
         /text: \"too long\" is longer than 5 characters; \
         /times: 0 is less than the minimum of 1"
    );
    assert_eq!(*called.lock().unwrap(), 0);
}

#[tokio::test]
async fn values_are_validated_against_the_output_schema() {
    let registry = Registry::new();
    let liar = DynamicTool::new(
        ToolDef::builder_owned("liar", "Promise a string, return a number.").build(),
        json!({ "type": "object" }),
        |_args, _exec| async { Ok(json!(42)) },
    )
    .output_schema(json!({ "type": "string" }));
    let _liar = registry.register_dynamic(liar).unwrap();

    let result = registry.call("liar", json!({})).await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "`liar` returned an output that breaks its schema: /: 42 is not of type \"string\""
    );
}

#[tokio::test]
async fn renders_by_default_a_string_as_itself_and_anything_else_as_compact_json() {
    let registry = Registry::new();
    let _echo = registry.register_dynamic(echo("echo")).unwrap();

    let text = registry.call("echo", json!({ "value": "plain" })).await;
    assert_eq!(text.text(), "plain");
    let object = registry
        .call("echo", json!({ "value": { "a": [1, 2], "b": null } }))
        .await;
    assert_eq!(object.text(), r#"{"a":[1,2],"b":null}"#);
}

#[tokio::test]
async fn a_render_can_be_given() {
    let registry = Registry::new();
    let tool =
        echo("echo").render(|args, value| vec![ContentBlock::text(format!("{args} gave {value}"))]);
    let _echo = registry.register_dynamic(tool).unwrap();

    let result = registry.call("echo", json!({ "value": 1 })).await;
    assert_eq!(result.text(), r#"{"value":1} gave 1"#);
}

#[tokio::test]
async fn a_handler_error_reaches_the_model() {
    let registry = Registry::new();
    let tool = DynamicTool::new(
        ToolDef::builder_owned("fails", "Always fail.").build(),
        json!({ "type": "object" }),
        |_args, _exec| async { Err(ToolError::new("the disk is full")) },
    );
    let _fails = registry.register_dynamic(tool).unwrap();

    let result = registry.call("fails", json!({})).await;
    assert!(result.is_error());
    assert_eq!(result.text(), "`fails` failed: the disk is full");
}

#[tokio::test]
async fn the_handler_gets_the_calls_exec() {
    let registry = Registry::new();
    let tool = DynamicTool::new(
        ToolDef::builder_owned("slow", "Report progress, then wait to be cancelled.").build(),
        json!({ "type": "object" }),
        |_args, exec: Exec| async move {
            exec.progress("started");
            exec.cancellation().cancelled().await;
            Ok(json!("cancelled"))
        },
    );
    let _slow = registry.register_dynamic(tool).unwrap();
    let chunks = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&chunks);
    let _subscription = registry.subscribe(move |event| {
        if let Event::Stream(chunk) = event {
            sink.lock()
                .unwrap()
                .push((chunk.stream_type, chunk.chunk.clone()));
        }
    });

    let cancel = CancellationToken::new();
    let call =
        registry.call_with(dsh_kit::ToolCall::new("slow", json!({})).cancel_on(cancel.clone()));
    let canceller = async {
        while chunks.lock().unwrap().is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        cancel.cancel();
    };
    let (result, ()) = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        tokio::join!(call, canceller)
    })
    .await
    .expect("the call ends once cancelled");
    assert_eq!(result.status(), Status::Cancelled);
    assert_eq!(
        *chunks.lock().unwrap(),
        vec![(StreamType::Progress, "started".to_owned())]
    );
}

#[test]
fn a_malformed_schema_is_refused_at_registration() {
    let registry = Registry::new();
    let tool = DynamicTool::new(
        ToolDef::builder_owned("broken", "Has a typo in its schema.").build(),
        json!({ "type": "object", "properties": { "n": { "type": "integr" } } }),
        |_args, _exec| async { Ok(json!(null)) },
    );
    let error = registry.register_dynamic(tool).unwrap_err();
    assert!(matches!(
        error,
        RegisterError::InvalidSchema {
            which: SchemaRole::Input,
            ..
        }
    ));
    assert_eq!(
        error.to_string(),
        "cannot register `broken`: its input schema is not valid JSON Schema: \
         /properties/n/type: \"integr\" is not valid under any of the schemas listed in the 'anyOf' keyword; \
         `type` takes one of \"array\", \"boolean\", \"integer\", \"null\", \"number\", \"object\", \"string\", or an array of them"
    );

    let tool = echo("echo").output_schema(json!({ "minimum": "zero" }));
    let error = registry.register_dynamic(tool).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot register `echo`: its output schema is not valid JSON Schema: /minimum: \"zero\" is not of type \"number\""
    );
    assert!(registry.tools().is_empty());
}

#[test]
fn arguments_must_be_an_object() {
    let registry = Registry::new();
    let tool = DynamicTool::new(
        ToolDef::builder_owned("scalar", "Takes a bare string.").build(),
        json!({ "type": "string" }),
        |_args, _exec| async { Ok(json!(null)) },
    );
    let error = registry.register_dynamic(tool).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot register `scalar`: its arguments must be an object with named fields, but their schema is `\"type\": \"string\"`"
    );
}

#[test]
fn the_pool_lists_built_in_tools_then_dynamic_tools_each_sorted_by_name() {
    let registry = Registry::new();
    let _zeta = registry.register_dynamic(echo("zeta")).unwrap();
    let _greet = registry.register::<greet>().unwrap();
    let _alpha = registry.register_dynamic(echo("alpha")).unwrap();
    let _add = registry.register::<add>().unwrap();

    let names: Vec<String> = registry
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(names, ["add", "greet", "alpha", "zeta"]);
    let flags: Vec<bool> = registry.tools().iter().map(|t| t.is_dynamic()).collect();
    assert_eq!(flags, [false, false, true, true]);
}

#[test]
fn exports_are_byte_identical_whatever_the_order_tools_arrive_in() {
    let forward = Registry::new();
    let _f = [
        forward.register::<greet>().unwrap(),
        forward.register::<add>().unwrap(),
        forward.register_dynamic(echo("zeta")).unwrap(),
        forward.register_dynamic(repeat("alpha")).unwrap(),
    ];
    // Refused: a built-in tool has the name.
    assert!(forward.register_dynamic(echo("greet")).is_err());

    let backward = Registry::new();
    // Steps aside when the built-in `greet` arrives.
    let _shadowed = backward.register_dynamic(echo("greet")).unwrap();
    let _b = [
        backward.register_dynamic(repeat("alpha")).unwrap(),
        backward.register_dynamic(echo("zeta")).unwrap(),
        backward.register::<add>().unwrap(),
        backward.register::<greet>().unwrap(),
    ];

    for format in [Format::Anthropic, Format::OpenAi, Format::Mcp] {
        assert_eq!(forward.export_json(format), backward.export_json(format));
    }
    assert_eq!(forward.catalog(), backward.catalog());
}

#[tokio::test]
async fn a_built_in_tool_wins_its_name_and_a_diagnostic_says_so() {
    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    let error = registry.register_dynamic(echo("greet")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot register `greet`: the name `greet` is already taken by `greet`"
    );
    let diagnostics = registry.catalog().diagnostics;
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].severity, Severity::Warning);
    assert_eq!(diagnostics[0].code, TOOL_SHADOWED);
    assert_eq!(diagnostics[0].tool_name.as_deref(), Some("greet"));
    assert_eq!(
        diagnostics[0].message,
        "the dynamic tool `greet` is left out of the pool: the built-in tool `greet` has the same name, and built-in tools win"
    );

    // The other way round: the dynamic tool came first and steps aside.
    let registry = Registry::new();
    let dynamic = registry.register_dynamic(echo("greet")).unwrap();
    let _greet = registry.register::<greet>().unwrap();
    assert!(!registry.get("greet").unwrap().is_dynamic());
    assert_eq!(
        registry
            .call("greet", json!({ "name": "Ada" }))
            .await
            .text(),
        "Hello, Ada!"
    );
    assert_eq!(registry.catalog().diagnostics[0].code, TOOL_SHADOWED);
    // Its handle no longer removes anything.
    assert!(!dynamic.unregister());
    assert!(registry.get("greet").is_some());
}

#[test]
fn among_dynamic_tools_the_first_keeps_the_name() {
    let registry = Registry::new();
    let _first = registry.register_dynamic(echo("echo")).unwrap();
    let error = registry.register_dynamic(repeat("echo")).unwrap_err();
    assert!(matches!(error, RegisterError::Duplicate { .. }));
    assert!(registry.catalog().diagnostics.is_empty());
}

#[test]
fn the_mcp_export_has_no_output_schema_for_a_tool_given_none() {
    let registry = Registry::new();
    let _echo = registry.register_dynamic(echo("echo")).unwrap();
    let _repeat = registry.register_dynamic(repeat("repeat")).unwrap();
    let exported = registry.export(Format::Mcp);
    assert_eq!(exported[0]["name"], "echo");
    assert!(exported[0].get("outputSchema").is_none());
    assert_eq!(exported[1]["outputSchema"], json!({ "type": "string" }));
    assert_eq!(
        exported[1]["annotations"],
        json!({ "readOnlyHint": true, "destructiveHint": false, "idempotentHint": false })
    );
}

/// `echo`, with `meta` as its own `_meta`.
fn echo_with_meta(meta: Value) -> DynamicTool {
    let Value::Object(meta) = meta else {
        panic!("not an object")
    };
    DynamicTool::new(
        dsh_kit::ToolDef::builder_owned("echo", "Echo.")
            .with_meta(meta)
            .build(),
        object_schema(),
        |args, _| async move { Ok(args) },
    )
}

#[test]
fn a_dynamic_tools_own_meta_is_exported_beside_dsh_entries_and_checked() {
    let registry = Registry::new();
    let own = json!({ "com.example/owner": "search-team", "tier": 2, "labels": ["a", "b"] });
    let _echo = registry
        .register_dynamic(echo_with_meta(own.clone()))
        .unwrap();
    let exported = registry.export(Format::Mcp);
    assert_eq!(exported[0]["_meta"], own);

    for (key, problem) in [
        ("io.modelcontextprotocol/ui", "reserved for MCP itself"),
        ("dev.mcp/x", "reserved for MCP itself"),
        ("dsh/version", "dsh-kit's own"),
        ("com.example/", "its name must begin and end"),
        ("com..example/x", "its prefix must be labels"),
    ] {
        let registry = Registry::new();
        let error = registry
            .register_dynamic(echo_with_meta(json!({ "ok": 1, key: true })))
            .unwrap_err();
        assert!(
            matches!(&error, RegisterError::InvalidMeta { tool, .. } if tool == "echo"),
            "{error}"
        );
        let text = error.to_string();
        assert!(
            text.starts_with(&format!(
                "cannot register `echo`: its `_meta` key `{key}` is refused: "
            )) && text.contains(problem),
            "{text}"
        );
    }
    // Text that is not an object, given by hand.
    let registry = Registry::new();
    let tool = DynamicTool::new(
        dsh_kit::ToolDef::builder("echo", "Echo.")
            .meta_json("[1]")
            .build(),
        object_schema(),
        |args, _| async move { Ok(args) },
    );
    let error = registry.register_dynamic(tool).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot register `echo`: its `_meta` is not a JSON object"
    );
}

#[test]
fn unregistering_and_watchers_see_every_change() {
    let registry = Registry::new();
    let mut changes = registry.watch_tools();
    let echo = registry.register_dynamic(echo("echo")).unwrap();
    assert!(changes.has_changed().unwrap());
    changes.mark_unchanged();
    assert!(echo.unregister());
    assert!(changes.has_changed().unwrap());
    assert!(registry.get("echo").is_none());
}
