//! Path arguments as the file system sees them: every spelling of a path
//! (dot segments, doubled slashes, a trailing slash, symbolic links, NUL,
//! over-long, not UTF-8) is refused or decided on its resolved form, and
//! the tool opens exactly the path that was decided, through no link
//! swapped in after the check.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use dsh_kit::event::{Event, Verdict};
use dsh_kit::log::{Log, SessionLog};
use dsh_kit::path::{PathError, Roots};
use dsh_kit::permission::{Approval, ApprovalRequest, CallInfo, Decision, FnApprover, Rule};
use dsh_kit::prelude::*;
use dsh_kit::{DynamicTool, Registry, RegistryBuilder, ToolPath, ToolResult};
use serde_json::Value;

/// What the tools were handed, in order.
#[derive(Default)]
struct Seen(Mutex<Vec<PathBuf>>);

impl Seen {
    fn record(&self, path: &Path) {
        self.0.lock().unwrap().push(path.to_path_buf());
    }
}

/// Delete a file.
#[tool(destructive)]
async fn delete_file(
    /// The file
    path: ToolPath,
    exec: &Exec,
) -> Result<String, ToolError> {
    exec.state::<Seen>()?.record(&path);
    path.remove_file()?;
    Ok(format!("deleted {path}"))
}

/// Read a text file.
#[tool(read_only)]
async fn read_file(
    /// The file
    path: ToolPath,
    exec: &Exec,
) -> Result<String, ToolError> {
    exec.state::<Seen>()?.record(&path);
    Ok(path.read_to_string()?)
}

/// A directory laid out for the tests, every path in it canonical:
///
/// ```text
/// root/notes.txt           "notes"
/// root/etc/hostname        "inside"
/// root/tmp/a.txt           "a"
/// root/sub/deep/key.pem    "key"
/// root/escape      -> outside/        (a link out of the root)
/// root/escape_file -> outside/secret.txt
/// root/to_etc      -> root/etc        (a link that stays inside)
/// outside/secret.txt       "secret"
/// ```
struct Sandbox {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("root");
        let outside = base.join("outside");
        for sub in ["etc", "tmp", "sub/deep"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("notes.txt"), "notes").unwrap();
        std::fs::write(root.join("etc/hostname"), "inside").unwrap();
        std::fs::write(root.join("tmp/a.txt"), "a").unwrap();
        std::fs::write(root.join("sub/deep/key.pem"), "key").unwrap();
        std::fs::write(outside.join("secret.txt"), "secret").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            symlink(&outside, root.join("escape")).unwrap();
            symlink(outside.join("secret.txt"), root.join("escape_file")).unwrap();
            symlink(root.join("etc"), root.join("to_etc")).unwrap();
        }
        Sandbox {
            _dir: dir,
            root,
            outside,
        }
    }

    fn at(&self, relative: &str) -> String {
        format!("{}/{relative}", self.root.display())
    }

    /// A registry over the sandbox, with the two tools and `configure`'s
    /// settings, and what its tools were handed.
    fn registry(&self, configure: impl FnOnce(RegistryBuilder) -> RegistryBuilder) -> Registry {
        let registry = configure(Registry::builder().state(Seen::default())).build();
        registry.register::<delete_file>().unwrap().keep();
        registry.register::<read_file>().unwrap().keep();
        registry
    }
}

/// What the tools of `registry` were handed.
fn seen(registry: &Registry) -> Vec<PathBuf> {
    registry
        .state()
        .get::<Seen>()
        .unwrap()
        .0
        .lock()
        .unwrap()
        .clone()
}

async fn call(registry: &Registry, tool: &str, path: &str) -> ToolResult {
    registry.call(tool, json!({ "path": path })).await
}

