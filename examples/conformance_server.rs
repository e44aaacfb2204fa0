//! The server the MCP conformance suite (`@modelcontextprotocol/conformance`)
//! tests, written with dsh: every tool a `#[tool]` fn, plus the resources
//! and prompts its server scenarios name.
//!
//! ```sh
//! cargo run --example conformance_server -- --http 127.0.0.1:8932
//! npx @modelcontextprotocol/conformance server --url http://127.0.0.1:8932/mcp
//! ```
//!
//! The first line on standard output is the URL to connect to.
//!
//! Replicas behind a load balancer: serve with no sessions, and keep tasks
//! in a directory every replica sees.
//!
//! ```sh
//! cargo run --example conformance_server -- --http 127.0.0.1:0 --stateless --task-store /tmp/tasks
//! ```
//!
//! Or share tasks, events and sessions through Redis, with or without
//! sessions (a 2025-11-25 client's session is restored on any replica):
//!
//! ```sh
//! cargo run --example conformance_server -- --http 127.0.0.1:0 --redis redis://127.0.0.1:6379/ --redis-prefix demo
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use dsh_kit::RegisterError;
use dsh_kit::Registry;
use dsh_kit::client::{
    ClientError, ElicitRequest, Elicitation, Elicited, LogLevel, Root, SampleRequest,
    elicitation_schema,
};
use dsh_kit::mcp::redis::Redis;
use dsh_kit::mcp::rmcp::model::{
    ContentBlock as McpContent, PromptMessage, ResourceContents, Role,
};
use dsh_kit::mcp::{FileTaskStore, McpServer, Prompt, ResourceTemplate, StaticResource};
use dsh_kit::prelude::*;
use dsh_kit::skill::{Skill, SkillError};

const USAGE: &str = "usage: conformance_server --http ADDR [--stateless] [--task-store DIR] [--redis URL [--redis-prefix P] [--task-lease-ms N] [--redis-wait-ms N] [--session-ttl-ms N]] [--task-ttl-ms N]

  --http ADDR        serve streamable HTTP on ADDR (loopback; port 0 picks one); prints the URL
  --stateless        no sessions: any replica answers any request (behind a load balancer)
  --task-store DIR   keep tasks in DIR, shared by the replicas (default: in memory)
  --redis URL        share tasks, events and sessions with the other replicas through Redis
  --redis-prefix P   the replicas' key prefix in Redis (default: dsh-conformance)
  --task-lease-ms N  how long a task of a replica that died stays `working` (default: 10000)
  --redis-wait-ms N  how long a request waits on Redis before it gets 503 (default: 3000)
  --session-ttl-ms N how long Redis keeps a session after its initialize (default: a day)
  --task-ttl-ms N    how long a task is kept after it starts (default: an hour)";

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file of four silent samples.
const WAV: &str = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQgAAAAAAAAAAAAAAA==";

/// The arguments of a tool that takes none.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

/// Returns a simple text response.
#[tool(read_only)]
async fn test_simple_text(_args: NoArgs) -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Media a tool returns: base64 data and its type.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Media {
    data: String,
    mime_type: String,
}

/// Returns a PNG image.
#[tool(read_only, render = image_block)]
async fn test_image_content(_args: NoArgs) -> Media {
    Media {
        data: PNG.to_owned(),
        mime_type: "image/png".to_owned(),
    }
}

#[render]
fn image_block(_args: &NoArgs, media: &Media) -> Vec<ContentBlock> {
    vec![ContentBlock::image(&media.data, &media.mime_type)]
}

/// Returns a WAV recording.
#[tool(read_only, render = audio_block)]
async fn test_audio_content(_args: NoArgs) -> Media {
    Media {
        data: WAV.to_owned(),
        mime_type: "audio/wav".to_owned(),
    }
}

#[render]
fn audio_block(_args: &NoArgs, media: &Media) -> Vec<ContentBlock> {
    vec![ContentBlock::audio(&media.data, &media.mime_type)]
}

/// Returns a text resource embedded whole.
#[tool(read_only, render = embedded_block)]
async fn test_embedded_resource(_args: NoArgs) -> String {
    "This is an embedded resource content.".to_owned()
}

