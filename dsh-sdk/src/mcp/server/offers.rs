//! What a server offers beside its tools: resources, prompts, and the
//! completions of prompt arguments.

use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, Reference, ServerCapabilities,
};

use crate::mcp::prompts::Prompts;
use crate::mcp::resources::Resources;

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
