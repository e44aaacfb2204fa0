use dsh_kit::prelude::*;

/// Read some lines of a file.
#[tool(
    read_only,
    example(path = "src/lib.rs", limit = 10),
    example(path = "notes \"q\".txt", from = -1, ratio = 0.5, numbered = true),
    example(limit = 7u32, from = -3i64, ratio = 1.5f64),
    example(),
)]
async fn read_lines(
    path: Option<String>,
    limit: Option<u32>,
    from: Option<i64>,
    ratio: Option<f64>,
    numbered: Option<bool>,
) -> String {
    format!("{path:?}{limit:?}{from:?}{ratio:?}{numbered:?}")
}

fn main() {
    let definition = <read_lines as Tool>::DEFINITION;
    let examples: Vec<&str> = definition.examples().collect();
    assert_eq!(
        examples,
        [
            r#"{"path":"src/lib.rs","limit":10}"#,
            r#"{"path":"notes \"q\".txt","from":-1,"ratio":0.5,"numbered":true}"#,
            r#"{"limit":7,"from":-3,"ratio":1.5}"#,
            "{}",
        ]
    );
    // Each is checked against the input schema as the tool registers.
    let registry = dsh_kit::Registry::new();
    registry.register::<read_lines>().unwrap();
}
