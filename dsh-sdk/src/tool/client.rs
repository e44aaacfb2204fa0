//! The client a call came from, when it can be reached while the call runs:
//! log messages for its user, questions for its user (elicitation: a form
//! to fill in, or a URL to open), and completions from its model (sampling).
//!
//! A tool reaches it through [`Exec`](crate::Exec) —
//! [`log`](crate::Exec::log), [`elicit`](crate::Exec::elicit),
//! [`sample`](crate::Exec::sample) — and never needs to know which front
//! made the call. The MCP server hands each call a [`Client`] on the MCP
//! session it came from; a host of its own implements [`Client`] and passes
//! it with [`ToolCall::client`](crate::ToolCall::client).
//!
//! Over MCP, elicitation and sampling are requests from the server to the
//! client, which the 2025 protocols have; a session on 2026-07-28, which
//! replaces them with multi-round-trip input, gets an error naming why
//! (that exchange is not built yet).

use std::fmt;

use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The client of one call: where [`Exec::log`](crate::Exec::log),
/// [`Exec::elicit`](crate::Exec::elicit) and
/// [`Exec::sample`](crate::Exec::sample) go.
pub trait Client: Send + Sync + 'static {
    /// Sends a log message; a client that asked for a higher level drops it.
    fn log(&self, message: LogMessage) -> BoxFuture<'_, Result<(), ClientError>>;

    /// Asks the user to fill in `request.schema`, a flat object of
    /// primitive properties ([`elicitation_schema`]).
    fn elicit(&self, request: ElicitRequest) -> BoxFuture<'_, Result<Elicitation, ClientError>>;

    /// Asks the client's model for a completion.
    fn sample(&self, request: SampleRequest) -> BoxFuture<'_, Result<Sample, ClientError>>;

    /// Asks the user to open `request.url` (URL-mode elicitation); the
    /// answer is whether they agreed to, not what they did there. A client
    /// that cannot answers [`ClientError::Unsupported`], the default.
    fn elicit_url(
        &self,
        request: UrlElicitRequest,
    ) -> BoxFuture<'_, Result<Elicitation, ClientError>> {
        let _ = request;
        Box::pin(async {
            Err(ClientError::Unsupported {
                capability: URL_ELICITATION,
            })
        })
    }

    /// Tells the client that the interaction at the URL of elicitation `id`
    /// is over (MCP's `notifications/elicitation/complete`), so it can
    /// update what it shows. A client that takes no such notice drops it,
    /// the default.
    fn elicitation_complete(&self, id: &ElicitationId) -> BoxFuture<'_, Result<(), ClientError>> {
        let _ = id;
        Box::pin(async { Ok(()) })
    }
}

/// The capability [`Client::elicit_url`] needs, as errors name it.
pub const URL_ELICITATION: &str = "URL elicitation";

/// Why the client could not do what a tool asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The call has no client that can be asked (a call from the Rust API, a replay).
    #[error("this call has no client to {what}")]
    NoClient {
        /// What the tool asked for: "log to", "elicit from", "sample from".
        what: &'static str,
    },
    /// The client did not declare the capability.
    #[error("the client does not support {capability}: it did not declare it when it connected")]
    Unsupported {
        /// `elicitation`, `sampling`.
        capability: &'static str,
    },
    /// The request failed on the way or the client answered with an error.
    #[error("the client failed to answer: {0}")]
    Failed(String),
}

/// How severe a log message is, from [`Debug`](Self::Debug) up (syslog's levels, as MCP has them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something to look at.
    Warning,
    /// An error.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// One log message from a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct LogMessage {
    /// Its severity.
    pub level: LogLevel,
    /// Who logged it: the tool's name.
    pub logger: String,
    /// The message: a string, or any JSON.
    pub data: Value,
}

/// A question for the user: a message and the form to fill in.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitRequest {
    /// What the user is asked, and why.
    pub message: String,
    /// The form: a flat object schema of primitive properties.
    pub schema: Value,
}

/// A request to send the user to a URL: a third-party sign-in, a payment,
/// anything the client must not see (URL-mode elicitation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlElicitRequest {
    /// Why the user is sent there.
    pub message: String,
    /// Where, checked by [`elicitation_url`].
    pub url: String,
    /// The elicitation's id, for [`Client::elicitation_complete`].
    pub id: ElicitationId,
}

