//! A stand-in for a Chat Completions endpoint: real HTTP on 127.0.0.1, an
//! ephemeral port, answering with recorded responses (`examples/agent/`), so
//! the agent runs on a machine without a network or a key.
//!
//! It is stateless: the answer to a request is the recorded response for the
//! number of assistant messages the request already holds. Before answering,
//! it checks the request as the real API would: that the previous response's
//! tool calls are echoed in an assistant message and each answered by a
//! `tool` message, in order, under its id. A request that does not pass gets
//! a `400` with an OpenAI-style error body.

use std::net::SocketAddr;
use std::path::Path;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// The recorded responses, in order. `{{workdir}}` stands for the agent's
/// working directory.
const SCRIPT: [&str; 4] = [
    include_str!("../../agent/step1.json"),
    include_str!("../../agent/step2.json"),
    include_str!("../../agent/step3.json"),
    include_str!("../../agent/step4.json"),
];

/// The most bytes of a request head, and of a request body, read.
const MAX_HEAD: usize = 64 << 10;
const MAX_BODY: usize = 16 << 20;

/// The running server; dropping it stops it.
pub struct ScriptedServer {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl ScriptedServer {
    /// Starts the server on 127.0.0.1, a port the system picks.
    pub async fn start(workdir: &Path) -> std::io::Result<ScriptedServer> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let script = script(workdir);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let script = script.clone();
                tokio::spawn(async move {
                    // A client that goes away mid-request is its own problem.
                    let _ = serve(stream, &script).await;
                });
            }
        });
        Ok(ScriptedServer { addr, task })
    }

    /// The base URL to give the agent: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The recorded responses with the working directory put in.
fn script(workdir: &Path) -> Vec<Value> {
    // The path goes inside JSON strings (and inside the `arguments` string's
    // own JSON): escaped once here, the outer serialization escapes again.
    let quoted = serde_json::to_string(&workdir.display().to_string()).unwrap_or_default();
    let escaped = &quoted[1..quoted.len().saturating_sub(1)];
    SCRIPT
        .iter()
        .map(|text| {
            let mut value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            replace(&mut value, escaped);
            value
        })
        .collect()
}

fn replace(value: &mut Value, workdir: &str) {
    match value {
        Value::String(text) => *text = text.replace("{{workdir}}", workdir),
        Value::Array(items) => items.iter_mut().for_each(|item| replace(item, workdir)),
        Value::Object(map) => map.values_mut().for_each(|item| replace(item, workdir)),
        _ => {}
    }
}

async fn serve(mut stream: TcpStream, script: &[Value]) -> std::io::Result<()> {
    let (status, body) = match read_request(&mut stream).await? {
        Ok((head, body)) => answer(&head, &body, script),
        Err(message) => (400, error_body(&message)),
    };
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        405 => "Method Not Allowed",
        _ => "Bad Request",
    };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

/// Reads one request: its head and its body (by `content-length`).
async fn read_request(
    stream: &mut TcpStream,
) -> std::io::Result<Result<(String, Vec<u8>), String>> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break end;
        }
        if buffer.len() > MAX_HEAD {
            return Ok(Err("the request head is too long".into()));
        }
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            return Ok(Err("the request ended before its head did".into()));
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    if length > MAX_BODY {
        return Ok(Err(format!("the body is {length} bytes, over {MAX_BODY}")));
    }
    let mut body = buffer[head_end + 4..].to_vec();
    while body.len() < length {
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            return Ok(Err("the request ended before its body did".into()));
        }
        body.extend_from_slice(&chunk[..read]);
    }
    body.truncate(length);
    Ok(Ok((head, body)))
}

/// The status and body answering one request.
fn answer(head: &str, body: &[u8], script: &[Value]) -> (u16, String) {
    let mut request_line = head.lines().next().unwrap_or_default().split(' ');
    let (method, path) = (request_line.next(), request_line.next());
    if path != Some("/v1/chat/completions") {
        return (
            404,
            error_body(&format!("no such endpoint: {}", path.unwrap_or(""))),
        );
    }
    if method != Some("POST") {
        return (405, error_body("use POST"));
    }
    let request: Value = match serde_json::from_slice(body) {
        Ok(request) => request,
        Err(error) => return (400, error_body(&format!("the body is not JSON: {error}"))),
    };
    match check(&request, script) {
        Ok(step) => (200, script[step].to_string()),
        Err(message) => (400, error_body(&message)),
    }
}

/// Which recorded response answers `request`, once it holds what the real
/// API requires.
fn check(request: &Value, script: &[Value]) -> Result<usize, String> {
    let messages = request["messages"]
        .as_array()
        .ok_or("`messages` must be an array")?;
    if !request["tools"].as_array().is_some_and(|tools| {
        tools
            .iter()
            .all(|tool| tool["type"] == "function" && tool["function"]["name"].is_string())
    }) {
        return Err("`tools` must be an array of function tools".into());
    }
    let assistants: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| message["role"] == "assistant")
        .map(|(index, _)| index)
        .collect();
    let step = assistants.len();
    if step >= script.len() {
        return Err(format!(
            "the script has {} responses and this request already holds them all",
            script.len()
        ));
    }
    let Some(&last) = assistants.last() else {
        return Ok(0);
    };
    let sent = &script[step - 1]["choices"][0]["message"]["tool_calls"];
    let expected: Vec<&str> = sent
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .filter_map(|call| call["id"].as_str())
                .collect()
        })
        .unwrap_or_default();
    let echoed: Vec<&str> = messages[last]["tool_calls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .filter_map(|call| call["id"].as_str())
                .collect()
        })
        .unwrap_or_default();
    if echoed != expected {
        return Err(format!(
            "messages[{last}]: the assistant message must repeat the tool calls {expected:?}, it has {echoed:?}"
        ));
    }
    let answered: Vec<&str> = messages[last + 1..]
        .iter()
        .map(|message| {
            if message["role"] != "tool" || !message["content"].is_string() {
                return Err(format!(
                    "after messages[{last}], only `tool` messages with text content may follow"
                ));
            }
            message["tool_call_id"]
                .as_str()
                .ok_or_else(|| "a `tool` message has no `tool_call_id`".to_owned())
        })
        .collect::<Result<_, _>>()?;
    if answered != expected {
        return Err(format!(
            "the tool calls {expected:?} must each be answered, in order; the answers are for {answered:?}"
        ));
    }
    Ok(step)
}

fn error_body(message: &str) -> String {
    serde_json::json!({
        "error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}
    })
    .to_string()
}
