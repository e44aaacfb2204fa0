//! Resources an [`McpServer`](crate::mcp::McpServer) serves beside its tools:
//! fixed ones ([`StaticResource`]), families at addresses that match a
//! template ([`ResourceTemplate`]), and any [`ResourceProvider`] — the MCP
//! Apps card views are one.

use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate as McpResourceTemplate,
};
use serde_json::json;

use crate::mcp::server::offers::cache;
use crate::mcp::stores::bus::{BusEvent, BusSlot};

/// What [`ResourceProvider::read`] gives: the contents at the address, or
/// `None` when the address is not the provider's.
pub type ReadResource<'a> = BoxFuture<'a, Option<Result<Vec<ResourceContents>, ErrorData>>>;

/// A source of resources: what it lists, the templates it answers, and what
/// it reads. [`McpServer::resource`](crate::mcp::McpServer::resource) adds one;
/// the server asks each in turn, in the order they were added.
pub trait ResourceProvider: Send + Sync + 'static {
    /// The resources it lists in `resources/list`.
    fn resources(&self) -> Vec<Resource>;

    /// The templates it lists in `resources/templates/list`.
    fn templates(&self) -> Vec<McpResourceTemplate> {
        Vec::new()
    }

    /// The contents at `uri`, or `None` when `uri` is not one of its own.
    fn read<'a>(&'a self, uri: &'a str) -> ReadResource<'a>;
}

/// A resource with fixed contents at a fixed address.
///
/// ```
/// use dsh_kit::mcp::StaticResource;
///
/// let readme = StaticResource::text("docs://readme", "readme", "# Hello")
///     .mime_type("text/markdown")
///     .description("What this server is for");
/// # drop(readme);
/// ```
#[derive(Clone, Debug)]
pub struct StaticResource {
    resource: Resource,
    contents: ResourceContents,
}

impl StaticResource {
    /// Text at `uri`, named `name`, of type `text/plain` until
    /// [`mime_type`](Self::mime_type) says otherwise.
    pub fn text(uri: impl Into<String>, name: impl Into<String>, text: impl Into<String>) -> Self {
        let uri = uri.into();
        StaticResource {
            resource: Resource::new(uri.clone(), name).with_mime_type("text/plain"),
            contents: ResourceContents::TextResourceContents {
                uri,
                mime_type: Some("text/plain".to_owned()),
                text: text.into(),
                meta: None,
            },
        }
    }

    /// Bytes at `uri`, given base64-encoded, of media type `mime_type`.
    pub fn blob(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        base64: impl Into<String>,
    ) -> Self {
        let uri = uri.into();
        let mime_type = mime_type.into();
        StaticResource {
            resource: Resource::new(uri.clone(), name).with_mime_type(mime_type.clone()),
            contents: ResourceContents::BlobResourceContents {
                uri,
                mime_type: Some(mime_type),
                blob: base64.into(),
                meta: None,
            },
        }
    }

    /// Sets what the resource is (`description`).
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.resource = self.resource.with_description(description);
        self
    }

    /// Sets the name people see (`title`).
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.resource = self.resource.with_title(title);
        self
    }

    /// Sets the media type, listed and read.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        let mime_type = mime_type.into();
        self.resource = self.resource.with_mime_type(mime_type.clone());
        match &mut self.contents {
            ResourceContents::TextResourceContents { mime_type: m, .. }
            | ResourceContents::BlobResourceContents { mime_type: m, .. } => {
                *m = Some(mime_type);
            }
            _ => {}
        }
        self
    }

    fn uri(&self) -> &str {
        &self.resource.uri
    }
}

impl ResourceProvider for StaticResource {
    fn resources(&self) -> Vec<Resource> {
        vec![self.resource.clone()]
    }

    fn read<'a>(&'a self, uri: &'a str) -> ReadResource<'a> {
        let found = (uri == self.uri()).then(|| Ok(vec![self.contents.clone()]));
        Box::pin(std::future::ready(found))
    }
}

/// The values a [`ResourceTemplate`] matched, by variable name.
pub type TemplateParams = std::collections::BTreeMap<String, String>;

type ReadFn = dyn Fn(&str, &TemplateParams) -> Result<ResourceContents, ErrorData> + Send + Sync;

