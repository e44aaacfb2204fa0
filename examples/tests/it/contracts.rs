//! The contract hash of each example tool, pinned: a change to any tool's
//! name, description, schemas or annotations changes its hash, and this
//! snapshot says so in review.
//!
//! To review a change, run with `UPDATE_SNAPSHOTS=1`, read the diff of
//! `tests/snapshots/contracts.json`, and commit it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use dsh_kit::Registry;
use dsh_kit::export::Format;
use dsh_kit::export::digest::contract_hash;
use dsh_kit_examples::register_all;
use serde_json::Value;

fn contracts(registry: &Registry) -> BTreeMap<String, String> {
    registry
        .tools()
        .iter()
        .map(|tool| {
            (
                tool.name().to_owned(),
                dsh_kit::export::digest::tool_hash(tool),
            )
        })
        .collect()
}

#[test]
fn contract_hashes_match_the_reviewed_snapshot() {
    let registry = Registry::new();
    register_all(&registry).unwrap();
    let actual = serde_json::to_string_pretty(&contracts(&registry)).unwrap() + "\n";
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/contracts.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}; run with UPDATE_SNAPSHOTS=1", path.display()));
    assert_eq!(
        actual, expected,
        "contract hashes differ from tests/snapshots/contracts.json (run with UPDATE_SNAPSHOTS=1 and review the diff)"
    );
}

#[test]
fn a_contract_hash_is_the_hash_of_the_mcp_export_and_the_catalog_carries_it() {
    let registry = Registry::new();
    register_all(&registry).unwrap();
    let hashes = contracts(&registry);
    let Value::Array(exported) = registry.export(Format::Mcp) else {
        panic!("the MCP export is a list")
    };
    for tool in &exported {
        let name = tool["name"].as_str().unwrap();
        assert_eq!(hashes[name], contract_hash(tool), "{name}");
    }
    for tool in registry.catalog().tools {
        assert_eq!(tool.contract_hash.as_ref(), Some(&hashes[&tool.name]));
    }
}
