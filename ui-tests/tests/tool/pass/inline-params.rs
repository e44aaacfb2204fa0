use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Search the notes.
#[tool(read_only)]
async fn search_notes(
    /// What to look for
    query: String,
    /// How many results to return at most
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 100))]
    limit: u32,
    /// The kind of note
    r#type: Option<String>,
    mut tags: Vec<String>,
) -> Vec<String> {
    tags.push(query);
    tags.push(format!("{limit} {type:?}", type = r#type));
    tags
}

fn ten() -> u32 {
    10
}

fn main() {
    // The generated struct is named after the fn.
    let args = SearchNotesArgs {
        query: "rust".into(),
        limit: 5,
        r#type: None,
        tags: vec![],
    };
    let _ = (args.query, args.limit, args.r#type, args.tags);
    let registry = Registry::new();
    let _search_notes = registry.register::<search_notes>().unwrap();
}
