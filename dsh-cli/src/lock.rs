//! `dsh lock`: the contract of every tool in a lock file a project commits,
//! and `--check` to fail a CI job when a definition drifts from it.
//!
//! The file is JSON: a format version and, per tool, its contract hash and
//! the contract itself ([`contract`] of the MCP definition), so a check can
//! say what changed, not only that something did:
//!
//! ```json
//! { "dsh_lock": 1, "tools": { "greet": { "contract": "sha256:…", "definition": { … } } } }
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use dsh_kit::Registry;
use dsh_kit::export::digest::{contract, contract_hash};
use dsh_kit::export::{Format, export_tool};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::CliError;
use crate::server::ServerArgs;
use crate::ui::{Paint, note, out, paint};
use crate::{Done, Outcome};

/// The lock file's format version.
const VERSION: u32 = 1;

/// The largest lock file read.
const MAX_LOCK_BYTES: u64 = 16 * 1024 * 1024;

/// How many differing places are named per part of a definition.
const MAX_PLACES: usize = 8;

/// The parts of a definition a check tells apart, with the MCP key of each.
/// The failure schema is the one part in `_meta`, the only key of the
/// contract's `_meta`.
const PARTS: [(&str, &str); 6] = [
    ("title", "title"),
    ("description", "description"),
    ("input", "inputSchema"),
    ("output", "outputSchema"),
    ("annotations", "annotations"),
    ("failures", "_meta"),
];

/// `dsh lock`.
#[derive(Args, Debug)]
pub struct LockArgs {
    /// Compare the server's tools with the lock file instead of writing it;
    /// exit with 1, saying what changed, when they differ.
    #[arg(long)]
    check: bool,

    /// The lock file.
    #[arg(long, value_name = "FILE", default_value = "dsh.lock")]
    file: PathBuf,

    #[command(flatten)]
    server: ServerArgs,
}

/// The lock file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LockFile {
    dsh_lock: u32,
    tools: BTreeMap<String, Locked>,
}

/// One tool's contract.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Locked {
    contract: String,
    definition: Value,
}

pub async fn run(args: LockArgs) -> Done {
    let server = args.server.required()?;
    let registry = Registry::new();
    let _proxy = server.connect(&registry).await?;
    let live = snapshot(&registry);
    if !args.check {
        write(&args.file, &live)?;
        note(format_args!(
            "wrote the contracts of {} tools to {}; commit it, and run `dsh lock --check` in CI",
            live.tools.len(),
            args.file.display()
        ));
        return Ok(Outcome::Ok);
    }
    let locked = read(&args.file)?;
    let drift = compare(&locked, &live);
    if drift.is_empty() {
        out(&format!(
            "{} {} tools match {}\n",
            paint(Paint::Green, "✓"),
            live.tools.len(),
            args.file.display()
        ));
        return Ok(Outcome::Ok);
    }
    out(&drift);
    out(&format!(
        "\n{} If the change is meant, write the lock again with `dsh lock` and commit it.\n",
        paint(
            Paint::Red,
            format!("The tools differ from {}.", args.file.display())
        )
    ));
    Ok(Outcome::Failed)
}

/// The contracts of every tool of `registry`.
fn snapshot(registry: &Registry) -> LockFile {
    let tools = registry
        .tools()
        .iter()
        .map(|tool| {
            // The definition the hash is of: the tool's contract, nothing else.
            let definition = contract(&export_tool(tool, Format::Mcp));
            (
                tool.name().to_owned(),
                Locked {
                    contract: contract_hash(&definition),
                    definition,
                },
            )
        })
        .collect();
    LockFile {
        dsh_lock: VERSION,
        tools,
    }
}

fn write(path: &Path, lock: &LockFile) -> Result<(), CliError> {
    let mut text = serde_json::to_string_pretty(lock).map_err(|error| CliError::BadLock {
        path: path.to_owned(),
        reason: error.to_string(),
    })?;
    text.push('\n');
    std::fs::write(path, text).map_err(|source| CliError::File {
        action: "write",
        path: path.to_owned(),
        source,
    })
}

fn read(path: &Path) -> Result<LockFile, CliError> {
    let file = |action, source| CliError::File {
        action,
        path: path.to_owned(),
        source,
    };
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(CliError::NoLock {
                path: path.to_owned(),
            });
        }
        Err(error) => return Err(file("read", error)),
    };
    if metadata.len() > MAX_LOCK_BYTES {
        return Err(CliError::BadLock {
            path: path.to_owned(),
            reason: format!(
                "{} bytes, more than the {MAX_LOCK_BYTES} read",
                metadata.len()
            ),
        });
    }
    let text = std::fs::read_to_string(path).map_err(|error| file("read", error))?;
    let lock: LockFile = serde_json::from_str(&text).map_err(|error| CliError::BadLock {
        path: path.to_owned(),
        reason: error.to_string(),
    })?;
    if lock.dsh_lock != VERSION {
        return Err(CliError::BadLock {
            path: path.to_owned(),
            reason: format!("format {}, where this dsh reads {VERSION}", lock.dsh_lock),
        });
    }
    Ok(lock)
}

