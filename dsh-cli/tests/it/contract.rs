//! One contract hash per tool, wherever it is read: the Rust API on the
//! example server's own registry, the `_meta["dsh/contract"]` the server
//! lists, `dsh inspect --json`, and `dsh lock`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use dsh_kit::Registry;
use dsh_kit::export::digest::{contract_hash, tool_hash};
use dsh_kit::wire_keys::{META_CONTRACT, VALUES_EXTENSION};
use serde_json::{Value, json};

use crate::common::{dsh, example_server, run, stdio_server};

/// The example server's `tools/list`, asked over stdio as any MCP client
/// asks it: `initialize`, `notifications/initialized`, `tools/list`; with
/// `extensions` declared in the client's capabilities.
fn listed_tools(extensions: Value) -> Vec<Value> {
    let mut server = Command::new(example_server())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start the example server");
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    for message in [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": { "extensions": extensions },
            "clientInfo": { "name": "contract-test", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {} }),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    stdin.flush().unwrap();
    let mut line = String::new();
    let tools = loop {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the server ended before it listed its tools"
        );
        let answer: Value = serde_json::from_str(&line).unwrap();
        if answer["id"] == 2 {
            break answer["result"]["tools"].as_array().unwrap().clone();
        }
    };
    drop(stdin);
    let _ = server.kill();
    let _ = server.wait();
    tools
}

#[test]
fn the_rust_api_the_servers_meta_inspect_and_lock_agree_on_every_tool() {
    let registry = Registry::new();
    dsh_kit_examples::register_all(&registry).unwrap();
    let rust: BTreeMap<String, String> = registry
        .tools()
        .iter()
        .map(|tool| (tool.name().to_owned(), tool_hash(tool)))
        .collect();
    assert_eq!(rust.len(), 9);

    // A dsh client is listed every definition whole, and computes from it
    // the hash the server lists; only an output schema that is no object
    // is never listed before MCP 2026-07-28, which allows it.
    let mut dsh_client = serde_json::Map::new();
    dsh_client.insert(VALUES_EXTENSION.to_owned(), json!({}));
    let listed = listed_tools(Value::Object(dsh_client));
    let mut meta = BTreeMap::new();
    let mut recomputed = 0;
    for tool in &listed {
        let name = tool["name"].as_str().unwrap().to_owned();
        let hash = tool["_meta"][META_CONTRACT].as_str().unwrap().to_owned();
        let output = registry.get(&name).unwrap().output_schema().clone();
        if output.get("type") == Some(&json!("object")) || output == json!(true) {
            assert_eq!(contract_hash(tool), hash, "{name}");
            recomputed += 1;
        }
        meta.insert(name, hash);
    }
    assert!(
        recomputed >= 4,
        "only {recomputed} definitions listed whole"
    );
    assert_eq!(meta, rust, "the server's `_meta` and the Rust API");
    // A host is listed no `outputSchema` for a tool whose results carry
    // only its render, and the same hash: the contract is the tool's.
    let hosts = listed_tools(json!({}));
    let mut without_output = 0;
    for tool in &hosts {
        let name = tool["name"].as_str().unwrap();
        assert_eq!(
            tool["_meta"][META_CONTRACT].as_str(),
            Some(rust[name].as_str()),
            "{name}"
        );
        without_output += usize::from(tool.get("outputSchema").is_none());
    }
    assert!(
        without_output > 0,
        "a rendering tool lists no outputSchema to a host"
    );

    let mut inspect = dsh();
    inspect.args(["inspect", "--json"]).args(stdio_server());
    let inspect = run(inspect);
    inspect.expect_code(0);
    let report: Value = serde_json::from_str(&inspect.stdout).unwrap();
    let inspected: BTreeMap<String, String> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap().to_owned(),
                tool["contract"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(inspected, rust, "`dsh inspect` and the Rust API");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dsh.lock");
    let mut lock = dsh();
    lock.arg("lock")
        .arg("--file")
        .arg(&file)
        .args(stdio_server());
    run(lock).expect_code(0);
    let lock: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let locked: BTreeMap<String, String> = lock["tools"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, tool)| {
            // The definition a lock keeps is the contract its hash is of.
            let hash = tool["contract"].as_str().unwrap().to_owned();
            assert_eq!(contract_hash(&tool["definition"]), hash, "{name}");
            (name.clone(), hash)
        })
        .collect();
    assert_eq!(locked, rust, "`dsh lock` and the Rust API");

    // `edit_file`'s declared failures are part of its contract, in the lock too.
    assert!(
        lock["tools"]["edit_file"]["definition"]["_meta"]["dsh/failureSchema"].is_object(),
        "{}",
        lock["tools"]["edit_file"]
    );
}
