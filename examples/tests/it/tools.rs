//! The example tools through the registry: content, values, cards and failures.

use dsh_kit::Registry;
use dsh_kit::permission::Rule;
use dsh_kit_examples::register_all;
use serde_json::{Value, json};

fn registry() -> Registry {
    // `edit_file` is destructive, so it asks by default; these tests allow it.
    let registry = Registry::builder().rule(Rule::allow("edit_file")).build();
    register_all(&registry).unwrap();
    registry
}

#[tokio::test]
async fn read_file_numbers_lines_and_presents_a_read_card() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "one\ntwo\nthree\n").unwrap();
    let path = path.display().to_string();

    let result = registry()
        .call("cat", json!({ "path": path, "offset": 2, "limit": 1 }))
        .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.text(), "     2\ttwo\n");
    assert_eq!(
        result.value.as_ref().unwrap(),
        &json!({ "path": path, "start_line": 2, "end_line": 2, "total_lines": 3, "content": "two\n" })
    );
    assert_eq!(
        serde_json::to_value(result.card().unwrap()).unwrap(),
        json!({ "card": "read", "path": path, "start_line": 2, "end_line": 2, "content": "two\n" })
    );
}

#[tokio::test]
async fn read_file_refuses_a_zero_offset_and_a_missing_file() {
    let registry = registry();
    let result = registry
        .call("read_file", json!({ "path": "/x", "offset": 0 }))
        .await;
    assert_eq!(
        result.text(),
        "invalid arguments for `read_file`: /offset: 0 is less than the minimum of 1"
    );
    let result = registry
        .call("read_file", json!({ "path": "/no/such/file.txt" }))
        .await;
    assert_eq!(
        result.text(),
        "`read_file` failed: cannot read /no/such/file.txt: No such file or directory (os error 2)"
    );
}

/// The file tools within a root: relative paths start there, every
/// spelling reaches the tool resolved, and a path out of it never runs.
#[tokio::test]
async fn the_file_tools_resolve_paths_within_the_registry_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("project");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("notes.txt"), "one\ntwo\n").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "secret\n").unwrap();
    let registry = Registry::builder()
        .path_root(&root)
        .rule(Rule::allow("edit_file"))
        .build();
    register_all(&registry).unwrap();

    let result = registry
        .call("read_file", json!({ "path": "src/../notes.txt" }))
        .await;
    assert_eq!(
        result.value.as_ref().unwrap()["path"],
        json!(root.join("notes.txt"))
    );
    let result = registry
        .call(
            "edit_file",
            json!({ "path": "./notes.txt", "old": "two", "new": "2" }),
        )
        .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "one\n2\n"
    );
    let result = registry
        .call("grep", json!({ "pattern": "2", "path": "src/.." }))
        .await;
    assert_eq!(result.value.as_ref().unwrap()["root"], json!(root));

    for (tool, args) in [
        ("read_file", json!({ "path": "../secret.txt" })),
        (
            "edit_file",
            json!({ "path": "src/../../secret.txt", "old": "secret", "new": "x" }),
        ),
        ("grep", json!({ "pattern": "secret", "path": ".." })),
        ("bash", json!({ "command": "cat secret.txt", "cwd": ".." })),
    ] {
        let result = registry.call(tool, args).await;
        assert!(
            result.text().contains("outside the allowed roots"),
            "{tool}: {}",
            result.text()
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("secret.txt")).unwrap(),
        "secret\n"
    );
}

#[tokio::test]
async fn add_days_does_calendar_arithmetic() {
    let registry = registry();
    let result = registry
        .call("add_days", json!({ "date": "2024-02-27", "days": 3 }))
        .await;
    assert_eq!(
        result.value,
        Some(json!({ "date": "2024-03-01", "weekday": "Fri" }))
    );

    let result = registry
        .call("add_days", json!({ "date": "2024-02-27", "days": 100000 }))
        .await;
    assert_eq!(
        result.text(),
        "invalid arguments for `add_days`: /days: 100000 is greater than the maximum of 36500"
    );

    let result = registry
        .call("add_days", json!({ "date": "27/02/2024", "days": 1 }))
        .await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        r#"invalid arguments for `add_days`: /date: "27/02/2024" is not a "date""#
    );
}

#[tokio::test]
async fn edit_file_reports_each_failure_shape() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("main.rs");
    std::fs::write(&path, "fn main() {\n    x();\n    x();\n}\n").unwrap();
    let path = path.display().to_string();
    let registry = registry();

    let call = |old: &str, new: &str| {
        registry.call("edit_file", json!({ "path": path, "old": old, "new": new }))
    };
    assert_eq!(
        call("", "y").await.text(),
        "`edit_file` failed: invalid input: `old` is empty: give the text to replace"
    );
    assert_eq!(
        call("nope", "y").await.text(),
        format!(
            "`edit_file` failed: no match for the text to replace in {path}: read the file again and copy the text exactly"
        )
    );
    assert_eq!(
        call("x();", "y();").await.text(),
        format!(
            "`edit_file` failed: the text to replace occurs 2 times in {path}: add surrounding lines to make it unique, or set `replace_all`"
        )
    );
    let missing = dir.path().join("missing.rs").display().to_string();
    let result = registry
        .call(
            "edit_file",
            json!({ "path": missing, "old": "a", "new": "b" }),
        )
        .await;
    assert!(
        result.text().starts_with(&format!(
            "`edit_file` failed: cannot edit {missing}: No such file"
        )),
        "{}",
        result.text()
    );

    let result = call("fn main", "fn start").await;
    assert!(!result.is_error(), "{}", result.text());
    let card = serde_json::to_value(result.card().unwrap()).unwrap();
    assert_eq!(card["card"], "diff");
    assert_eq!(card["hunks"][0]["lines"][0], Value::from("-fn main() {"));
    assert_eq!(card["hunks"][0]["lines"][1], Value::from("+fn start() {"));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "fn start() {\n    x();\n    x();\n}\n"
    );
}