/// The id of one URL elicitation, unique to the server: what the client is
/// told again when the interaction is over
/// ([`Exec::elicitation_complete`](crate::Exec::elicitation_complete)).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElicitationId(String);

impl ElicitationId {
    /// A new id, a random UUID.
    pub fn new() -> Self {
        ElicitationId(uuid::Uuid::new_v4().to_string())
    }

    /// The id as the client sees it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for ElicitationId {
    fn default() -> Self {
        ElicitationId::new()
    }
}

impl fmt::Display for ElicitationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why [`Exec::elicit_url`](crate::Exec::elicit_url) did not ask the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlElicitError {
    /// The URL is not one a user may be sent to.
    #[error("cannot send the user to `{url}`: it {problem}")]
    Url {
        /// The URL as given (cut to its first 200 characters).
        url: String,
        /// What is wrong with it.
        problem: UrlProblem,
    },
    /// The client could not be asked: there is none, it did not declare
    /// URL elicitation ([`ClientError::Unsupported`]), or the request failed.
    #[error(transparent)]
    Client(#[from] ClientError),
}

/// What makes a URL one a tool may not send its user to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlProblem {
    /// It is longer than [`MAX_ELICITATION_URL`] bytes.
    #[error("is longer than {max} bytes", max = MAX_ELICITATION_URL)]
    TooLong,
    /// It does not parse as an absolute URL.
    #[error("is not an absolute URL ({reason})")]
    NotAbsolute {
        /// What the parser said.
        reason: String,
    },
    /// Its scheme is neither `https` nor `http`.
    #[error("has the scheme `{scheme}`: send users to an `https:` URL")]
    Scheme {
        /// The scheme.
        scheme: String,
    },
    /// It is `http:` to a host that is not this machine: the user's answer
    /// would cross the network in the clear.
    #[error(
        "is `http:` to `{host}`, which is not a loopback host: use `https:` (plain `http:` is for `localhost`, `127.0.0.1` and `[::1]`, in development)"
    )]
    Insecure {
        /// The host.
        host: String,
    },
    /// It carries a user name or password, which MCP forbids: anyone who
    /// sees the URL could use them.
    #[error("carries a user name or password: credentials never go in the URL")]
    Credentials,
}

/// The longest URL a tool may send its user to: 4096 bytes.
pub const MAX_ELICITATION_URL: usize = 4096;

/// `url` checked as a place to send a user (URL-mode elicitation): an
/// absolute `https:` URL, or `http:` on a loopback host (for development),
/// without credentials, at most [`MAX_ELICITATION_URL`] bytes; returned in
/// the form a browser reads it.
///
/// ```
/// use dsh_kit::client::{UrlProblem, elicitation_url};
///
/// assert_eq!(
///     elicitation_url("https://auth.example.com/connect?state=1").unwrap(),
///     "https://auth.example.com/connect?state=1"
/// );
/// assert!(elicitation_url("http://127.0.0.1:8080/callback").is_ok());
/// assert!(matches!(
///     elicitation_url("http://auth.example.com/connect"),
///     Err(UrlProblem::Insecure { .. })
/// ));
/// assert!(matches!(elicitation_url("/connect"), Err(UrlProblem::NotAbsolute { .. })));
/// assert!(matches!(elicitation_url("javascript:alert(1)"), Err(UrlProblem::Scheme { .. })));
/// ```
pub fn elicitation_url(url: &str) -> Result<String, UrlProblem> {
    if url.len() > MAX_ELICITATION_URL {
        return Err(UrlProblem::TooLong);
    }
    // Strictly by RFC 3987: what a browser's more lenient parser would
    // read otherwise (a backslash, a space, a short IPv4 form) is refused
    // here, so what is checked is what the user opens.
    let parsed = fluent_uri::Iri::parse(url).map_err(|error| UrlProblem::NotAbsolute {
        reason: error.to_string(),
    })?;
    let scheme = parsed.scheme().as_str().to_ascii_lowercase();
    if scheme != "https" && scheme != "http" {
        return Err(UrlProblem::Scheme { scheme });
    }
    let Some(authority) = parsed
        .authority()
        .filter(|authority| !authority.host().is_empty())
    else {
        return Err(UrlProblem::NotAbsolute {
            reason: format!("a `{scheme}:` URL names a host: `{scheme}://host/…`"),
        });
    };
    if authority.userinfo().is_some() {
        return Err(UrlProblem::Credentials);
    }
    if scheme == "http" && !is_loopback(authority.host()) {
        return Err(UrlProblem::Insecure {
            host: authority.host().to_owned(),
        });
    }
    Ok(parsed.normalize().to_string())
}