#[tokio::test]
async fn a_deny_rule_on_a_prefix_catches_every_spelling_of_a_path_under_it() {
    let sandbox = Sandbox::new();
    let etc = sandbox.at("etc");
    // No root: paths are resolved but not confined, as with a host that
    // only writes rules.
    let registry = sandbox.registry(|builder| {
        builder.rule(Rule::allow("delete_file")).rule(
            Rule::deny("delete_file")
                .when("path", &format!("{etc}/*"))
                .unwrap(),
        )
    });
    let log_dir = tempfile::tempdir().unwrap();
    let log_path = log_dir.path().join("session.jsonl");
    let log = SessionLog::open(&log_path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    let spellings = [
        sandbox.at("tmp/../etc/hostname"),
        format!("{}//etc//hostname", sandbox.root.display()),
        sandbox.at("./etc/./hostname"),
        sandbox.at("tmp/../../root/etc/hostname"),
        #[cfg(unix)]
        sandbox.at("to_etc/hostname"),
    ];
    for spelling in &spellings {
        let result = call(&registry, "delete_file", spelling).await;
        assert!(result.is_error(), "{spelling} was not refused");
        assert_eq!(
            result.text(),
            format!("`delete_file` cannot run: denied by rule `deny delete_file(path: {etc}/*)`"),
            "{spelling}"
        );
    }
    assert!(seen(&registry).is_empty(), "the tool never ran");
    assert!(Path::new(&etc).join("hostname").exists());

    // A file beside it is allowed, and the tool is handed its resolved path.
    let beside = sandbox.at("etc/../tmp/./a.txt");
    let result = call(&registry, "delete_file", &beside).await;
    assert!(!result.is_error(), "{}", result.text());
    let a = sandbox.root.join("tmp/a.txt");
    assert_eq!(seen(&registry), std::slice::from_ref(&a));
    assert!(!a.exists());

    // The log keeps each request as it was spelt, and the decision on the
    // path it resolves to.
    drop(logging);
    drop(log);
    let calls = Log::read(&log_path).unwrap().calls();
    assert_eq!(calls.len(), spellings.len() + 1);
    let hostname = format!("{etc}/hostname");
    let a = a.display().to_string();
    let expected = (spellings
        .iter()
        .map(|spelling| (spelling, &hostname, Verdict::Refused)))
    .chain([(&beside, &a, Verdict::Allowed)]);
    for (call, (spelling, resolved, verdict)) in calls.iter().zip(expected) {
        let request = call.request.as_ref().unwrap();
        assert_eq!(request.input, json!({ "path": spelling }));
        let decided = call.decided.as_ref().unwrap();
        assert_eq!(decided.verdict, verdict, "{spelling}");
        assert_eq!(*decided.args, json!({ "path": resolved }), "{spelling}");
    }
}

#[tokio::test]
async fn a_path_that_leaves_the_root_is_refused_naming_the_argument_and_both_forms() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(|builder| builder.path_root(&sandbox.root));
    let secret = sandbox.outside.join("secret.txt");
    let mut escapes = vec![
        ("../outside/secret.txt", secret.clone()),
        ("sub/../../outside/secret.txt", secret.clone()),
        (
            "tmp/../../../../../..//etc/hostname",
            PathBuf::from("/etc/hostname"),
        ),
    ];
    let absolute = secret.display().to_string();
    escapes.push((&absolute, secret.clone()));
    if cfg!(unix) {
        escapes.push(("escape/secret.txt", secret.clone()));
        escapes.push(("escape_file", secret.clone()));
        escapes.push(("escape/new.txt", sandbox.outside.join("new.txt")));
    }
    for (given, resolved) in escapes {
        let result = call(&registry, "read_file", given).await;
        assert!(result.is_error(), "{given} was not refused");
        assert_eq!(
            result.text(),
            format!(
                "invalid arguments for `read_file`: /path: `{given}` resolves to `{}`, outside the allowed roots (`{}`)",
                resolved.display(),
                sandbox.root.display()
            )
        );
    }
    assert!(seen(&registry).is_empty(), "the tool never ran");

    // Inside the root, every spelling reaches the tool resolved.
    for given in [
        "notes.txt",
        "./notes.txt",
        "sub/../notes.txt",
        "sub//deep/../../notes.txt",
        &sandbox.at("tmp/../notes.txt"),
    ] {
        let result = call(&registry, "read_file", given).await;
        assert_eq!(
            result.value,
            Some(json!("notes")),
            "{given}: {}",
            result.text()
        );
    }
    assert_eq!(seen(&registry), vec![sandbox.root.join("notes.txt"); 5]);
}