#[render]
fn embedded_block(_args: &NoArgs, text: &String) -> Vec<ContentBlock> {
    vec![ContentBlock::embedded_text(
        "test://embedded-resource",
        "text/plain",
        text,
    )]
}

/// Returns text, an image and an embedded resource.
#[tool(read_only, render = mixed_blocks)]
async fn test_multiple_content_types(_args: NoArgs) -> serde_json::Value {
    serde_json::json!({ "test": "data", "value": 123 })
}

#[render]
fn mixed_blocks(_args: &NoArgs, data: &serde_json::Value) -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(PNG, "image/png"),
        ContentBlock::embedded_text(
            "test://mixed-content-resource",
            "application/json",
            data.to_string(),
        ),
    ]
}

/// Logs three messages to the client while it runs.
#[tool(read_only)]
async fn test_tool_with_logging(_args: NoArgs, exec: &Exec) -> String {
    exec.log(LogLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    exec.log(LogLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    exec.log(LogLevel::Info, "Tool execution completed").await;
    "Logged three messages.".to_owned()
}

/// Reports progress three times while it runs.
#[tool(read_only)]
async fn test_tool_with_progress(_args: NoArgs, exec: &Exec) -> String {
    for (step, percent) in [0, 50, 100].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        exec.report_progress(f64::from(percent), Some(100.0), format!("{percent}/100"));
    }
    "Reported progress three times.".to_owned()
}

/// Always fails.
#[tool(read_only)]
async fn test_error_handling(_args: NoArgs) -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Asks the client's model to answer a prompt.
#[tool(read_only)]
async fn test_sampling(
    /// The prompt to send to the LLM
    prompt: String,
    exec: &Exec,
) -> Result<String, ToolError> {
    let sample = exec
        .sample(SampleRequest::user(prompt).max_tokens(100))
        .await?;
    Ok(format!("LLM response: {}", sample.text))
}

/// Who the user is.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Asks the user who they are.
#[tool(read_only)]
async fn test_elicitation(
    /// The message to show the user
    message: String,
    exec: &Exec,
) -> Result<String, ToolError> {
    Ok(match exec.elicit::<UserInfo>(message).await? {
        Elicited::Accepted(user) => format!(
            "User response: action=accept, content={{username: {}, email: {}}}",
            user.username, user.email
        ),
        Elicited::Declined => "User response: action=decline".to_owned(),
        Elicited::Cancelled => "User response: action=cancel".to_owned(),
    })
}

/// A name the user gives.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
struct Name {
    /// The user's name
    name: String,
}

/// A yes or no.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
struct Confirm {
    /// Whether the user confirms
    ok: bool,
}

/// A colour the user likes.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
struct Colour {
    /// The user's favourite colour
    color: String,
}

/// What a form fixture got: the answer, or what the user did instead.
fn answered<T>(answer: Elicited<T>, show: impl FnOnce(T) -> String) -> String {
    match answer {
        Elicited::Accepted(value) => show(value),
        Elicited::Declined => "the user declined".to_owned(),
        Elicited::Cancelled => "the user cancelled".to_owned(),
    }
}

/// Asks the client's model a question, so it fails when the client did not
/// declare sampling.
#[tool(read_only)]
async fn test_missing_capability(_args: NoArgs, exec: &Exec) -> Result<String, ToolError> {
    let sample = exec
        .sample(SampleRequest::user("Say something.").max_tokens(20))
        .await?;
    Ok(format!("The model said: {}", sample.text))
}

/// Asks the user for their name while the call runs.
#[tool(read_only)]
async fn test_streaming_elicitation(_args: NoArgs, exec: &Exec) -> Result<String, ToolError> {
    let answer = exec.elicit::<Name>("What is your name?").await?;
    Ok(answered(answer, |user| format!("Hello, {}!", user.name)))
}

/// Logs three messages to the client while it runs.
#[tool(read_only)]
async fn test_logging_tool(_args: NoArgs, exec: &Exec) -> String {
    for step in ["started", "working", "done"] {
        exec.log(LogLevel::Info, format!("test_logging_tool {step}"))
            .await;
    }
    "Logged three messages.".to_owned()
}

/// Asks the user's name, as the answer `user_name`.
#[tool(read_only)]
async fn test_input_required_result_elicitation(
    _args: NoArgs,
    exec: &Exec,
) -> Result<String, ToolError> {
    let answer = exec
        .elicit_keyed::<Name>("user_name", "What is your name?")
        .await?;
    Ok(answered(answer, |user| format!("Hello, {}!", user.name)))
}

/// Asks the client's model a question, as the answer `capital_question`.
#[tool(read_only)]
async fn test_input_required_result_sampling(
    _args: NoArgs,
    exec: &Exec,
) -> Result<String, ToolError> {
    let request = SampleRequest::user("What is the capital of France?")
        .max_tokens(100)
        .key("capital_question");
    let sample = exec.sample(request).await?;
    Ok(format!("The model answered: {}", sample.text))
}

/// The roots a client gave, for a tool's answer.
fn shown(roots: &[Root]) -> String {
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    format!("{} root(s): {}", roots.len(), uris.join(", "))
}

/// Lists the client's roots, as the answer `client_roots`.
#[tool(read_only)]
async fn test_input_required_result_list_roots(
    _args: NoArgs,
    exec: &Exec,
) -> Result<String, ToolError> {
    let roots = exec.roots(Some("client_roots")).await?;
    Ok(format!("The client has {}", shown(&roots)))
}

/// Asks the user to confirm, as the answer `confirm`; the answer reaches it
/// only once the server has checked the `requestState` that came back.
#[tool(read_only)]
async fn test_input_required_result_request_state(
    _args: NoArgs,
    exec: &Exec,
) -> Result<String, ToolError> {
    let answer = exec
        .elicit_keyed::<Confirm>("confirm", "Please confirm")
        .await?;
    Ok(answered(answer, |confirm| {
        format!(
            "state-ok: the request state checked out, confirmed: {}",
            confirm.ok
        )
    }))
}

/// Asks for a name, a greeting from the model and the roots, all at once.
#[tool(read_only)]
async fn test_input_required_result_multiple_inputs(
    _args: NoArgs,
    exec: &Exec,
) -> Result<String, ToolError> {
    let greeting = SampleRequest::user("Generate a greeting")
        .max_tokens(50)
        .key("greeting");
    let (name, greeting, roots) = tokio::join!(
        exec.elicit_keyed::<Name>("user_name", "What is your name?"),
        exec.sample(greeting),
        exec.roots(Some("client_roots")),
    );
    let name = answered(name?, |user| user.name);
    Ok(format!(
        "{} to {name}, with {}",
        greeting?.text,
        shown(&roots?)
    ))
}

/// Asks the user two questions, one round each.
#[tool(read_only)]
async fn test_input_required_result_multi_round(
    _args: NoArgs,
    exec: &Exec,
) -> Result<String, ToolError> {
    let name = exec
        .elicit_keyed::<Name>("step1", "Step 1: What is your name?")
        .await?;
    let colour = exec
        .elicit_keyed::<Colour>("step2", "Step 2: What is your favorite color?")
        .await?;
    Ok(format!(
        "{} likes {}",
        answered(name, |user| user.name),
        answered(colour, |colour| colour.color)
    ))
}

/// Asks the user to confirm; a retry whose `requestState` was altered is
/// refused before the tool runs.
#[tool(read_only)]
async fn test_input_required_result_tampered_state(
    _args: NoArgs,
    exec: &Exec,
) -> Result<String, ToolError> {
    let answer = exec
        .elicit_keyed::<Confirm>("confirm", "Please confirm")
        .await?;
    Ok(answered(answer, |confirm| {
        format!("confirmed: {}", confirm.ok)
    }))
}

/// Asks the user for their name when the client can show a form, else
/// asks the client's model for one.
#[tool(read_only)]
async fn test_input_required_result_capabilities(
    _args: NoArgs,
    exec: &Exec,
) -> Result<String, ToolError> {
    let client = exec
        .client()
        .ok_or_else(|| ToolError::new("this call has no client"))?;
    let form = ElicitRequest {
        message: "What is your name?".to_owned(),
        schema: elicitation_schema::<Name>().map_err(|error| ToolError::new(error.to_string()))?,
        key: Some("user_name".to_owned()),
    };
    match client.elicit(form).await {
        Ok(Elicitation::Accept(content)) => Ok(format!(
            "Hello, {}!",
            serde_json::Value::Object(content)["name"]
        )),
        Ok(Elicitation::Decline | Elicitation::Cancel) => Ok("the user said no".to_owned()),
        Err(ClientError::Unsupported { .. }) => {
            let request = SampleRequest::user("Make up a name.")
                .max_tokens(20)
                .key("made_up_name");
            let sample = exec.sample(request).await?;
            Ok(format!("Hello, {}!", sample.text))
        }
        Err(error) => Err(ToolError::new(error.to_string())),
    }
}

/// Looks a term up in one region's index; the region travels as the
/// `Mcp-Param-Region` header too, so a gateway routes the call unread.
#[tool(read_only)]
async fn test_header_tool(
    /// The region whose index is searched
    #[dsh(header = "Region")]
    region: String,
    /// What to look up
    query: String,
) -> String {
    format!("Looked up `{query}` in region {region}.")
}

/// A status, for the defaults form.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

/// A form whose every field has a default.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(default)]
struct WithDefaults {
    /// User name
    name: String,
    /// User age
    age: i64,
    /// User score
    score: f64,
    /// User status
    status: Status,
    /// Verification status
    verified: bool,
}

impl Default for WithDefaults {
    fn default() -> Self {
        WithDefaults {
            name: "John Doe".to_owned(),
            age: 30,
            score: 95.5,
            status: Status::Active,
            verified: true,
        }
    }
}

/// Asks for a form whose fields have defaults.
#[tool(read_only)]
async fn test_elicitation_sep1034_defaults(
    _args: NoArgs,
    exec: &Exec,
) -> Result<String, ToolError> {
    let answer = exec
        .elicit::<WithDefaults>("Test client default value handling - please accept with defaults")
        .await?;
    Ok(format!("Elicitation completed: {answer:?}"))
}

/// Options without titles.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

/// Options with titles (their doc comments).
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum Titled {
    /// First Option
    Value1,
    /// Second Option
    Value2,
    /// Third Option
    Value3,
}

/// Options with titles, for a multi-select.
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum TitledChoice {
    /// First Choice
    Value1,
    /// Second Choice
    Value2,
    /// Third Choice
    Value3,
}

/// Options titled the legacy way (`enumNames`).
#[derive(Debug, Serialize, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
#[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
enum Legacy {
    Opt1,
    Opt2,
    Opt3,
}

/// Every kind of enum a form can hold.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
#[allow(dead_code, reason = "the answer is shown through `Debug`")]
#[serde(rename_all = "camelCase")]
struct Enums {
    untitled_single: Untitled,
    titled_single: Titled,
    legacy_enum: Legacy,
    untitled_multi: Vec<Untitled>,
    titled_multi: Vec<TitledChoice>,
}

/// Asks for a form with every kind of enum.
#[tool(read_only)]
async fn test_elicitation_sep1330_enums(_args: NoArgs, exec: &Exec) -> Result<String, ToolError> {
    let answer = exec.elicit::<Enums>("Pick some options").await?;
    Ok(format!("Elicitation completed: {answer:?}"))
}

/// A postal address.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "address", extend("$anchor" = "addressDef"))]
#[allow(dead_code, reason = "the fields are read through the schema only")]
struct Address {
    street: Option<String>,
    city: Option<String>,
}

/// How to reach someone.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ContactMethod {
    Phone,
    Email,
}