/// Resources at every address that matches a URI template such as
/// `test://template/{id}/data`: a variable matches one or more characters
/// up to the next `/` (RFC 6570's simple expansion, the form MCP hosts use).
///
/// ```
/// use dsh_kit::mcp::{ResourceTemplate, rmcp::model::ResourceContents};
///
/// let users = ResourceTemplate::new("users://{id}/profile", "user profile", |uri, params| {
///     Ok(ResourceContents::text(format!("the profile of {}", params["id"]), uri))
/// })
/// .description("A user's profile");
/// # drop(users);
/// ```
#[derive(Clone)]
pub struct ResourceTemplate {
    template: McpResourceTemplate,
    pattern: UriPattern,
    read: Arc<ReadFn>,
}

impl ResourceTemplate {
    /// The resources at `uri_template`; `read` gets the address and the
    /// values of its variables.
    ///
    /// # Panics
    ///
    /// When `uri_template` is malformed (an unclosed `{`, an empty or
    /// adjacent variable): templates are written by the server's author.
    pub fn new(
        uri_template: impl Into<String>,
        name: impl Into<String>,
        read: impl Fn(&str, &TemplateParams) -> Result<ResourceContents, ErrorData>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        let uri_template = uri_template.into();
        let pattern = match UriPattern::parse(&uri_template) {
            Ok(pattern) => pattern,
            Err(error) => panic!("{error}"),
        };
        ResourceTemplate {
            template: McpResourceTemplate::new(uri_template, name),
            pattern,
            read: Arc::new(read),
        }
    }

    /// Sets what the resources are (`description`).
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.template.description = Some(description.into());
        self
    }

    /// Sets the media type of the resources.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.template.mime_type = Some(mime_type.into());
        self
    }
}

impl fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceTemplate")
            .field("uri_template", &self.template.uri_template)
            .finish_non_exhaustive()
    }
}

impl ResourceProvider for ResourceTemplate {
    fn resources(&self) -> Vec<Resource> {
        Vec::new()
    }

    fn templates(&self) -> Vec<McpResourceTemplate> {
        vec![self.template.clone()]
    }

    fn read<'a>(&'a self, uri: &'a str) -> ReadResource<'a> {
        let found = self
            .pattern
            .matches(uri)
            .map(|params| (self.read)(uri, &params).map(|contents| vec![contents]));
        Box::pin(std::future::ready(found))
    }
}

/// A parsed URI template: literal text and `{variable}`s.
///
/// Hand-written: the URI-template crates expand templates, none matches an
/// address against one, and simple variables are all MCP hosts use.
#[derive(Clone, Debug, PartialEq, Eq)]
struct UriPattern(Vec<Part>);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

/// What is wrong with a URI template.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("the URI template `{template}` is malformed: {problem}")]
struct TemplateError {
    template: String,
    problem: TemplateProblem,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum TemplateProblem {
    #[error("two variables in a row cannot be told apart")]
    AdjacentVariables,
    #[error("a `{{` is never closed")]
    Unclosed,
    #[error("`{{{0}}}` is not a simple variable (letters, digits, `_`)")]
    NotSimple(String),
    #[error("a `}}` has no `{{`")]
    Unopened,
}

impl UriPattern {
    fn parse(template: &str) -> Result<Self, TemplateError> {
        let bad = |problem| TemplateError {
            template: template.to_owned(),
            problem,
        };
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            } else if matches!(parts.last(), Some(Part::Variable(_))) {
                return Err(bad(TemplateProblem::AdjacentVariables));
            }
            let Some(close) = rest[open..].find('}') else {
                return Err(bad(TemplateProblem::Unclosed));
            };
            let name = &rest[open + 1..open + close];
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return Err(bad(TemplateProblem::NotSimple(name.to_owned())));
            }
            parts.push(Part::Variable(name.to_owned()));
            rest = &rest[open + close + 1..];
        }
        if rest.contains('}') {
            return Err(bad(TemplateProblem::Unopened));
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriPattern(parts))
    }

    /// The variables' values when `uri` matches.
    fn matches(&self, uri: &str) -> Option<TemplateParams> {
        let mut params = TemplateParams::new();
        let mut rest = uri;
        let mut parts = self.0.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(literal) => rest = rest.strip_prefix(literal.as_str())?,
                Part::Variable(name) => {
                    // Up to the next literal (or the end), never across a `/`.
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() || value.contains('/') {
                        return None;
                    }
                    params.insert(name.clone(), value.to_owned());
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(params)
    }
}

