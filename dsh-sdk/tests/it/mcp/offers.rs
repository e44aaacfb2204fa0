//! What an MCP server offers beside tools — resources (fixed, templated,
//! card views), prompts with typed arguments and completion, resource
//! subscriptions — through rmcp's client over an in-memory pipe.
#![cfg(feature = "mcp")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::mcp::rmcp::model::{
    ArgumentInfo, ClientCapabilities, ClientConfig, CompleteRequestParams, GetPromptRequestParams,
    Implementation, PromptMessage, ReadResourceRequestParams, Reference, ResourceContents,
    ResourceUpdatedNotificationParam, Role, SubscribeRequestParams, UnsubscribeRequestParams,
};
use dsh_kit::mcp::rmcp::service::{NotificationContext, RunningService};
use dsh_kit::mcp::rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use dsh_kit::mcp::{McpServer, Prompt, ResourceTemplate, ResourceUpdates, StaticResource};
use dsh_kit::prelude::*;
use serde_json::{Value, json};

const STEP: Duration = Duration::from_secs(10);

/// The arguments of `greet`.
#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// The name to greet
    name: String,
}

/// Show a greeting as a card.
#[tool(read_only, present = greeting_card)]
async fn greet(args: GreetArgs) -> String {
    format!("Hello, {}!", args.name)
}

#[present]
fn greeting_card(args: &GreetArgs, value: &String) -> Card {
    Card::generic(
        "greet",
        json!({ "name": args.name }),
        Some(Value::String(value.clone())),
    )
}

/// The arguments of the `review` prompt.
#[derive(Deserialize, JsonSchema)]
struct Review {
    /// The language of the code
    language: String,
    /// What to look at first
    focus: Option<String>,
}

/// A client that keeps resource updates.
#[derive(Clone, Default)]
struct Updates(Arc<Mutex<Vec<String>>>);

impl ClientHandler for Updates {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("dsh-tests", "0"),
        )
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(params.uri);
    }
}

async fn connect() -> (RunningService<RoleClient, Updates>, ResourceUpdates) {
    let registry = Registry::new();
    registry.register::<greet>().unwrap().keep();
    let mut server = McpServer::new(registry)
        .resource(
            StaticResource::text("docs://readme", "readme", "# Hello")
                .mime_type("text/markdown")
                .description("What this server is for"),
        )
        .resource(StaticResource::blob(
            "docs://logo",
            "logo",
            "image/png",
            "iVBORw0KGgo=",
        ))
        .resource(
            ResourceTemplate::new("users://{id}/profile", "profile", |uri, params| {
                if params["id"] == "nobody" {
                    return Err(ErrorData::resource_not_found(
                        "no user `nobody`".to_owned(),
                        None,
                    ));
                }
                Ok(ResourceContents::text(
                    format!("the profile of {}", params["id"]),
                    uri,
                ))
            })
            .description("A user's profile"),
        )
        .prompt(Prompt::new(
            "hello",
            "Say hello",
            vec![PromptMessage::new_text(Role::User, "Hello!")],
        ))
        .prompt(
            Prompt::with_args("review", "Review code", |args: Review| {
                let focus = args.focus.unwrap_or_else(|| "correctness".into());
                vec![PromptMessage::new_text(
                    Role::User,
                    format!("Review this {} code for {focus}.", args.language),
                )]
            })
            .complete("language", ["rust", "ruby", "python"]),
        );
    let updates = server.resource_updates();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = tokio::time::timeout(STEP, Updates::default().serve(client_io))
        .await
        .expect("the handshake ends in time")
        .expect("the handshake succeeds");
    (client, updates)
}

fn json_of(value: impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap()
}