/// The arguments of the JSON Schema 2020-12 tool: a phone or an email at
/// least, and the one `contactMethod` names.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(extend(
    "allOf" = [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
    "if" = {
        "properties": { "contactMethod": { "const": "phone" } },
        "required": ["contactMethod"]
    },
    "then" = { "required": ["phone"] },
    "else" = { "required": ["email"] },
))]
struct SchemaArgs {
    name: Option<String>,
    address: Option<Address>,
    contact_method: Option<ContactMethod>,
    phone: Option<String>,
    email: Option<String>,
}

/// Tool with JSON Schema 2020-12 features
#[tool(read_only)]
async fn json_schema_2020_12_tool(args: SchemaArgs) -> String {
    let name = args.name.as_deref().unwrap_or("anonymous");
    let city = (args.address.as_ref())
        .and_then(|address| address.city.as_deref())
        .unwrap_or("somewhere");
    let reach = match (args.contact_method, args.phone, args.email) {
        (Some(ContactMethod::Phone), Some(phone), _) | (None, Some(phone), None) => {
            format!("by phone at {phone}")
        }
        (_, _, Some(email)) => format!("by email at {email}"),
        _ => "no way".to_owned(),
    };
    format!("Hello, {name} of {city}: reached {reach}.")
}

/// How long [`slow_task`] works.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SlowArgs {
    /// Milliseconds to work, at most a minute
    #[schemars(range(max = 60000))]
    ms: u32,
}