#[tokio::test]
async fn a_trailing_slash_is_dropped_on_a_directory_and_refused_on_a_file() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(|builder| builder.path_root(&sandbox.root));
    let result = call(&registry, "read_file", "notes.txt/").await;
    assert_eq!(
        result.text(),
        format!(
            "invalid arguments for `read_file`: /path: `notes.txt/` ends in `/` but `{}` is not a directory",
            sandbox.root.join("notes.txt").display()
        )
    );
    // A directory: the tool is handed it without the slash (and cannot
    // read it as text).
    let result = call(&registry, "read_file", "sub/deep/").await;
    assert!(result.is_error());
    assert_eq!(seen(&registry), [sandbox.root.join("sub/deep")]);
}

#[tokio::test]
async fn nul_bytes_and_over_long_paths_are_refused_before_the_file_system_is_asked() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(|builder| builder.path_root(&sandbox.root));
    let result = call(&registry, "read_file", "notes.txt\0../../outside").await;
    assert_eq!(
        result.text(),
        "invalid arguments for `read_file`: /path: \"notes.txt\\0../../outside\" holds a NUL byte, which no file name can"
    );
    let long = "a/".repeat(3000);
    let result = call(&registry, "read_file", &long).await;
    let text = result.text();
    assert!(
        text.starts_with("invalid arguments for `read_file`: /path: `a/a/")
            && text.ends_with("…` is 6000 bytes long; a path may be at most 4096"),
        "{text}"
    );
    let result = call(&registry, "read_file", "").await;
    assert_eq!(
        result.text(),
        "invalid arguments for `read_file`: /path: an empty path names no file"
    );
    assert!(seen(&registry).is_empty());
}

#[test]
fn a_lone_surrogate_never_becomes_a_json_string() {
    // Bytes that are not UTF-8 can only reach JSON as escapes of lone
    // surrogates; serde_json refuses them, so no argument ever holds one.
    let error = serde_json::from_str::<Value>(r#"{"path": "\udc80"}"#).unwrap_err();
    assert!(error.to_string().contains("surrogate"), "{error}");
    assert!(serde_json::from_slice::<Value>(b"{\"path\": \"\xff\"}").is_err());
}

#[cfg(unix)]
#[tokio::test]
async fn a_path_the_file_system_names_in_bytes_that_are_not_utf8_is_refused() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let sandbox = Sandbox::new();
    let odd = sandbox.root.join(OsStr::from_bytes(b"caf\xe9"));
    std::fs::create_dir(&odd).unwrap();
    std::os::unix::fs::symlink(&odd, sandbox.root.join("cafe")).unwrap();
    let registry = sandbox.registry(|builder| builder.path_root(&sandbox.root));
    let result = call(&registry, "read_file", "cafe/menu.txt").await;
    assert_eq!(
        result.text(),
        format!(
            "invalid arguments for `read_file`: /path: `cafe/menu.txt` resolves to `{}`, whose name is not UTF-8",
            odd.join("menu.txt").display()
        )
    );
    assert!(seen(&registry).is_empty());
}

#[cfg(unix)]
#[tokio::test]
async fn a_link_that_points_nowhere_is_refused_rather_than_created_through() {
    let sandbox = Sandbox::new();
    let planted = sandbox.root.join("planted");
    std::os::unix::fs::symlink(sandbox.outside.join("created.txt"), &planted).unwrap();
    let registry = sandbox.registry(|builder| builder.path_root(&sandbox.root));
    let result = call(&registry, "read_file", "planted").await;
    assert_eq!(
        result.text(),
        format!(
            "invalid arguments for `read_file`: /path: `planted` passes through the symbolic link `{}`, which points nowhere (or into a loop), so where it leads cannot be checked",
            planted.display()
        )
    );
}

