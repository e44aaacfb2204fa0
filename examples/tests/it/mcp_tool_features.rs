//! What MCP 2026-07-28 lets a tool's definition and body ask of the client,
//! through the official MCP Python SDK (`tool_features_client.py`) over
//! streamable HTTP on 127.0.0.1: arguments mirrored into `Mcp-Param-*`
//! headers (`#[dsh(header = "…")]`), checked against the body, and URL-mode
//! elicitation, accepted and declined, in both eras.

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::client::Elicited;
use dsh_kit::mcp::McpServer;
use dsh_kit::prelude::*;
use serde_json::Value;

use crate::common::{python, run};

/// Where `calendar` sends its user.
const SIGN_IN: &str = "https://calendar.example.com/connect?state=8f2a";

/// Look an order up in one region's store.
#[tool(read_only)]
async fn find_order(
    /// The region the order was placed in
    #[dsh(header = "Region")]
    region: String,
    /// The tenant, when the caller has several
    #[dsh(header = "Tenant")]
    tenant: Option<u32>,
    /// The order number
    order: u32,
) -> String {
    format!("order {order} in {region} for tenant {tenant:?}")
}

/// Sign the user in to Example Calendar.
#[tool(read_only)]
async fn calendar(exec: &Exec) -> Result<String, ToolError> {
    Ok(
        match exec
            .elicit_url(SIGN_IN, "Sign in to Example Calendar")
            .await?
        {
            Elicited::Accepted(id) => {
                exec.elicitation_complete(&id).await;
                format!("signed in ({id})")
            }
            Elicited::Declined => "declined".to_owned(),
            Elicited::Cancelled => "cancelled".to_owned(),
        },
    )
}

/// Runs the script against a server of the two tools; what it saw.
async fn drive(legacy: bool) -> Value {
    let registry = Registry::new();
    registry.register::<find_order>().unwrap().keep();
    registry.register::<calendar>().unwrap().keep();
    let server = McpServer::new(registry)
        .serve_http(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tool_features_client.py");
    let mut command = Command::new(python());
    command.arg(&script).args(["--url", &server.url()]);
    if legacy {
        command.arg("--legacy");
    }
    let ran = tokio::task::spawn_blocking(move || run(command, Duration::from_secs(120)))
        .await
        .unwrap();
    assert!(ran.success, "tool_features_client.py failed:\n{}", ran.text);
    server.shutdown().await.unwrap();
    let last = ran.text.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|_| panic!("no JSON at the end:\n{}", ran.text))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_mirrors_header_arguments_and_the_server_refuses_a_header_that_lies() {
    let seen = drive(false).await;
    assert_eq!(seen["protocol"], "2026-07-28", "{seen}");
    // The client keeps the tool (it drops one whose annotations break the rules).
    let schema = &seen["tools"]["find_order"];
    assert_eq!(
        schema["properties"]["region"]["x-mcp-header"], "Region",
        "{seen}"
    );
    assert_eq!(schema["properties"]["tenant"]["x-mcp-header"], "Tenant");
    assert_eq!(schema["properties"]["tenant"]["type"], "integer");
    assert!(schema["properties"]["order"].get("x-mcp-header").is_none());
    // The server checks each mirrored header against the body and refuses
    // a missing one, so the call passing says the client sent them.
    assert_eq!(
        seen["find_order"]["text"], "order 42 in eu-west for tenant Some(7)",
        "{seen}"
    );
    assert_eq!(seen["find_order"]["error"], false);
    let mismatch = seen["mismatch"]["text"].as_str().unwrap_or_default();
    for part in ["Mcp-Param-Region", "us-east", "eu-west"] {
        assert!(mismatch.contains(part), "`{part}` in {mismatch:?}: {seen}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_is_sent_to_a_url_and_its_answer_reaches_the_tool_on_2026_07_28() {
    let seen = drive(false).await;
    let asked = seen["elicitations"].as_array().unwrap();
    assert_eq!(asked.len(), 2, "{seen}");
    for request in asked {
        assert_eq!(request["mode"], "url", "{seen}");
        assert_eq!(request["url"], SIGN_IN);
        assert_eq!(request["message"], "Sign in to Example Calendar");
        assert!(
            request["elicitationId"]
                .as_str()
                .is_some_and(|id| !id.is_empty()),
            "{seen}"
        );
    }
    assert!(
        seen["accepted"]["text"]
            .as_str()
            .is_some_and(|text| text.starts_with("signed in")),
        "{seen}"
    );
    assert_eq!(seen["declined"]["text"], "declined", "{seen}");
    assert_eq!(seen["completions"], serde_json::json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_is_sent_to_a_url_and_told_when_it_is_done_on_2025_11_25() {
    let seen = drive(true).await;
    assert_eq!(seen["protocol"], "2025-11-25", "{seen}");
    let asked = seen["elicitations"].as_array().unwrap();
    assert_eq!(asked.len(), 2, "{seen}");
    for request in asked {
        assert_eq!(request["mode"], "url", "{seen}");
        assert_eq!(request["url"], SIGN_IN);
        assert_eq!(request["message"], "Sign in to Example Calendar");
    }
    let first = asked[0]["elicitationId"]
        .as_str()
        .expect("an elicitationId");
    assert_ne!(
        asked[1]["elicitationId"], first,
        "each elicitation its own id"
    );
    assert_eq!(
        seen["accepted"]["text"],
        format!("signed in ({first})"),
        "{seen}"
    );
    assert_eq!(seen["accepted"]["error"], false);
    assert_eq!(seen["declined"]["text"], "declined", "{seen}");
    // The tool's notice names the elicitation it ends.
    assert_eq!(seen["completions"], serde_json::json!([first]), "{seen}");
    // Without the headers of 2026-07-28, the arguments travel in the body alone.
    assert_eq!(
        seen["find_order"]["text"],
        "order 42 in eu-west for tenant Some(7)"
    );
}