#[tokio::test]
async fn resources_are_listed_read_and_templated_with_the_card_views() {
    let (client, _updates) = connect().await;
    let info = client.peer_info().unwrap();
    assert_eq!(json_of(&info.capabilities)["resources"]["subscribe"], true);

    let listed = json_of(client.list_all_resources().await.unwrap());
    let uris: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|resource| resource["uri"].as_str().unwrap())
        .collect();
    // The card views first, then the providers in the order added.
    assert_eq!(
        uris,
        ["ui://dsh/cards/greet", "docs://readme", "docs://logo"]
    );
    assert_eq!(listed[1]["mimeType"], "text/markdown");
    assert_eq!(listed[1]["description"], "What this server is for");

    let templates = json_of(client.list_all_resource_templates().await.unwrap());
    assert_eq!(
        templates,
        json!([{
            "uriTemplate": "users://{id}/profile",
            "name": "profile",
            "description": "A user's profile",
        }])
    );

    let read = |uri: &str| client.read_resource(ReadResourceRequestParams::new(uri.to_owned()));
    let readme = json_of(read("docs://readme").await.unwrap());
    assert_eq!(
        readme["contents"],
        json!([{ "uri": "docs://readme", "mimeType": "text/markdown", "text": "# Hello" }])
    );
    let logo = json_of(read("docs://logo").await.unwrap());
    assert_eq!(logo["contents"][0]["blob"], "iVBORw0KGgo=");
    let profile = json_of(read("users://ada/profile").await.unwrap());
    assert_eq!(profile["contents"][0]["text"], "the profile of ada");
    assert_eq!(profile["contents"][0]["uri"], "users://ada/profile");
    let card = json_of(read("ui://dsh/cards/greet").await.unwrap());
    assert!(
        card["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("<html")
    );

    for (uri, says) in [
        ("users://nobody/profile", "no user `nobody`"),
        (
            "users://a/b/profile",
            "no resource at `users://a/b/profile`",
        ),
        ("docs://nothing", "no resource at `docs://nothing`"),
    ] {
        let error = read(uri).await.unwrap_err().to_string();
        assert!(error.contains(says), "{uri}: {error}");
    }
}

#[tokio::test]
async fn prompts_take_typed_arguments_and_complete_them() {
    let (client, _updates) = connect().await;
    let prompts = json_of(client.list_all_prompts().await.unwrap());
    assert_eq!(
        prompts,
        json!([
            { "name": "hello", "description": "Say hello" },
            {
                "name": "review",
                "description": "Review code",
                "arguments": [
                    { "name": "focus", "description": "What to look at first", "required": false },
                    { "name": "language", "description": "The language of the code", "required": true },
                ],
            },
        ])
    );

    let get = |name: &str, args: Value| {
        let mut request = GetPromptRequestParams::new(name.to_owned());
        if let Value::Object(args) = args {
            request = request.with_arguments(args);
        }
        client.get_prompt(request)
    };
    let review = json_of(get("review", json!({ "language": "rust" })).await.unwrap());
    assert_eq!(
        review["messages"],
        json!([{ "role": "user", "content": { "type": "text", "text": "Review this rust code for correctness." } }])
    );
    let missing = get("review", json!({})).await.unwrap_err().to_string();
    assert!(
        missing.contains("the arguments of prompt `review` are invalid: missing field `language`"),
        "{missing}"
    );
    let unknown = get("nope", json!({})).await.unwrap_err().to_string();
    assert!(
        unknown.contains("no prompt named `nope`; the prompts are: hello, review"),
        "{unknown}"
    );

    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("review"),
            ArgumentInfo::new("language", "r"),
        ))
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["rust", "ruby"]);
}

#[tokio::test]
async fn subscribed_resources_announce_their_updates_until_unsubscribed() {
    let (client, updates) = connect().await;
    #[allow(deprecated, reason = "the 2025 protocols subscribe this way")]
    {
        client
            .subscribe(SubscribeRequestParams::new("docs://readme"))
            .await
            .unwrap();
    }
    updates.updated("docs://logo");
    updates.updated("docs://readme");
    let seen = tokio::time::timeout(STEP, async {
        loop {
            let seen = client.service().0.lock().unwrap().clone();
            if !seen.is_empty() {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the update arrives in time");
    assert_eq!(seen, ["docs://readme"]);

    #[allow(deprecated, reason = "the 2025 protocols unsubscribe this way")]
    {
        client
            .unsubscribe(UnsubscribeRequestParams::new("docs://readme"))
            .await
            .unwrap();
    }
    updates.updated("docs://readme");
    // A round trip and a pause: time enough for an update that went out to arrive.
    client.list_all_prompts().await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(client.service().0.lock().unwrap().len(), 1);
}
