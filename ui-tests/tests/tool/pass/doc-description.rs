use dsh_kit::prelude::*;

/// Read a file from disk.
///
/// Returns its contents as text.
#[doc = " Fails if the file is not UTF-8."]
#[tool]
async fn read_file(path: String) -> String {
    path
}

/// A tool whose fn name is a keyword.
#[tool]
async fn r#type(text: String) -> String {
    text
}

fn main() {
    let def = <read_file as Tool>::DEFINITION;
    assert_eq!(
        def.description(),
        "Read a file from disk.\n\nReturns its contents as text.\nFails if the file is not UTF-8."
    );
    assert_eq!(<r#type as Tool>::DEFINITION.name(), "type");
    let _ = TypeArgs { text: String::new() };
}