/// Whether `host`, as a URL writes it, is this machine: `localhost`, or a
/// loopback IPv4 address or IPv6 address (in brackets).
fn is_loopback(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let address = host
        .strip_prefix('[')
        .and_then(|inner| inner.strip_suffix(']'))
        .unwrap_or(host);
    address
        .parse::<std::net::IpAddr>()
        .is_ok_and(|address| address.is_loopback())
}

/// What the user did with an [`ElicitRequest`], untyped.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation {
    /// Filled in the form and sent it.
    Accept(Map<String, Value>),
    /// Said no.
    Decline,
    /// Dismissed the question without choosing.
    Cancel,
}

/// What the user did with a question from [`Exec::elicit`](crate::Exec::elicit)
/// (a form, `T` its answer) or [`Exec::elicit_url`](crate::Exec::elicit_url)
/// (a URL, `T` the [`ElicitationId`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicited<T> {
    /// Filled in the form, its contents as `T`; or agreed to open the URL
    /// (which says nothing yet of what they did there).
    Accepted(T),
    /// Said no.
    Declined,
    /// Dismissed the question without choosing.
    Cancelled,
}

/// A request for a completion from the client's model.
///
/// ```
/// use dsh_kit::client::SampleRequest;
///
/// let request = SampleRequest::user("Summarise: …").max_tokens(200);
/// assert_eq!(request.messages.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SampleRequest {
    /// The conversation so far.
    pub messages: Vec<SampleMessage>,
    /// A system prompt the client may use.
    pub system_prompt: Option<String>,
    /// The most tokens the completion may have.
    pub max_tokens: u32,
}

impl SampleRequest {
    /// One user message, at most 1024 tokens back.
    pub fn user(text: impl Into<String>) -> Self {
        SampleRequest {
            messages: vec![SampleMessage {
                role: Role::User,
                text: text.into(),
            }],
            system_prompt: None,
            max_tokens: 1024,
        }
    }

    /// Sets the most tokens the completion may have.
    #[must_use]
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }
}

/// One text message of a [`SampleRequest`] or a [`Sample`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleMessage {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub text: String,
}

/// Who said a [`SampleMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// The client model's completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// The text of the completion (text blocks joined by newlines).
    pub text: String,
    /// The model that made it.
    pub model: String,
    /// Why it stopped, when the client says (`endTurn`, `maxTokens`, …).
    pub stop_reason: Option<String>,
}

/// Why a type cannot be asked for by elicitation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{type_name}` cannot be asked for by elicitation: {reason}; elicitation forms are flat objects whose properties are strings, numbers, integers, booleans, or enums of strings"
)]
pub struct ElicitSchemaError {
    /// The Rust type.
    pub type_name: &'static str,
    /// What is wrong.
    pub reason: NotElicitable,
}

/// What makes a type's schema something elicitation cannot ask for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotElicitable {
    /// The schema is `true` or `false`.
    #[error("its schema is `true` or `false`, not an object")]
    BooleanSchema,
    /// The schema's root is not an object.
    #[error("its schema is not an object (type {found})")]
    NotObject {
        /// The root's `type`, as JSON, or `unspecified`.
        found: String,
    },
    /// The object has no properties.
    #[error("it has no properties")]
    NoProperties,
    /// A property is not a primitive elicitation can ask for.
    #[error("property `{name}` {problem}")]
    Property {
        /// The property.
        name: String,
        /// What is wrong with it.
        problem: PropertyProblem,
    },
}

