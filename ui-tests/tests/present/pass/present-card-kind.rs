use dsh_kit::card::{SearchCard, TerminalCard};
use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Search the notes.
#[tool(present = found, present_call = searching)]
async fn search_notes(query: String) -> Vec<String> {
    vec![query]
}

#[present]
fn searching(args: &SearchNotesArgs) -> TerminalCard {
    TerminalCard::new(format!("search {}", args.query))
}

#[present]
fn found(args: &SearchNotesArgs, value: &Vec<String>) -> SearchCard {
    let _ = value;
    SearchCard::new(args.query.clone(), Vec::new())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _search = registry.register::<search_notes>().unwrap();
    let result = registry.call("search_notes", json!({ "query": "a" })).await;
    assert_eq!(result.card().map(|card| card.kind()), Some("search"));
}
