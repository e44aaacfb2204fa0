use dsh_kit::prelude::*;
use dsh_kit::Registry;
use std::io;

/// Read a file.
#[tool(read_only)]
async fn read_file(path: String) -> io::Result<String> {
    std::fs::read_to_string(path)
}

/// Parse a number, with the error type inferred from a full path.
#[tool]
async fn parse(text: String) -> std::result::Result<i64, std::num::ParseIntError> {
    text.parse()
}

fn main() {
    let registry = Registry::new();
    let _read_file = registry.register::<read_file>().unwrap();
    let _parse = registry.register::<parse>().unwrap();
}
