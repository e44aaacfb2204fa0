use dsh_kit::prelude::*;

/// Search, taking whatever else the model sends.
#[tool(version = "1.2.0", allow_unknown_args)]
async fn search(query: String) -> String {
    query
}

fn main() {
    assert_eq!(<search as Tool>::DEFINITION.version(), Some("1.2.0"));
    assert!(<search as Tool>::DEFINITION.allow_unknown_args());
}