/// Every provider of a server, in the order they were added.
#[derive(Clone, Default)]
pub(crate) struct Resources {
    providers: Vec<Arc<dyn ResourceProvider>>,
    /// The bus updates are announced on, once the server offers updates.
    updates: Option<BusSlot>,
}

impl Resources {
    pub(crate) fn add(&mut self, provider: Arc<dyn ResourceProvider>) {
        self.providers.push(provider);
    }

    /// Offers updates, announced on `bus`.
    pub(crate) fn updates(&mut self, bus: &BusSlot) -> BusSlot {
        self.updates.get_or_insert_with(|| bus.clone()).clone()
    }

    /// The bus updates are announced on, when the server offers them.
    pub(crate) fn update_sender(&self) -> Option<&BusSlot> {
        self.updates.as_ref()
    }

    pub(crate) fn list(&self) -> ListResourcesResult {
        ListResourcesResult::with_all_items(self.gathered(|provider| provider.resources()))
            .with_ttl_ms(cache::TTL_MS)
            .with_cache_scope(cache::SCOPE)
    }

    pub(crate) fn templates(&self) -> ListResourceTemplatesResult {
        ListResourceTemplatesResult::with_all_items(self.gathered(|provider| provider.templates()))
            .with_ttl_ms(cache::TTL_MS)
            .with_cache_scope(cache::SCOPE)
    }

    /// What every provider lists, in the order they were added.
    fn gathered<T>(&self, listed: impl Fn(&dyn ResourceProvider) -> Vec<T>) -> Vec<T> {
        self.providers
            .iter()
            .flat_map(|provider| listed(provider.as_ref()))
            .collect()
    }

    pub(crate) async fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        for provider in &self.providers {
            if let Some(contents) = provider.read(uri).await {
                return contents.map(|contents| {
                    ReadResourceResult::new(contents)
                        .with_ttl_ms(cache::TTL_MS)
                        .with_cache_scope(cache::SCOPE)
                });
            }
        }
        Err(ErrorData::resource_not_found(
            format!(
                "no resource at `{uri}`: `resources/list` and `resources/templates/list` say what this server serves"
            ),
            Some(json!({ "uri": uri })),
        ))
    }
}

/// Announces that a resource changed, to every session subscribed to it
/// (`notifications/resources/updated`), on every replica the server's
/// [event bus](crate::mcp::EventBus) reaches. From
/// [`McpServer::resource_updates`](crate::mcp::McpServer::resource_updates).
#[derive(Clone, Debug)]
pub struct ResourceUpdates(pub(crate) BusSlot);

impl ResourceUpdates {
    /// The resource at `uri` changed.
    pub fn updated(&self, uri: impl Into<String>) {
        self.0
            .publish(BusEvent::ResourceUpdated { uri: uri.into() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_simple_variables() {
        let pattern = UriPattern::parse("test://template/{id}/data").unwrap();
        assert_eq!(
            pattern.matches("test://template/123/data"),
            Some(TemplateParams::from([("id".to_owned(), "123".to_owned())]))
        );
        assert_eq!(pattern.matches("test://template/1/2/data"), None);
        assert_eq!(pattern.matches("test://template//data"), None);
        assert_eq!(pattern.matches("test://template/123/data/more"), None);
        let tail = UriPattern::parse("users://{org}/{name}").unwrap();
        assert_eq!(
            tail.matches("users://acme/ada").map(|p| p["name"].clone()),
            Some("ada".to_owned())
        );
    }

    #[test]
    fn malformed_templates_say_what_is_wrong() {
        for (template, problem, why) in [
            ("a://{id", TemplateProblem::Unclosed, "never closed"),
            (
                "a://{}",
                TemplateProblem::NotSimple(String::new()),
                "not a simple variable",
            ),
            (
                "a://{a}{b}",
                TemplateProblem::AdjacentVariables,
                "two variables in a row",
            ),
            ("a://b}", TemplateProblem::Unopened, "has no `{`"),
        ] {
            let error = UriPattern::parse(template).unwrap_err();
            assert_eq!(error.problem, problem, "{template}");
            let error = error.to_string();
            assert!(error.contains(why), "{template}: {error}");
        }
    }
}
