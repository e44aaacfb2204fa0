use dsh_kit::prelude::*;

/// Read some lines of a file.
#[tool(
    read_only,
    example(path = "src/lib.rs", limit = 10),
    example(path = "notes \"q\".txt", from = -1, ratio = 0.5, numbered = true),
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
    let examples: Vec<&str> = <read_lines as Tool>::DEFINITION.examples().collect();
    assert_eq!(
        examples,
        [
            r#"{"path":"src/lib.rs","limit":10}"#,
            r#"{"path":"notes \"q\".txt","from":-1,"ratio":0.5,"numbered":true}"#,
            "{}",
        ]
    );
    // Each is checked against the input schema as the tool registers.
    let registry = dsh_kit::Registry::new();
    registry.register::<read_lines>().unwrap();
}
