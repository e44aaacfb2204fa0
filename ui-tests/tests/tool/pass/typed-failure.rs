use dsh_kit::prelude::*;

/// How an edit can fail.
#[derive(Debug, Serialize, JsonSchema, thiserror::Error)]
enum EditError {
    #[error("`old` is empty: give the text to replace")]
    EmptyOld,
    #[error("no match for `{0}`")]
    NoMatch(String),
}

/// Replace text.
#[tool]
async fn edit(text: String, old: String) -> Result<String, EditError> {
    if old.is_empty() {
        return Err(EditError::EmptyOld);
    }
    Err(EditError::NoMatch(old + &text))
}

fn main() {
    let schema = <edit as Tool>::failure_schema().expect("a failure schema");
    // One branch per variant: its kind, and what it holds as the data.
    assert_eq!(schema["oneOf"][1]["properties"]["kind"]["const"], "NoMatch");
    assert_eq!(schema["oneOf"][1]["properties"]["data"], json!({ "type": "string" }));
    // The error the fn returns, as the tool fails with it.
    let exec = Exec::new("edit");
    let run = |text: &str, old: &str| {
        let args = EditArgs { text: text.into(), old: old.into() };
        let future = <edit as Tool>::execute(args, &exec);
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
    };
    let error = run("a", "").unwrap_err();
    assert_eq!(error.kind(), Some("EmptyOld"));
    // A unit variant holds nothing.
    assert_eq!(error.data(), None);
    let error = run("a", "b").unwrap_err();
    assert_eq!(error.message(), "no match for `ba`");
    assert_eq!(error.kind(), Some("NoMatch"));
    // The data is what the variant holds, not wrapped in its name again.
    assert_eq!(error.data(), Some(&json!("ba")));
    // An error type without a schema declares no failure shapes.
    assert_eq!(<plain as Tool>::failure_schema(), None);
}

/// Fail plainly.
#[tool]
async fn plain() -> Result<(), std::io::Error> {
    Ok(())
}