/// What [`slow_task`] did, and which replica did it.
#[derive(Serialize, Deserialize, JsonSchema)]
struct SlowDone {
    /// Milliseconds worked
    worked_ms: u32,
    /// The process id of the replica that ran the call
    replica: u32,
}

/// Works for a while, reporting progress, as a task a client can poll,
/// fetch and cancel.
#[tool(read_only, task)]
async fn slow_task(args: SlowArgs, exec: &Exec) -> Result<SlowDone, ToolError> {
    let ms = args.ms.min(60_000);
    let mut worked = 0;
    while worked < ms {
        let step = (ms - worked).min(100);
        tokio::select! {
            () = exec.cancellation().cancelled() => {
                return Err(ToolError::new("the work was cancelled"));
            }
            () = tokio::time::sleep(Duration::from_millis(u64::from(step))) => {}
        }
        worked += step;
        exec.progress(format!("{worked}/{ms} ms"));
    }
    Ok(SlowDone {
        worked_ms: worked,
        replica: std::process::id(),
    })
}

/// Greets someone, at once.
#[tool(read_only)]
async fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// How long [`slow_compute`] works, and what for.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ComputeArgs {
    /// Seconds to work, at most a minute; 0 answers at once
    #[schemars(range(min = 0.0, max = 60.0))]
    seconds: f64,
    /// A label the result repeats
    label: Option<String>,
}