#[tokio::test]
async fn gates_the_approver_the_events_and_the_tool_all_see_the_resolved_path() {
    let sandbox = Sandbox::new();
    let gate_saw = Arc::new(Mutex::new(Vec::<Value>::new()));
    let approver_saw = Arc::new(Mutex::new(Vec::<Value>::new()));
    let tmp = format!("{}/", sandbox.at("tmp"));
    let registry = {
        let gate_saw = Arc::clone(&gate_saw);
        let approver_saw = Arc::clone(&approver_saw);
        let root = sandbox.root.clone();
        sandbox.registry(move |builder| {
            builder
                .path_root(&root)
                .gate(move |call: &CallInfo<'_>| {
                    gate_saw.lock().unwrap().push(call.args["path"].clone());
                    Decision::Allow
                })
                // A prefix check, as an approver would write one.
                .approver(FnApprover(move |request: &ApprovalRequest<'_>| {
                    approver_saw
                        .lock()
                        .unwrap()
                        .push(request.args["path"].clone());
                    let path = request.args["path"].as_str().unwrap_or_default();
                    if path.starts_with(&tmp) {
                        Approval::Approve
                    } else {
                        Approval::Reject {
                            reason: format!("{path} is not under {tmp}"),
                        }
                    }
                }))
        })
    };
    let executed = Arc::new(Mutex::new(Vec::<Value>::new()));
    let requested = Arc::new(Mutex::new(Vec::<Value>::new()));
    let decided = Arc::new(Mutex::new(Vec::<(Value, Verdict)>::new()));
    let _subscription = {
        let (executed, requested) = (Arc::clone(&executed), Arc::clone(&requested));
        let decided = Arc::clone(&decided);
        registry.subscribe(move |event| match event {
            Event::Executed { args, .. } => executed.lock().unwrap().push((**args).clone()),
            Event::Request { input, .. } => requested.lock().unwrap().push((**input).clone()),
            Event::Decided { args, verdict, .. } => {
                decided.lock().unwrap().push(((**args).clone(), *verdict))
            }
            _ => {}
        })
    };

    // `tmp/../etc/hostname` starts with the approved prefix as written;
    // resolved, it does not.
    let hostname = sandbox.at("etc/hostname");
    let result = call(&registry, "delete_file", "tmp/../etc/hostname").await;
    assert_eq!(
        result.text(),
        format!(
            "`delete_file` was rejected: {hostname} is not under {}/",
            sandbox.at("tmp")
        )
    );
    assert!(Path::new(&hostname).exists());

    let a = sandbox.at("tmp/a.txt");
    let result = call(&registry, "delete_file", "tmp/./sub/../a.txt").await;
    assert!(!result.is_error(), "{}", result.text());
    assert!(!Path::new(&a).exists());

    assert_eq!(*gate_saw.lock().unwrap(), [json!(hostname), json!(a)]);
    assert_eq!(*approver_saw.lock().unwrap(), [json!(hostname), json!(a)]);
    assert_eq!(seen(&registry), [PathBuf::from(&a)]);
    assert_eq!(*executed.lock().unwrap(), [json!({ "path": a })]);
    // The decision is recorded on the resolved path, the refusal included.
    assert_eq!(
        *decided.lock().unwrap(),
        [
            (json!({ "path": hostname }), Verdict::Refused),
            (json!({ "path": a }), Verdict::Approved)
        ]
    );
    // The request is recorded as the model sent it, before anything reads it.
    assert_eq!(
        *requested.lock().unwrap(),
        [
            json!({ "path": "tmp/../etc/hostname" }),
            json!({ "path": "tmp/./sub/../a.txt" })
        ]
    );
}

#[tokio::test]
async fn arguments_the_approver_substitutes_are_resolved_and_confined_again() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(|builder| {
        builder
            .path_root(&sandbox.root)
            .approver(FnApprover(|_: &ApprovalRequest<'_>| {
                Approval::ApproveWith(json!({ "path": "tmp/../../outside/secret.txt" }))
            }))
    });
    let result = call(&registry, "delete_file", "tmp/a.txt").await;
    assert!(result.is_error());
    assert!(
        result.text().contains(&format!(
            "`tmp/../../outside/secret.txt` resolves to `{}`, outside the allowed roots",
            sandbox.outside.join("secret.txt").display()
        )),
        "{}",
        result.text()
    );
    assert!(sandbox.outside.join("secret.txt").exists());
    assert!(seen(&registry).is_empty());
}

