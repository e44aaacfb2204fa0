use dsh_kit::prelude::*;

/// Search the notes.
#[tool(read_only)]
async fn search_notes(
    /// What to look for
    query: String,
) -> Vec<String> {
    vec![query]
}

fn main() {
    // The generated struct is `SearchNotesArgs`, named after the fn.
    let _args = SearchNoteArgs {
        query: "rust".into(),
    };
}