/// Works for some seconds, as a task a client can poll and cancel: a
/// cancel ends it `cancelled`.
#[tool(read_only, task)]
async fn slow_compute(args: ComputeArgs, exec: &Exec) -> Result<String, ToolError> {
    let seconds = args.seconds.clamp(0.0, 60.0);
    tokio::select! {
        () = exec.cancellation().cancelled() => Err(ToolError::new("the computation was cancelled")),
        () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => Ok(format!(
            "Computed for {seconds} s{}",
            args.label.map(|label| format!(" ({label})")).unwrap_or_default()
        )),
    }
}

/// Works for a second, then fails as a tool does: the task completes with
/// an error result. It runs only as a task.
#[tool(read_only, task_required)]
async fn failing_job(_args: NoArgs) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed: its input was not found"))
}

/// Panics: the task fails, with the protocol error that makes.
#[tool(read_only, task)]
async fn protocol_error_job(_args: NoArgs) -> String {
    panic!("the job's server side broke")
}

/// A deletion the user confirms.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
struct ConfirmDeletion {
    /// Whether to delete it
    confirm: bool,
}

/// Asks the user to confirm deleting a file, as a task, and says what
/// they chose (it deletes nothing itself).
#[tool(read_only, task)]
async fn confirm_delete(
    /// The file to delete
    filename: String,
    exec: &Exec,
) -> Result<String, ToolError> {
    let answer = exec
        .elicit::<ConfirmDeletion>(format!("Delete {filename}?"))
        .await?;
    Ok(answered(answer, |answer| {
        if answer.confirm {
            format!("The user confirmed deleting {filename}.")
        } else {
            format!("The user chose to keep {filename}.")
        }
    }))
}

/// Asks the user two things at once, as a task: their name, and whether
/// to go on.
#[tool(read_only, task)]
async fn multi_input(_args: NoArgs, exec: &Exec) -> Result<String, ToolError> {
    let (name, go_on) = tokio::join!(
        exec.elicit::<Name>("What is your name?"),
        exec.elicit::<ConfirmDeletion>("Go on?"),
    );
    let name = answered(name?, |user| user.name);
    let go_on = answered(go_on?, |answer| answer.confirm.to_string());
    Ok(format!("{name} said go on: {go_on}"))
}