#[tokio::test]
async fn path_globs_are_relative_to_the_root_and_cover_what_a_directory_holds() {
    let sandbox = Sandbox::new();
    let registry = sandbox.registry(|builder| {
        builder
            .path_root(&sandbox.root)
            .rule(
                Rule::allow("delete_file")
                    .when_path("path", "tmp/")
                    .unwrap(),
            )
            .rule(Rule::deny("delete_file").when_path("path", "etc").unwrap())
            .rule(Rule::deny("read_file").when_path("path", "*.pem").unwrap())
            .rule(
                Rule::deny("read_file")
                    .when_path("path", "sub/*.txt")
                    .unwrap(),
            )
    });
    // `etc` covers what it holds, however it is reached.
    for given in ["etc/hostname", "tmp/../etc/hostname", "to_etc/hostname"] {
        if given.starts_with("to_") && !cfg!(unix) {
            continue;
        }
        let result = call(&registry, "delete_file", given).await;
        assert_eq!(
            result.text(),
            "`delete_file` cannot run: denied by rule `deny delete_file(path in etc)`",
            "{given}"
        );
    }
    // A name without `/` matches at any depth.
    let result = call(&registry, "read_file", "sub/deep/./key.pem").await;
    assert_eq!(
        result.text(),
        "`read_file` cannot run: denied by rule `deny read_file(path in *.pem)`"
    );
    // `*` stops at `/`: `sub/*.txt` is not `sub/deep/x.txt`.
    std::fs::write(sandbox.root.join("sub/deep/x.txt"), "x").unwrap();
    let result = call(&registry, "read_file", "sub/deep/x.txt").await;
    assert_eq!(result.value, Some(json!("x")), "{}", result.text());
    // The allow rule waives the destructive tool's ask inside `tmp` only,
    // and `tmp/..` is not inside it.
    let result = call(&registry, "delete_file", "tmp/a.txt").await;
    assert!(!result.is_error(), "{}", result.text());
    let result = call(&registry, "delete_file", "tmp/../notes.txt").await;
    assert_eq!(
        result.text(),
        "`delete_file` was denied: `delete_file` may destroy data, and no approver is set up to allow it; to let it run, give the registry an approver (`Registry::builder().approver(…)`), or allow it with a rule (`Rule::allow(\"delete_file\")`) where no rule asks for it"
    );
    assert!(sandbox.root.join("notes.txt").exists());
    assert_eq!(
        seen(&registry),
        [
            sandbox.root.join("sub/deep/x.txt"),
            sandbox.root.join("tmp/a.txt")
        ]
    );
}