/// What differs between the `locked` contracts and the `live` ones, for a
/// person; empty when nothing does.
fn compare(locked: &LockFile, live: &LockFile) -> String {
    let mut text = String::new();
    for (name, was) in &locked.tools {
        let Some(now) = live.tools.get(name) else {
            let _ = writeln!(
                text,
                "{} {name}: the server no longer has it",
                paint(Paint::Red, "removed")
            );
            continue;
        };
        if was.contract == now.contract {
            continue;
        }
        let _ = writeln!(
            text,
            "{} {name}: {} → {}",
            paint(Paint::Yellow, "changed"),
            was.contract,
            now.contract
        );
        for (part, key) in PARTS {
            let before = was.definition.get(key).unwrap_or(&Value::Null);
            let after = now.definition.get(key).unwrap_or(&Value::Null);
            if before == after {
                continue;
            }
            let mut places = Vec::new();
            differences("", before, after, &mut places);
            let shown: Vec<&str> = places.iter().take(MAX_PLACES).map(String::as_str).collect();
            let more = places.len().saturating_sub(MAX_PLACES);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let _ = writeln!(text, "  {part}: {}{more}", shown.join(", "));
        }
    }
    for name in live
        .tools
        .keys()
        .filter(|name| !locked.tools.contains_key(*name))
    {
        let _ = writeln!(
            text,
            "{} {name}: not in the lock file",
            paint(Paint::Green, "added")
        );
    }
    text
}

/// The places where `before` and `after` differ, as JSON pointers with
/// what happened there (`/properties/name added`), each pushed to `places`.
fn differences(pointer: &str, before: &Value, after: &Value, places: &mut Vec<String>) {
    if places.len() > MAX_PLACES {
        return;
    }
    let at = if pointer.is_empty() { "/" } else { pointer };
    match (before, after) {
        (Value::Object(was), Value::Object(now)) => {
            for (key, value) in was {
                let here = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                match now.get(key) {
                    Some(next) if next == value => {}
                    Some(next) => differences(&here, value, next, places),
                    None => places.push(format!("{here} removed")),
                }
            }
            for key in now.keys().filter(|key| !was.contains_key(*key)) {
                places.push(format!(
                    "{pointer}/{} added",
                    key.replace('~', "~0").replace('/', "~1")
                ));
            }
        }
        (Value::Null, _) => places.push(format!("{at} added")),
        (_, Value::Null) => places.push(format!("{at} removed")),
        (Value::String(was), Value::String(now)) => {
            places.push(format!("{at} {:?} → {:?}", shorten(was), shorten(now)));
        }
        _ => places.push(format!(
            "{at} {} → {}",
            shorten(&before.to_string()),
            shorten(&after.to_string())
        )),
    }
}

/// At most 60 characters of `text`.
fn shorten(text: &str) -> String {
    let mut chars = text.chars();
    let short: String = chars.by_ref().take(60).collect();
    if chars.next().is_some() {
        format!("{short}…")
    } else {
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lock(definition: Value) -> LockFile {
        let mut tools = BTreeMap::new();
        tools.insert(
            "greet".to_owned(),
            Locked {
                contract: dsh_kit::export::digest::contract_hash(&definition),
                definition,
            },
        );
        LockFile {
            dsh_lock: VERSION,
            tools,
        }
    }

    #[test]
    fn a_check_names_each_part_that_changed_and_where() {
        let was = lock(json!({
            "name": "greet", "description": "Greet someone.",
            "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
            "annotations": {"readOnlyHint": true}
        }));
        let now = lock(json!({
            "name": "greet", "description": "Greet someone warmly.",
            "inputSchema": {"type": "object", "properties": {"name": {"type": "integer"}, "loud": {"type": "boolean"}}},
            "annotations": {"readOnlyHint": false}
        }));
        let text = anstream::adapter::strip_str(&compare(&was, &now)).to_string();
        assert!(text.contains("changed greet"), "{text}");
        assert!(
            text.contains("description: / \"Greet someone.\" → \"Greet someone warmly.\""),
            "{text}"
        );
        assert!(
            text.contains(
                "input: /properties/name/type \"string\" → \"integer\", /properties/loud added"
            ),
            "{text}"
        );
        assert!(
            text.contains("annotations: /readOnlyHint true → false"),
            "{text}"
        );
        assert!(!text.contains("output:"), "{text}");
    }

    #[test]
    fn a_check_of_the_same_contracts_finds_nothing() {
        let same = lock(json!({"name": "greet", "description": "Hi."}));
        assert_eq!(compare(&same, &same.clone()), "");
    }

    #[test]
    fn a_lock_file_of_another_format_is_refused_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dsh.lock");
        std::fs::write(&path, r#"{"dsh_lock": 9, "tools": {}}"#).unwrap();
        let error = read(&path).unwrap_err().to_string();
        assert!(
            error.contains("format 9") && error.contains("`dsh lock`"),
            "{error}"
        );
        std::fs::write(&path, "{").unwrap();
        assert!(
            read(&path)
                .unwrap_err()
                .to_string()
                .contains("not a dsh lock file")
        );
        let missing = dir.path().join("none.lock");
        assert!(
            read(&missing)
                .unwrap_err()
                .to_string()
                .contains("write it with `dsh lock`")
        );
    }
}