/// Why one property cannot be asked for by elicitation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PropertyProblem {
    /// Its schema is `true` or `false`.
    #[error("has a boolean schema")]
    BooleanSchema,
    /// It allows more than one type besides `null`.
    #[error("has several types ({types})")]
    SeveralTypes {
        /// The types, as a JSON array.
        types: String,
    },
    /// One of its choices is not an object.
    #[error("has a choice that is not an object")]
    ChoiceNotObject,
    /// One of its choices is not a string `const`.
    #[error("has a choice that is not a string constant")]
    ChoiceNotString,
    /// It is an array whose items are not enum choices.
    #[error(
        "is an array of free values; only arrays of enum choices (a multi-select) can be asked for"
    )]
    FreeArray,
    /// Its type is not a primitive.
    #[error("has type `{found}`, not a primitive")]
    NotPrimitive {
        /// The type it has.
        found: String,
    },
    /// It refers to another type.
    #[error("refers to another type; nested types cannot be asked for")]
    Nested,
    /// It says no type.
    #[error("has no type")]
    Untyped,
}

/// The elicitation form for `T`: its JSON Schema, checked to be what
/// elicitation allows (a flat object of primitive properties), with the
/// shapes schemars makes for `Option` fields and documented enums turned
/// into the ones elicitation accepts.
///
/// ```
/// use dsh_kit::client::elicitation_schema;
/// use dsh_kit::prelude::*;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Contact {
///     /// Your name
///     name: String,
///     /// Send the newsletter?
///     newsletter: Option<bool>,
/// }
///
/// let schema = elicitation_schema::<Contact>().unwrap();
/// assert_eq!(schema["properties"]["newsletter"]["type"], "boolean");
/// assert_eq!(schema["required"], serde_json::json!(["name"]));
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Nested {
///     contact: Contact,
/// }
/// assert!(elicitation_schema::<Nested>().is_err());
/// ```
pub fn elicitation_schema<T: JsonSchema + DeserializeOwned>() -> Result<Value, ElicitSchemaError> {
    let type_name = std::any::type_name::<T>();
    let fail = |reason: NotElicitable| ElicitSchemaError { type_name, reason };
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|settings| {
        settings.inline_subschemas = true;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let Value::Object(mut root) = schema.to_value() else {
        return Err(fail(NotElicitable::BooleanSchema));
    };
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err(fail(NotElicitable::NotObject {
            found: root
                .get("type")
                .map_or_else(|| "unspecified".to_owned(), Value::to_string),
        }));
    }
    let Some(Value::Object(properties)) = root.remove("properties") else {
        return Err(fail(NotElicitable::NoProperties));
    };
    let mut flat = Map::new();
    for (name, property) in properties {
        let property = match primitive(property) {
            Ok(property) => property,
            Err(problem) => return Err(fail(NotElicitable::Property { name, problem })),
        };
        flat.insert(name, property);
    }
    let mut form = Map::new();
    form.insert("type".to_owned(), Value::from("object"));
    for key in ["title", "description"] {
        if let Some(value) = root.remove(key) {
            form.insert(key.to_owned(), value);
        }
    }
    form.insert("properties".to_owned(), Value::Object(flat));
    if let Some(required) = root.remove("required") {
        form.insert("required".to_owned(), required);
    }
    Ok(Value::Object(form))
}

/// One property as elicitation accepts it, or what is wrong with it.
fn primitive(property: Value) -> Result<Value, PropertyProblem> {
    let Value::Object(mut property) = property else {
        return Err(PropertyProblem::BooleanSchema);
    };
    // `Option<T>`: `"type": ["T", "null"]`; the property is optional already.
    if let Some(Value::Array(types)) = property.get("type") {
        let types: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        let [single] = types.as_slice() else {
            return Err(PropertyProblem::SeveralTypes {
                types: Value::from(types.into_iter().cloned().collect::<Vec<_>>()).to_string(),
            });
        };
        let single = (*single).clone();
        property.insert("type".to_owned(), single);
    }
    // `Option<Enum>`: `anyOf: [{enum…}, {type: null}]`.
    if let Some(Value::Array(any_of)) = property.get("anyOf") {
        let kept: Vec<Value> = any_of
            .iter()
            .filter(|schema| schema.get("type") != Some(&Value::from("null")))
            .cloned()
            .collect();
        if let [Value::Object(only)] = kept.as_slice()
            && !only.contains_key("const")
        {
            let only = only.clone();
            property.remove("anyOf");
            for (key, value) in only {
                property.entry(key).or_insert(value);
            }
        }
    }
    // A documented unit enum: `oneOf: [{const, description}, …]`, each a
    // titled choice (the title is the description, or the value itself).
    if let Some(Value::Array(one_of)) = property.get_mut("oneOf") {
        titled_choices(one_of)?;
        property.insert("type".to_owned(), Value::from("string"));
    }
    // A multi-select of documented choices: `items.anyOf`, as elicitation has it.
    if let Some(Value::Object(items)) = property.get_mut("items")
        && let Some(Value::Array(mut choices)) =
            items.remove("oneOf").or_else(|| items.remove("anyOf"))
    {
        titled_choices(&mut choices)?;
        items.clear();
        items.insert("anyOf".to_owned(), Value::Array(choices));
    }
    match property.get("type").and_then(Value::as_str) {
        Some("string" | "number" | "integer" | "boolean") => {}
        Some("array") => {
            let items = property.get("items");
            let choices = items.is_some_and(|items| {
                items.get("enum").is_some()
                    || items.get("anyOf").is_some()
                    || items.get("oneOf").is_some()
            });
            if !choices {
                return Err(PropertyProblem::FreeArray);
            }
        }
        Some(other) => {
            return Err(PropertyProblem::NotPrimitive {
                found: other.to_owned(),
            });
        }
        None if property.contains_key("$ref") => return Err(PropertyProblem::Nested),
        None => return Err(PropertyProblem::Untyped),
    }
    // The string formats elicitation knows stay; schemars' integer formats go.
    if let Some(format) = property.remove("format")
        && matches!(
            format.as_str(),
            Some("email" | "uri" | "date" | "date-time")
        )
    {
        property.insert("format".to_owned(), format);
    }
    property.remove("$schema");
    Ok(Value::Object(property))
}

/// `[{const, description}, …]` as elicitation's `[{const, title}, …]`.
fn titled_choices(choices: &mut [Value]) -> Result<(), PropertyProblem> {
    for choice in choices {
        let Some(choice) = choice.as_object_mut() else {
            return Err(PropertyProblem::ChoiceNotObject);
        };
        let Some(value) = choice
            .get("const")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err(PropertyProblem::ChoiceNotString);
        };
        let title = choice
            .remove("title")
            .or_else(|| choice.remove("description"))
            .unwrap_or(Value::String(value.clone()));
        choice.clear();
        choice.insert("const".to_owned(), Value::String(value));
        choice.insert("title".to_owned(), title);
    }
    Ok(())
}

