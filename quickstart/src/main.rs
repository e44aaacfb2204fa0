//! README.md's quick start, as it is there: `cargo run -p dsh-kit-quickstart`.

use dsh_kit::Registry;
use dsh_kit::anyhow::{self, Context};
use dsh_kit::export::Format;
use dsh_kit::prelude::*;

#[derive(ToolArgs)]
struct WordCountArgs {
    /// The text whose words to count
    text: String,
}

#[derive(ToolOutput)]
struct WordCount {
    words: usize,
}

/// Count the words of a text.
#[tool(read_only, concurrency_safe)]
async fn word_count(args: WordCountArgs) -> WordCount {
    WordCount {
        words: args.text.split_whitespace().count(),
    }
}

/// Read a UTF-8 text file.
#[tool(read_only)]
async fn read_text(
    /// The file's path
    path: String,
) -> anyhow::Result<String> {
    std::fs::read_to_string(&path).with_context(|| format!("cannot read `{path}`"))
}

#[tokio::main]
async fn main() {
    let registry = Registry::new();
    registry.register::<word_count>().unwrap(); // kept until `.unregister()`
    registry.register::<read_text>().unwrap();

    println!("{}", registry.export_json(Format::Anthropic)); // what the model sees

    let ok = registry
        .call("word_count", json!({ "text": "one two three" }))
        .await;
    assert_eq!(ok.text(), r#"{"words":3}"#);

    let bad = registry
        .call("read_text", json!({ "path": "/no/such/file" }))
        .await;
    assert!(bad.is_error() && bad.text().contains("cannot read `/no/such/file`"));
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_quick_start_runs() {
        super::main();
    }

    #[test]
    fn the_readme_shows_this_code() {
        let code = include_str!("main.rs");
        let shown = code
            .split_once("\n\n")
            .and_then(|(_, rest)| rest.split_once("\n#[cfg(test)]"))
            .map(|(shown, _)| shown)
            .expect("a doc line, the quick start, then the tests");
        let readme = include_str!("../../README.md");
        assert!(
            readme.contains(&format!("```rust\n{shown}```")),
            "README.md's quick start differs from quickstart/src/main.rs"
        );
    }
}
