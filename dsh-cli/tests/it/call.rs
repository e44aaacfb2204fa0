//! `dsh call`: one call printed as a person reads it, its exit status, and
//! its arguments.

use serde_json::{Value, json};

use crate::common::{HttpServer, dsh, run, stdio_server};

#[test]
fn a_call_over_stdio_prints_the_content_and_the_card() {
    let mut call = dsh();
    call.args(["call", "greet", r#"{"name":"Ada"}"#])
        .args(stdio_server());
    let call = run(call);
    call.expect_code(0);
    assert_eq!(
        call.stdout,
        "greet · success\ncontent\n  Hello, Ada!\ncard\n  ╭─ generic · greet\n  │ input\n  │ {\n  │   \"name\": \"Ada\"\n  │ }\n  │ output\n  │ \"Hello, Ada!\"\n  ╰─\n"
    );
}

#[test]
fn a_tool_error_exits_with_1_and_shows_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.txt");
    let mut call = dsh();
    call.args(["call", "read_file", "--arg"])
        .arg(format!("path={}", missing.display()))
        .args(stdio_server());
    let call = run(call);
    call.expect_code(1);
    assert!(
        call.stdout.starts_with("read_file · error\n"),
        "{}",
        call.stdout
    );
    assert!(
        call.stdout.contains("No such file or directory"),
        "{}",
        call.stdout
    );
}

/// A typed failure: its message once, then its kind and data, read from
/// the failure the server sent with the result.
#[test]
fn a_typed_failure_shows_its_message_once_then_its_kind_and_data() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().canonicalize().unwrap().join("notes.txt");
    std::fs::write(&notes, "one\n").unwrap();
    let mut call = dsh();
    call.args(["call", "edit_file", "-a"])
        .arg(format!("path={}", notes.display()))
        .args(["-a", "old=two", "-a", "new=three"])
        .args(stdio_server())
        .args(["--allow", "edit_file"]);
    let call = run(call);
    call.expect_code(1);
    let path = notes.display().to_string();
    assert_eq!(
        call.stdout,
        format!(
            "edit_file · error\ncontent\n  `edit_file` failed: no match for the text to replace in {path}: read the file again and copy the text exactly\nfailure\n  kind NoMatchesFound\n  data {{\n         \"path\": {}\n       }}\n",
            Value::from(path.clone())
        )
    );

    let mut json = dsh();
    json.args(["call", "edit_file", "--json", "-a"])
        .arg(format!("path={}", notes.display()))
        .args(["-a", "old=two", "-a", "new=three"])
        .args(stdio_server())
        .args(["--allow", "edit_file"]);
    let json = run(json);
    json.expect_code(1);
    let result: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        result["failure"],
        json!({ "cause": "tool", "kind": "NoMatchesFound", "data": { "path": path } })
    );
}

#[test]
fn a_call_over_http_with_args_and_json_output() {
    let server = HttpServer::start();
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "one\ntwo\nthree\n").unwrap();
    let mut call = dsh();
    call.args(["call", "read_file", "--json", "-a"])
        .arg(format!("path={}", notes.display()))
        .args(["-a", "offset=2", "-a", "limit=1"])
        .args(server.args())
        .args(["--bearer", "a-token-the-server-ignores"]);
    let call = run(call);
    call.expect_code(0);
    let result: Value = serde_json::from_str(&call.stdout).expect("--json prints JSON");
    assert_eq!(result["status"], "success");
    assert_eq!(result["value"]["content"], "two\n");
    assert_eq!(result["value"]["start_line"], 2);
    // The card the server presented, not the generic one.
    assert_eq!(
        result["card"],
        json!({
            "card": "read",
            "path": notes.display().to_string(),
            "start_line": 2,
            "end_line": 2,
            "content": "two\n",
        })
    );
}

#[test]
fn a_tool_that_presents_a_card_has_it_drawn_over_stdio_and_http() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "one\ntwo\nthree\n").unwrap();
    let http = HttpServer::start();
    for server in [stdio_server(), http.args()] {
        let mut call = dsh();
        call.args(["call", "read_file", "-a"])
            .arg(format!("path={}", notes.display()))
            .args(["-a", "offset=2"])
            .args(&server);
        let call = run(call);
        call.expect_code(0);
        let card = format!(
            "card\n  ╭─ read {} · lines 2–3\n  │ 2 │ two\n  │ 3 │ three\n  ╰─\n",
            notes.display()
        );
        assert!(
            call.stdout.starts_with("read_file · success\n") && call.stdout.ends_with(&card),
            "{server:?}:\n{}",
            call.stdout
        );
        assert!(!call.stdout.contains("generic"), "{}", call.stdout);
        // A card that came whole is no warning.
        assert!(!call.stderr.contains("warning:"), "{}", call.stderr);
    }
}

#[test]
fn a_wrong_tool_or_wrong_arguments_say_what_to_do() {
    let mut typo = dsh();
    typo.args(["call", "gret"]).args(stdio_server());
    let typo = run(typo);
    typo.expect_code(2);
    assert!(
        typo.stderr
            .contains("has no tool `gret`; did you mean `greet`?"),
        "{}",
        typo.stderr
    );

    let mut not_an_object = dsh();
    not_an_object
        .args(["call", "greet", "[1, 2]"])
        .args(stdio_server());
    let not_an_object = run(not_an_object);
    not_an_object.expect_code(2);
    assert!(
        not_an_object
            .stderr
            .contains("ARGS_JSON must be a JSON object"),
        "{}",
        not_an_object.stderr
    );

    // Arguments the tool's schema refuses are the tool call's error, not dsh's.
    let mut invalid = dsh();
    invalid
        .args(["call", "greet", "-a", "name=42"])
        .args(stdio_server());
    let invalid = run(invalid);
    invalid.expect_code(1);
    assert!(
        invalid.stdout.contains("greet · error"),
        "{}",
        invalid.stdout
    );
}

#[test]
fn the_bearer_token_goes_in_the_authorization_header() {
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;

    // A server that wants a token and gets none it likes: it records the
    // header of the first request and answers 401.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut authorization = None;
        let mut line = String::new();
        while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("authorization:") {
                authorization = Some(value.trim().to_owned());
            }
            line.clear();
        }
        let mut stream = stream;
        let _ = stream.write_all(
            b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        authorization
    });
    let mut call = dsh();
    call.args(["call", "greet", "--url", &url, "--bearer", "s3cret-token"]);
    let call = run(call);
    call.expect_code(2);
    assert!(call.stderr.contains("cannot connect to"), "{}", call.stderr);
    assert_eq!(seen.join().unwrap().as_deref(), Some("bearer s3cret-token"));
}

#[test]
fn colours_only_on_a_terminal_or_when_forced() {
    let args = ["call", "greet", r#"{"name":"Ada"}"#];
    // Standard output is a pipe here: no escape codes.
    let mut piped = dsh();
    piped.env_remove("NO_COLOR").args(args).args(stdio_server());
    let piped = run(piped);
    piped.expect_code(0);
    assert!(!piped.stdout.contains('\u{1b}'), "{:?}", piped.stdout);
    assert!(!piped.stderr.contains('\u{1b}'), "{:?}", piped.stderr);

    let mut forced = dsh();
    forced
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .args(args)
        .args(stdio_server());
    let forced = run(forced);
    forced.expect_code(0);
    assert!(forced.stdout.contains('\u{1b}'), "{:?}", forced.stdout);
}