/// Asks the user's name in the request, then runs as a task that greets them.
#[tool(read_only, task_required, ask_first)]
async fn test_tool_with_task(_args: NoArgs, exec: &Exec) -> Result<String, ToolError> {
    let answer = exec
        .elicit_keyed::<Name>("user_name", "What is your name?")
        .await?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(answered(answer, |user| format!("Hello, {}!", user.name)))
}

/// The registry served, for [`change_tools`].
static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();

/// A tool that comes and goes.
#[tool(read_only)]
async fn passing_tool(_args: NoArgs) -> String {
    "here for a moment".to_owned()
}

/// Changes the tool list (a tool registered, then dropped), so every
/// session, on every replica sharing an event bus, gets `list_changed`.
#[tool]
async fn change_tools(_args: NoArgs) -> Result<String, ToolError> {
    let registry = REGISTRY
        .get()
        .ok_or_else(|| ToolError::new("no registry is served"))?;
    let passing = registry
        .register::<passing_tool>()
        .map_err(|error| ToolError::new(error.to_string()))?;
    drop(passing);
    Ok("the tool list changed".to_owned())
}

/// Closes its response stream mid-call, so the client reconnects.
#[tool(read_only)]
async fn test_reconnection(_args: NoArgs) -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully".to_owned()
}

/// The skills the Skills extension's scenarios list, get and read: one at
/// the top of the namespace, one under a prefix with a supporting file.
fn skills() -> Result<Vec<Skill>, SkillError> {
    let review = Skill::new(
        "code-review",
        "Review a change for correctness first, then for style",
        "# Code review\n\nRead the whole change before commenting; see `references/CHECKLIST.md`.\n",
    )?
    .field("license", "MIT")?
    .field("metadata", json!({ "version": "1.0" }))?
    .file(
        "references/CHECKLIST.md",
        "# Checklist\n\n- It does what it says.\n- It is tested.\n",
    )?
    .prefix("conformance")?;
    let greeting = Skill::new(
        "greeting",
        "Greet the user by name before anything else",
        "# Greeting\n\nSay hello, then ask what they need.\n",
    )?;
    Ok(vec![review, greeting])
}

fn server(registry: Registry) -> McpServer {
    let mut server = McpServer::new(registry)
        .named("dsh-conformance-server", env!("CARGO_PKG_VERSION"))
        .resource(
            StaticResource::text(
                "test://static-text",
                "static-text",
                "This is the content of the static text resource.",
            )
            .description("A static text resource"),
        )
        .resource(
            StaticResource::blob("test://static-binary", "static-binary", "image/png", PNG)
                .description("A static PNG image"),
        )
        .resource(
            StaticResource::text(
                "test://watched-resource",
                "watched-resource",
                "A resource clients subscribe to.",
            )
            .description("A resource whose updates are announced"),
        )
        .resource(
            ResourceTemplate::new(
                "test://template/{id}/data",
                "template-data",
                |uri, params| {
                    let id = &params["id"];
                    let data = serde_json::json!({
                        "id": id,
                        "templateTest": true,
                        "data": format!("Data for ID: {id}"),
                    });
                    Ok(ResourceContents::TextResourceContents {
                        uri: uri.to_owned(),
                        mime_type: Some("application/json".to_owned()),
                        text: data.to_string(),
                        meta: None,
                    })
                },
            )
            .description("Data for an id")
            .mime_type("application/json"),
        )
        .prompt(Prompt::new(
            "test_simple_prompt",
            "A simple prompt without arguments",
            vec![PromptMessage::new_text(
                Role::User,
                "This is a simple prompt for testing.",
            )],
        ))
        .prompt(
            Prompt::with_args(
                "test_prompt_with_arguments",
                "A prompt with two arguments",
                |args: TwoArgs| {
                    vec![PromptMessage::new_text(
                        Role::User,
                        format!(
                            "Prompt with arguments: arg1='{}', arg2='{}'",
                            args.arg1, args.arg2
                        ),
                    )]
                },
            )
            .complete("arg1", ["paris", "park", "party"]),
        )
        .prompt(Prompt::with_args(
            "test_prompt_with_embedded_resource",
            "A prompt that embeds a resource",
            |args: ResourceArgs| {
                vec![
                    PromptMessage::new_resource(
                        Role::User,
                        args.resource_uri,
                        Some("text/plain".to_owned()),
                        Some("Embedded resource content for testing.".to_owned()),
                        None,
                        None,
                        None,
                    ),
                    PromptMessage::new_text(
                        Role::User,
                        "Please process the embedded resource above.",
                    ),
                ]
            },
        ))
        .prompt(Prompt::asking(
            "test_input_required_result_prompt",
            "A prompt that asks the user for its context first",
            |_args: NoArgs, exec: Exec| async move {
                let answer = exec
                    .elicit_keyed::<PromptContext>(
                        "user_context",
                        "What context should the prompt use?",
                    )
                    .await?;
                let context = answered(answer, |given| given.context);
                Ok(vec![PromptMessage::new_text(
                    Role::User,
                    format!("Answer with this context in mind: {context}"),
                )])
            },
        ))
        .prompt(Prompt::new(
            "test_prompt_with_image",
            "A prompt with an image",
            vec![
                PromptMessage::new(Role::User, McpContent::image(PNG, "image/png")),
                PromptMessage::new_text(Role::User, "Please analyze the image above."),
            ],
        ));
    // Subscriptions are accepted once someone can announce updates.
    let _updates = server.resource_updates();
    server
}

