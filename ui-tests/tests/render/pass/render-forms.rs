//! Renders that are pure though they look otherwise: lifetimes, a
//! compile-time constant of `std::env`, a module of the crate's own named
//! `fs`, a `static` of plain data, and a `BTreeMap`.

use dsh_kit::prelude::*;
use dsh_kit::Registry;
use std::collections::BTreeMap;

mod fs {
    /// Formats a size; no file system in sight.
    pub fn size(bytes: usize) -> String {
        format!("{bytes} B")
    }
}

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Read a file.
#[tool(render = read_text, present = read_card)]
async fn read_file(args: ReadArgs) -> String {
    args.path
}

#[render]
fn read_text<'a>(args: &'a ReadArgs, value: &'a String) -> Vec<ContentBlock> {
    static UNITS: [&str; 2] = ["B", "KiB"];
    let mut counts = BTreeMap::new();
    for ch in value.chars() {
        *counts.entry(ch).or_insert(0) += 1;
    }
    let os = std::env::consts::OS;
    vec![ContentBlock::text(format!(
        "{} {} {os} {} {counts:?}",
        args.path,
        fs::size(value.len()),
        UNITS[0]
    ))]
}

#[present]
fn read_card<'a>(args: &'a ReadArgs, value: &'a String) -> Card {
    Card::Read(dsh_kit::card::ReadCard::new(args.path.clone(), value.clone()))
}

fn main() {
    let registry = Registry::new();
    let _read = registry.register::<read_file>().unwrap();
}
