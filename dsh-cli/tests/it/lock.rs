//! `dsh lock`: a lock file written over stdio and checked over HTTP; a
//! drifted contract fails the check, saying what changed.

use serde_json::Value;

use crate::common::{HttpServer, dsh, run, stdio_server};

#[test]
fn a_lock_written_over_stdio_checks_over_http_and_catches_drift() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dsh.lock");
    let mut write = dsh();
    write
        .arg("lock")
        .arg("--file")
        .arg(&file)
        .args(stdio_server());
    let write = run(write);
    write.expect_code(0);
    assert!(
        write.stderr.contains("wrote the contracts of 9 tools"),
        "{}",
        write.stderr
    );
    let lock: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(lock["dsh_lock"], 1);
    assert_eq!(lock["tools"].as_object().unwrap().len(), 9);
    assert_eq!(
        lock["tools"]["greet"]["definition"]["description"],
        "Greet someone by name."
    );

    let server = HttpServer::start();
    let check = || {
        let mut check = dsh();
        check
            .args(["lock", "--check", "--file"])
            .arg(&file)
            .args(server.args());
        run(check)
    };
    let same = check();
    same.expect_code(0);
    assert!(same.stdout.contains("9 tools match"), "{}", same.stdout);

    // The lock a project committed had another greet (a different
    // description and input), a tool since removed, and lacked `wait`.
    let mut old = lock.clone();
    let greet = &mut old["tools"]["greet"];
    greet["contract"] = Value::from("sha256:0000");
    greet["definition"]["description"] = Value::from("Greet someone.");
    greet["definition"]["inputSchema"]["properties"]["name"]["type"] = Value::from("integer");
    // And another read_file output, and add_days said to write.
    let read_file = &mut old["tools"]["read_file"];
    read_file["contract"] = Value::from("sha256:1111");
    read_file["definition"]["outputSchema"]["properties"]["content"]["type"] =
        Value::from("integer");
    let add_days = &mut old["tools"]["add_days"];
    add_days["contract"] = Value::from("sha256:2222");
    add_days["definition"]["annotations"]["readOnlyHint"] = Value::from(false);
    let tools = old["tools"].as_object_mut().unwrap();
    let wait = tools.remove("wait").unwrap();
    tools.insert("farewell".to_owned(), wait);
    std::fs::write(&file, serde_json::to_string_pretty(&old).unwrap()).unwrap();
    let drift = check();
    drift.expect_code(1);
    let text = &drift.stdout;
    assert!(
        text.contains("removed farewell: the server no longer has it"),
        "{text}"
    );
    assert!(
        text.contains("changed greet: sha256:0000 → sha256:"),
        "{text}"
    );
    assert!(
        text.contains("  description: / \"Greet someone.\" → \"Greet someone by name.\""),
        "{text}"
    );
    assert!(
        text.contains("  input: /properties/name/type \"integer\" → \"string\""),
        "{text}"
    );
    assert!(
        text.contains("  output: /properties/content/type \"integer\" → \"string\""),
        "{text}"
    );
    assert!(
        text.contains("  annotations: /readOnlyHint false → true"),
        "{text}"
    );
    assert!(text.contains("added wait: not in the lock file"), "{text}");
    assert!(
        text.contains("write the lock again with `dsh lock`"),
        "{text}"
    );

    let mut missing = dsh();
    missing
        .args(["lock", "--check", "--file"])
        .arg(dir.path().join("none.lock"))
        .args(server.args());
    let missing = run(missing);
    missing.expect_code(2);
    assert!(
        missing.stderr.contains("write it with `dsh lock`"),
        "{}",
        missing.stderr
    );
}