/// The context the user gives `test_input_required_result_prompt`.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
struct PromptContext {
    /// The context the prompt should use
    context: String,
}

/// The arguments of `test_prompt_with_arguments`.
#[derive(Deserialize, JsonSchema)]
struct TwoArgs {
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
}

/// The arguments of `test_prompt_with_embedded_resource`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ResourceArgs {
    /// URI of the resource to embed
    resource_uri: String,
}

/// Registers every tool the suite calls.
fn register(registry: &Registry) -> Result<(), RegisterError> {
    registry.register::<test_simple_text>()?.keep();
    registry.register::<test_image_content>()?.keep();
    registry.register::<test_audio_content>()?.keep();
    registry.register::<test_embedded_resource>()?.keep();
    registry.register::<test_multiple_content_types>()?.keep();
    registry.register::<test_tool_with_logging>()?.keep();
    registry.register::<test_tool_with_progress>()?.keep();
    registry.register::<test_error_handling>()?.keep();
    registry.register::<test_sampling>()?.keep();
    registry.register::<test_elicitation>()?.keep();
    registry
        .register::<test_elicitation_sep1034_defaults>()?
        .keep();
    registry
        .register::<test_elicitation_sep1330_enums>()?
        .keep();
    registry.register::<json_schema_2020_12_tool>()?.keep();
    registry.register::<test_reconnection>()?.keep();
    registry.register::<slow_task>()?.keep();
    registry.register::<change_tools>()?.keep();
    registry.register::<test_missing_capability>()?.keep();
    registry.register::<test_streaming_elicitation>()?.keep();
    registry.register::<test_logging_tool>()?.keep();
    registry.register::<test_header_tool>()?.keep();
    registry.register::<greet>()?.keep();
    registry.register::<slow_compute>()?.keep();
    registry.register::<failing_job>()?.keep();
    registry.register::<protocol_error_job>()?.keep();
    registry.register::<confirm_delete>()?.keep();
    registry.register::<multi_input>()?.keep();
    registry.register::<test_tool_with_task>()?.keep();
    registry
        .register::<test_input_required_result_elicitation>()?
        .keep();
    registry
        .register::<test_input_required_result_sampling>()?
        .keep();
    registry
        .register::<test_input_required_result_list_roots>()?
        .keep();
    registry
        .register::<test_input_required_result_request_state>()?
        .keep();
    registry
        .register::<test_input_required_result_multiple_inputs>()?
        .keep();
    registry
        .register::<test_input_required_result_multi_round>()?
        .keep();
    registry
        .register::<test_input_required_result_tampered_state>()?
        .keep();
    registry
        .register::<test_input_required_result_capabilities>()?
        .keep();
    Ok(())
}

