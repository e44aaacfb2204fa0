//! What a server offers beside its tools: resources, prompts, and the
//! completions of prompt arguments.

pub(crate) mod cache;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod skills;
pub(crate) mod status;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ListResourcesResult, ReadResourceResult,
    Reference, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use crate::mcp::apps;
use prompts::Prompts;
use resources::Resources;

use super::{McpServer, caller};

/// What a server offers beside its tools.
#[derive(Clone)]
pub(super) struct Offers {
    pub(super) resources: Resources,
    pub(super) prompts: Prompts,
}

impl Offers {
    /// Declares what the offers need beside tools and resources.
    pub(super) fn extend_capabilities(&self, capabilities: &mut ServerCapabilities) {
        // Tools log to their client through `Exec::log`.
        #[allow(
            deprecated,
            reason = "logging is how the 2025 protocols carry a tool's log"
        )]
        {
            capabilities.logging = Some(Default::default());
        }
        if !self.prompts.is_empty() {
            capabilities.prompts = Some(Default::default());
            capabilities.completions = Some(Default::default());
        }
        if self.resources.update_sender().is_some()
            && let Some(resources) = &mut capabilities.resources
        {
            resources.subscribe = Some(true);
        }
    }

    /// `completion/complete`.
    pub(super) fn complete(
        &self,
        request: &CompleteRequestParams,
    ) -> Result<CompleteResult, ErrorData> {
        let completion = match &request.r#ref {
            Reference::Prompt(prompt) => self.prompts.complete(
                &prompt.name,
                &request.argument.name,
                &request.argument.value,
            )?,
            // Templates suggest nothing (yet): an empty list is a valid answer.
            _ => CompletionInfo::default(),
        };
        Ok(CompleteResult::new(completion))
    }
}

impl McpServer {
    /// `resources/list`, as the caller: the card view of a tool hidden from
    /// it is left out.
    pub(super) fn resource_list(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> ListResourcesResult {
        let view = self.caller(caller::principal(context));
        let mut list = self.offers.resources.list();
        list.resources
            .retain(|resource| !apps::hides_card(&view, &resource.uri));
        list
    }

    /// `resources/read`, as the caller: the card view of a tool hidden from
    /// it is not found, as an address nothing serves.
    pub(super) async fn read_resource_as(
        &self,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        if apps::hides_card(&self.caller(caller::principal(context)), uri) {
            return Err(apps::no_card(uri));
        }
        self.offers.resources.read(uri).await
    }
}
