//! `dsh inspect`: the table and the JSON, over stdio and HTTP.

use serde_json::Value;

use crate::common::{HttpServer, dsh, run, stdio_server};

const EXAMPLE_TOOLS: [&str; 9] = [
    "add_days",
    "bash",
    "edit_file",
    "fetch",
    "greet",
    "grep",
    "lorem",
    "read_file",
    "wait",
];

#[test]
fn the_table_over_stdio_and_the_json_over_http_agree() {
    let mut table = dsh();
    table.arg("inspect").args(stdio_server());
    let table = run(table);
    table.expect_code(0);
    let lines: Vec<&str> = table.stdout.lines().collect();
    assert!(lines[0].ends_with("· 9 tools"), "{}", table.stdout);
    assert_eq!(
        lines[2].split_whitespace().collect::<Vec<_>>(),
        [
            "TOOL",
            "CONTRACT",
            "OpenAI",
            "strict",
            "Anthropic",
            "strict",
            "Gemini"
        ]
    );
    let rows: Vec<&str> = lines[3..12].to_vec();
    let names: Vec<&str> = rows
        .iter()
        .map(|row| row.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, EXAMPLE_TOOLS);
    // `greet` loses nothing anywhere; `bash`'s `minLength` moves into the
    // description in every strict format.
    let greet = rows.iter().find(|row| row.starts_with("greet ")).unwrap();
    assert!(
        greet.ends_with("ok                 ok                 ok"),
        "{greet}"
    );
    let bash = rows.iter().find(|row| row.starts_with("bash ")).unwrap();
    assert!(bash.contains("loses 1"), "{bash}");
    assert!(
        table
            .stdout
            .contains("OpenAI strict: /properties/command: `minLength` is not supported"),
        "{}",
        table.stdout
    );

    let server = HttpServer::start();
    let mut json = dsh();
    json.arg("inspect").arg("--json").args(server.args());
    let json = run(json);
    json.expect_code(0);
    let report: Value = serde_json::from_str(&json.stdout).expect("--json prints JSON");
    let tools = report["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 9);
    let greet = tools.iter().find(|tool| tool["name"] == "greet").unwrap();
    assert_eq!(greet["definition"]["description"], "Greet someone by name.");
    assert_eq!(greet["compatibility"]["openai_strict"]["compatible"], true);
    let bash = tools.iter().find(|tool| tool["name"] == "bash").unwrap();
    assert_eq!(bash["compatibility"]["openai_strict"]["usable"], true);
    assert_eq!(
        bash["compatibility"]["openai_strict"]["notes"][0]["pointer"],
        "/properties/command"
    );
    // The example server's skill, with its two files.
    let skills = report["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 1, "{}", json.stdout);
    assert_eq!(skills[0]["uri"], "skill://edit-safely/SKILL.md");
    assert_eq!(skills[0]["frontmatter"]["name"], "edit-safely");
    let files: Vec<&str> = skills[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "skill://edit-safely/SKILL.md",
            "skill://edit-safely/references/CHECKLIST.md"
        ]
    );
    assert!(
        table
            .stdout
            .contains("\n1 skill\n\nskill://edit-safely/SKILL.md\n  Change a file"),
        "{}",
        table.stdout
    );
    assert!(
        table.stdout.contains("  files 2 files, "),
        "{}",
        table.stdout
    );
    // The same server over either transport has the same contract.
    let hash = greet["contract"].as_str().unwrap();
    assert!(hash.starts_with("sha256:"), "{hash}");
    let short = &hash[..19];
    let greet_row = table
        .stdout
        .lines()
        .find(|l| l.starts_with("greet "))
        .unwrap();
    assert!(greet_row.contains(short), "{greet_row} vs {hash}");
}

#[test]
fn without_a_server_or_with_a_broken_one_it_says_what_to_do() {
    let mut none = dsh();
    none.arg("inspect");
    let none = run(none);
    none.expect_code(2);
    assert!(
        none.stderr
            .contains("no MCP server given: name one with `--url URL`"),
        "{}",
        none.stderr
    );

    let mut not_mcp = dsh();
    not_mcp.args(["inspect", "--stdio", "echo not a server"]);
    let not_mcp = run(not_mcp);
    not_mcp.expect_code(2);
    assert!(
        not_mcp
            .stderr
            .contains("cannot connect to `echo not a server`")
            && not_mcp.stderr.contains("speaks MCP on its standard output"),
        "{}",
        not_mcp.stderr
    );

    let mut nothing_there = dsh();
    nothing_there.args(["inspect", "--url", "http://127.0.0.1:9/mcp"]);
    let nothing_there = run(nothing_there);
    nothing_there.expect_code(2);
    // The cause in a person's words, not the transport's types.
    assert!(
        nothing_there.stderr.contains("check that the server is up")
            && nothing_there.stderr.contains("Connection refused")
            && !nothing_there.stderr.contains("rmcp::"),
        "{}",
        nothing_there.stderr
    );

    let mut not_a_url = dsh();
    not_a_url.args(["inspect", "--url", "127.0.0.1:8931"]);
    let not_a_url = run(not_a_url);
    not_a_url.expect_code(2);
    assert!(
        not_a_url
            .stderr
            .contains("is not an http:// or https:// URL"),
        "{}",
        not_a_url.stderr
    );
}

#[test]
fn the_other_commands_say_what_they_need() {
    let mut dev = dsh();
    dev.arg("dev");
    let dev = run(dev);
    dev.expect_code(2);
    assert!(
        dev.stderr.contains(
            "`dsh dev` needs the command of the server under development: `dsh dev -- cargo run"
        ),
        "{}",
        dev.stderr
    );

    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let mut web = dsh();
    web.args(["web", "--log"]).arg(&missing);
    let web = run(web);
    web.expect_code(2);
    assert_eq!(
        web.stderr,
        format!(
            "error: {} does not exist: give a session log `--record FILE` wrote, or record one with `dsh web --record FILE`\n",
            missing.display()
        )
    );
}