#[tokio::test]
async fn a_dynamic_tool_declares_paths_with_format_path_at_any_depth() {
    let sandbox = Sandbox::new();
    let registry = Registry::builder().path_root(&sandbox.root).build();
    let received = Arc::new(Mutex::new(Vec::<Value>::new()));
    let tool = {
        let received = Arc::clone(&received);
        DynamicTool::new(
            dsh_kit::ToolDef::builder_owned("stat_all".to_owned(), "Stat files.".to_owned())
                .build(),
            json!({
                "type": "object",
                "properties": {
                    "paths": { "type": "array", "items": { "type": "string", "format": "path" } },
                    "label": { "type": "string" }
                }
            }),
            move |args, _| {
                received.lock().unwrap().push(args.clone());
                async move { Ok(Value::Null) }
            },
        )
    };
    registry.register_dynamic(tool).unwrap().keep();
    let result = registry
        .call(
            "stat_all",
            json!({ "paths": ["./notes.txt", "tmp//a.txt"], "label": "../x" }),
        )
        .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        *received.lock().unwrap(),
        [json!({
            "paths": [sandbox.at("notes.txt"), sandbox.at("tmp/a.txt")],
            "label": "../x"
        })]
    );
    let result = registry
        .call("stat_all", json!({ "paths": ["notes.txt", "../outside"] }))
        .await;
    assert!(
        result
            .text()
            .starts_with("invalid arguments for `stat_all`: /paths/1: `../outside` resolves to"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn a_tool_path_parameter_says_it_is_a_path_in_its_schema() {
    let registry = Registry::new();
    registry.register::<read_file>().unwrap().keep();
    let info = registry.get("read_file").unwrap();
    assert_eq!(
        info.input_schema()["properties"]["path"],
        json!({ "type": "string", "format": "path", "description": "The file" })
    );
}

/// MCP's `inputSchema` keeps `"format": "path"`, so a client (a dsh proxy
/// among them) knows which arguments are paths; a model provider's schema,
/// which takes only the standard's formats, does not get it.
#[tokio::test]
async fn the_mcp_input_schema_says_a_path_is_a_path_and_model_formats_do_not() {
    use dsh_kit::export::{Format, export_tool};

    let registry = Registry::new();
    registry.register::<read_file>().unwrap().keep();
    let info = registry.get("read_file").unwrap();
    let mcp = export_tool(&info, Format::Mcp);
    assert_eq!(
        mcp["inputSchema"]["properties"]["path"],
        json!({ "type": "string", "format": "path", "description": "The file" })
    );
    let anthropic = export_tool(&info, Format::Anthropic);
    assert_eq!(
        anthropic["input_schema"]["properties"]["path"],
        json!({ "type": "string", "description": "The file" })
    );
    let openai = export_tool(&info, Format::OpenAi);
    assert_eq!(
        openai["function"]["parameters"]["properties"]["path"],
        json!({ "type": "string", "description": "The file" })
    );
}

#[test]
fn roots_resolve_outside_a_registry_too() {
    let sandbox = Sandbox::new();
    let roots = Roots::new().with(&sandbox.root);
    assert_eq!(
        roots.resolve("a/./b//c/").unwrap(),
        sandbox.root.join("a/b/c")
    );
    assert!(matches!(
        roots.resolve("../outside/secret.txt"),
        Err(PathError::OutsideRoots { .. })
    ));
    // A second root: paths may lead into either, relative ones start at the first.
    let roots = roots.with(&sandbox.outside);
    assert_eq!(
        roots.resolve("../outside/secret.txt").unwrap(),
        sandbox.outside.join("secret.txt")
    );
}

/// Time of check to time of use: a gate runs after the path is resolved and
/// before the tool opens it, so a gate that swaps a link in stands for an
/// attacker racing the call. The tool refuses the link instead of following
/// it, while a plain `std::fs` open of the same path would reach the file
/// outside.
#[cfg(unix)]
#[tokio::test]
async fn a_link_swapped_in_between_the_check_and_the_open_is_not_followed() {
    use std::os::unix::fs::symlink;

    let sandbox = Sandbox::new();
    std::fs::write(sandbox.root.join("sub/secret.txt"), "decoy").unwrap();
    std::fs::write(sandbox.root.join("tmp/secret.txt"), "decoy").unwrap();
    let (root, outside) = (sandbox.root.clone(), sandbox.outside.clone());
    let registry = sandbox.registry(move |builder| {
        builder
            .path_root(&root)
            .rule(Rule::allow("delete_file"))
            .gate(move |call: &CallInfo<'_>| {
                let path = call.args["path"].as_str().unwrap_or_default();
                // What the path names becomes a link out of the root: a
                // directory on the way, or the file itself.
                let (swapped, target) = if path.ends_with("/sub/secret.txt") {
                    ("sub", outside.clone())
                } else if path.ends_with("/tmp/secret.txt") {
                    ("tmp", outside.clone())
                } else {
                    ("notes.txt", outside.join("secret.txt"))
                };
                std::fs::rename(root.join(swapped), root.join(format!("{swapped}.old"))).unwrap();
                symlink(target, root.join(swapped)).unwrap();
                Decision::Allow
            })
    });
    let refusal = |tool: &str, decided: &Path, link: &str| {
        format!(
            "`{tool}` failed: `{}`: `{link}` is a symbolic link, which was not there when the path was checked; not followed",
            decided.display()
        )
    };

    for (tool, given, link) in [
        ("read_file", "sub/secret.txt", "sub"),
        ("read_file", "notes.txt", "notes.txt"),
        ("delete_file", "tmp/secret.txt", "tmp"),
    ] {
        let decided = sandbox.root.join(given);
        let result = call(&registry, tool, given).await;
        assert_eq!(seen(&registry).last(), Some(&decided));
        // The swap happened: following links, the decided path is the secret.
        assert_eq!(std::fs::read_to_string(&decided).unwrap(), "secret");
        assert_eq!(
            result.text(),
            refusal(tool, &decided, link),
            "{tool} {given}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(sandbox.outside.join("secret.txt")).unwrap(),
        "secret"
    );
}

/// A listing of the sandbox's root: each entry as the directory holds it,
/// the links inside and out of the root listed as links, not followed.
#[cfg(unix)]
#[test]
fn a_directory_lists_its_entries_and_reports_links_as_links() {
    use dsh_kit::path::EntryKind;

    let sandbox = Sandbox::new();
    let entries = ToolPath::new(&sandbox.root).list_dir(100).unwrap();
    let listed: Vec<(&str, EntryKind)> = entries
        .iter()
        .map(|entry| (entry.name.to_str().unwrap(), entry.kind))
        .collect();
    assert_eq!(
        listed,
        [
            ("escape", EntryKind::Symlink),
            ("escape_file", EntryKind::Symlink),
            ("etc", EntryKind::Dir),
            ("notes.txt", EntryKind::File),
            ("sub", EntryKind::Dir),
            ("tmp", EntryKind::Dir),
            ("to_etc", EntryKind::Symlink),
        ]
    );
    let deep = ToolPath::new(sandbox.root.join("sub/deep"))
        .list_dir(100)
        .unwrap();
    assert_eq!(deep.len(), 1);
    assert_eq!(deep[0].name, "key.pem");
    assert_eq!(deep[0].kind, EntryKind::File);
}

/// A link out of the root, as the directory listed or as a directory on the
/// way to it, is refused and named, where `std::fs::read_dir` goes outside.
#[cfg(unix)]
#[test]
fn a_listing_through_a_link_out_of_the_root_is_refused() {
    let sandbox = Sandbox::new();
    std::fs::create_dir(sandbox.outside.join("inner")).unwrap();
    std::fs::write(sandbox.outside.join("inner/more.txt"), "more").unwrap();
    // Followed, the link lists what is outside.
    assert_eq!(
        std::fs::read_dir(sandbox.root.join("escape"))
            .unwrap()
            .count(),
        2
    );

    for (path, link) in [
        ("escape", "escape"),
        ("escape/inner", "escape"),
        ("to_etc", "to_etc"),
    ] {
        let path = sandbox.root.join(path);
        let error = ToolPath::new(&path).list_dir(100).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput, "{error}");
        assert_eq!(
            error.to_string(),
            format!(
                "`{}`: `{link}` is a symbolic link, which was not there when the path was checked; not followed",
                path.display()
            )
        );
    }
    // A file is not a directory to list.
    let error = ToolPath::new(sandbox.root.join("notes.txt"))
        .list_dir(100)
        .unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::NotADirectory, "{error}");
}

/// A directory with more entries than the listing takes is an error saying
/// so, carrying the directory and the bound, not a truncated list.
#[test]
fn a_listing_is_bounded_and_says_when_a_directory_holds_more() {
    use dsh_kit::path::TooManyEntries;

    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    for i in 0..300 {
        std::fs::write(base.join(format!("f{i:03}")), "").unwrap();
    }
    let path = ToolPath::new(&base);
    let all = path.list_dir(300).unwrap();
    assert_eq!(all.len(), 300);
    assert_eq!(all[0].name, "f000");
    assert_eq!(all[299].name, "f299");

    let error = path.list_dir(299).unwrap_err();
    let too_many = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<TooManyEntries>())
        .expect("the error is TooManyEntries");
    assert_eq!(
        (too_many.path.as_path(), too_many.max),
        (base.as_path(), 299)
    );
    assert_eq!(
        error.to_string(),
        format!(
            "`{}` holds more than 299 entries, the most one listing takes: list a directory further down",
            base.display()
        )
    );
    assert!(path.list_dir(0).is_err());
}