/// What the command line asked for.
struct Options {
    addr: SocketAddr,
    stateless: bool,
    task_store: Option<std::path::PathBuf>,
    redis: Option<String>,
    redis_prefix: String,
    task_lease: Option<Duration>,
    redis_wait: Option<Duration>,
    session_ttl: Option<Duration>,
    task_ttl: Option<Duration>,
}

/// The value of `--NAME N`, a number of milliseconds.
fn millis<'a>(name: &str, args: &mut impl Iterator<Item = &'a String>) -> Result<Duration, String> {
    let value = args.next().ok_or(format!("`{name}` needs a number"))?;
    let ms: u64 = value
        .parse()
        .map_err(|error| format!("`{name} {value}`: not a number of ms: {error}"))?;
    Ok(Duration::from_millis(ms))
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut addr = None;
    let mut stateless = false;
    let mut task_store = None;
    let mut redis = None;
    let mut redis_prefix = "dsh-conformance".to_owned();
    let mut task_lease = None;
    let mut redis_wait = None;
    let mut session_ttl = None;
    let mut task_ttl = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => {
                let value = args.next().ok_or("`--http` needs an address")?;
                let parsed = value
                    .parse::<SocketAddr>()
                    .map_err(|error| format!("`{value}` is not an address: {error}"))?;
                addr = Some(parsed);
            }
            "--stateless" => stateless = true,
            "--task-store" => {
                let dir = args.next().ok_or("`--task-store` needs a directory")?;
                task_store = Some(dir.into());
            }
            "--redis" => redis = Some(args.next().ok_or("`--redis` needs a URL")?.clone()),
            "--redis-prefix" => {
                redis_prefix = args
                    .next()
                    .ok_or("`--redis-prefix` needs a prefix")?
                    .clone();
            }
            "--task-lease-ms" => task_lease = Some(millis(arg, &mut args)?),
            "--redis-wait-ms" => redis_wait = Some(millis(arg, &mut args)?),
            "--session-ttl-ms" => session_ttl = Some(millis(arg, &mut args)?),
            "--task-ttl-ms" => task_ttl = Some(millis(arg, &mut args)?),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let addr = addr.ok_or("`--http ADDR` is required")?;
    Ok(Options {
        addr,
        stateless,
        task_store,
        redis,
        redis_prefix,
        task_lease,
        redis_wait,
        session_ttl,
        task_ttl,
    })
}

/// Serves the conformance tools over streamable HTTP until killed.
#[tokio::main]
pub async fn main() -> ExitCode {
    dsh_kit_examples::logging::log_to_stderr();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match options(&args) {
        Ok(options) => options,
        Err(error) => {
            eprintln!("conformance_server: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let registry = match skills() {
        Ok(skills) => Registry::builder().skills(skills).build(),
        Err(error) => {
            eprintln!("conformance_server: {error}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(error) = register(&registry) {
        eprintln!("conformance_server: {error}");
        return ExitCode::FAILURE;
    }
    let _ = REGISTRY.set(registry.clone());
    let mut server = server(registry).stateless(options.stateless);
    if let Some(url) = &options.redis {
        let mut redis = match Redis::connect(url, &options.redis_prefix).await {
            Ok(redis) => redis,
            Err(error) => {
                eprintln!("conformance_server: {error}");
                return ExitCode::FAILURE;
            }
        };
        if let Some(wait) = options.redis_wait {
            redis = redis.with_wait(wait);
        }
        if let Some(ttl) = options.session_ttl {
            redis = redis.with_session_ttl(ttl);
        }
        server = server.redis(&redis);
        if let Some(lease) = options.task_lease {
            server = server.task_store(redis.task_store().with_lease(lease));
        }
    }
    if let Some(dir) = &options.task_store {
        match FileTaskStore::new(dir) {
            Ok(store) => server = server.task_store(store),
            Err(error) => {
                eprintln!("conformance_server: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(ttl) = options.task_ttl {
        server = server.task_ttl(ttl);
    }
    let http = match server.serve_http(options.addr).await {
        Ok(http) => http,
        Err(error) => {
            eprintln!("conformance_server: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", http.url());
    match http.wait().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance_server: {error}");
            ExitCode::FAILURE
        }
    }
}
