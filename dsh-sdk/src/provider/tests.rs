//! Unit tests of the helpers the provider formats share.

use super::*;

#[test]
fn base64_lengths_count_padding() {
    assert_eq!(base64_len("aGk="), 2);
    assert_eq!(base64_len("aGkh"), 3);
    assert_eq!(base64_len("aA=="), 1);
    assert_eq!(base64_len(""), 0);
}

#[test]
fn audio_and_embedded_resources_reach_a_provider_as_text() {
    assert_eq!(
        describe_block(&ContentBlock::audio("AAAA", "audio/wav"), TEXT_ONLY).unwrap(),
        "[audio/wav audio, 3 bytes, not shown: tool results carry text and images only]"
    );
    assert_eq!(
        describe_block(
            &ContentBlock::embedded_text("file:///a.txt", "text/plain", "A"),
            TEXT_ONLY
        )
        .unwrap(),
        "[resource file:///a.txt]\nA"
    );
    let blob = ContentBlock::Resource {
        resource: EmbeddedResource::Blob {
            uri: "file:///a.png".into(),
            mime_type: Some("image/png".into()),
            blob: "aGk=".into(),
        },
    };
    assert_eq!(
        describe_block(&blob, "why").unwrap(),
        "[resource file:///a.png, image/png, 2 bytes, not shown: why]"
    );
}

#[test]
fn call_fields_are_read_under_the_formats_keys() {
    let call = serde_json::json!({"call_id": "c1", "name": "t", "arguments": "{}", "id": 7});
    let fields = CallFields::read(&call, "call_id", "arguments");
    assert_eq!(fields.id.as_deref(), Some("c1"));
    assert_eq!(fields.name.as_deref(), Some("t"));
    assert_eq!(fields.arguments, Some(Value::String("{}".into())));

    let null = CallFields::read(
        &serde_json::json!({"name": "t", "input": null}),
        "id",
        "input",
    );
    assert_eq!((null.id, null.arguments), (None, None));

    for wrong in [
        serde_json::json!({"id": 1, "name": "t", "input": {}}),
        serde_json::json!({"id": "a", "name": ["t"], "input": {}}),
        serde_json::json!("t"),
    ] {
        let fields = CallFields::read(&wrong, "id", "input");
        assert_eq!(
            (fields.id, fields.name, fields.arguments),
            (None, None, None),
            "{wrong}"
        );
    }
}

#[test]
fn a_list_left_out_or_null_reads_as_empty() {
    #[derive(serde::Deserialize)]
    struct Body {
        items: List<u8>,
    }
    let read = |body: Value| {
        from_value::<Body>(WireFormat::ChatCompletions, &body).map(|body| body.items.0)
    };
    assert_eq!(read(serde_json::json!({})).unwrap(), Vec::<u8>::new());
    assert_eq!(
        read(serde_json::json!({"items": null})).unwrap(),
        Vec::<u8>::new()
    );
    assert_eq!(
        read(serde_json::json!({"items": [1, 2]})).unwrap(),
        vec![1, 2]
    );
    assert!(read(serde_json::json!({"items": "no"})).is_err());
}

#[test]
fn arguments_are_read_strictly() {
    assert_eq!(args_from_text("t", " "), Ok(serde_json::json!({})));
    assert!(matches!(
        args_from_text("t", "{\"a\": "),
        Err(CallError::ArgumentsNotJson { .. })
    ));
    assert_eq!(
        args_from_text("t", "\"{\\\"a\\\": 1}\""),
        Err(CallError::StringEncoded { name: "t".into() })
    );
    assert_eq!(
        args_from_text("t", "[1]"),
        Err(CallError::NotAnObject {
            name: "t".into(),
            found: "an array"
        })
    );
    assert_eq!(
        args_from_value("t", Value::String("plain".into())),
        Err(CallError::NotAnObject {
            name: "t".into(),
            found: "a string"
        })
    );
}

#[test]
fn each_wire_format_is_named_as_serde_writes_it() {
    for format in [
        WireFormat::ChatCompletions,
        WireFormat::Responses,
        WireFormat::AnthropicMessages,
        WireFormat::GeminiGenerateContent,
    ] {
        assert_eq!(
            serde_json::to_value(format).unwrap(),
            Value::String(format.to_string()),
            "{format:?}"
        );
    }
}