/// The [`ClientError`] of a call with no client.
pub(crate) fn no_client(what: &'static str) -> ClientError {
    ClientError::NoClient { what }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        };
        f.write_str(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Plan {
        /// The free plan
        Free,
        /// The paid plan
        Paid,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Signup {
        /// Your email
        email: String,
        age: Option<u32>,
        plan: Plan,
        score: f64,
    }

    #[test]
    fn a_flat_struct_is_a_form() {
        let schema = elicitation_schema::<Signup>().unwrap();
        assert_eq!(schema["type"], "object");
        assert_eq!(
            schema["properties"]["email"],
            json!({"type": "string", "description": "Your email"})
        );
        assert_eq!(schema["properties"]["age"]["type"], "integer");
        assert_eq!(
            schema["properties"]["plan"]["oneOf"],
            json!([{"const": "Free", "title": "The free plan"}, {"const": "Paid", "title": "The paid plan"}])
        );
        assert_eq!(schema["properties"]["plan"]["type"], "string");
        assert_eq!(schema["properties"]["score"]["type"], "number");
        assert_eq!(schema["required"], json!(["email", "plan", "score"]));
    }

    #[test]
    fn nested_and_free_arrays_are_refused_naming_the_property() {
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct Nested {
            signup: Signup,
        }
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct Tags {
            tags: Vec<String>,
        }
        for (error, expected) in [
            (
                elicitation_schema::<Nested>().unwrap_err(),
                "property `signup` has type `object`",
            ),
            (
                elicitation_schema::<Tags>().unwrap_err(),
                "property `tags` is an array of free values",
            ),
            (elicitation_schema::<String>().unwrap_err(), "not an object"),
        ] {
            assert!(error.to_string().contains(expected), "{error}");
        }
    }
}
