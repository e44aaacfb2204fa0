//! rmcp's `ServerHandler`: each MCP request, answered by the concept it
//! belongs to.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse,
    GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscriptionFilter, Tool, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::McpServer;

/// Writes the `ServerHandler` methods that answer one request: each is
/// written `fn name(&self, request: Params, context) -> Answer { body }` and
/// becomes `async fn name(&self, request: Params, context:
/// RequestContext<RoleServer>) -> Result<Answer, ErrorData> { body }`, so the
/// impl shows only what each request is answered with.
macro_rules! requests {
    ($(
        $(#[$attr:meta])*
        fn $name:ident(&$this:ident, $request:ident: $params:ty, $context:ident) -> $answer:ty $body:block
    )*) => {
        $(
            $(#[$attr])*
            async fn $name(
                &$this,
                $request: $params,
                $context: RequestContext<RoleServer>,
            ) -> Result<$answer, ErrorData> $body
        )*
    };
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_tasks()
            .build();
        self.offers.extend_capabilities(&mut capabilities);
        let config = ServerConfig::new(capabilities).with_server_info(self.info.clone());
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tool(name)
    }

    requests! {
        fn list_tools(&self, _request: Option<PaginatedRequestParams>, _context) -> ListToolsResult {
            self.tool_list()
        }

        fn call_tool(&self, request: CallToolRequestParams, context) -> CallToolResponse {
            self.answer_call(request, context).await
        }

        fn get_task(&self, request: GetTaskParams, _context) -> GetTaskResult {
            Ok(GetTaskResult::new(self.tasks.get(&request.task_id).await?))
        }

        fn cancel_task(&self, request: CancelTaskParams, _context) -> () {
            self.tasks.cancel(&request.task_id).await.map(drop)
        }

        /// No task of this server asks for input: responses are acknowledged
        /// and ignored, as the extension says of unknown keys.
        fn update_task(&self, request: UpdateTaskParams, _context) -> () {
            self.tasks.record(&request.task_id).await.map(drop)
        }

        /// Every provider's resources: first the MCP Apps card views, one `ui://`
        /// resource per tool that presents a card.
        fn list_resources(&self, _request: Option<PaginatedRequestParams>, _context) -> ListResourcesResult {
            Ok(self.offers.resources.list())
        }

        fn list_resource_templates(&self, _request: Option<PaginatedRequestParams>, _context) -> ListResourceTemplatesResult {
            Ok(self.offers.resources.templates())
        }

        fn read_resource(&self, request: ReadResourceRequestParams, _context) -> ReadResourceResponse {
            self.offers.resources.read(&request.uri).await.map(Into::into)
        }

        #[allow(deprecated, reason = "clients on the 2025 protocols subscribe this way")]
        fn subscribe(&self, request: rmcp::model::SubscribeRequestParams, context) -> () {
            let Some(updates) = self.offers.resources.update_sender() else {
                return Err(ErrorData::method_not_found::<rmcp::model::SubscribeRequestMethod>());
            };
            self.session.subscribe(request.uri, &context.peer, updates);
            Ok(())
        }

        #[allow(deprecated, reason = "clients on the 2025 protocols unsubscribe this way")]
        fn unsubscribe(&self, request: rmcp::model::UnsubscribeRequestParams, _context) -> () {
            self.session.unsubscribe(&request.uri);
            Ok(())
        }

        fn list_prompts(&self, _request: Option<PaginatedRequestParams>, _context) -> ListPromptsResult {
            Ok(self.offers.prompts.list())
        }

        fn get_prompt(&self, request: GetPromptRequestParams, _context) -> GetPromptResponse {
            self.offers.prompts.get(&request.name, request.arguments).map(Into::into)
        }

        fn complete(&self, request: CompleteRequestParams, _context) -> CompleteResult {
            self.offers.complete(&request)
        }

        #[allow(deprecated, reason = "clients on the 2025 protocols set the level this way")]
        fn set_level(&self, request: rmcp::model::SetLevelRequestParams, _context) -> () {
            self.session.set_log_level(request.level);
            Ok(())
        }

        fn initialize(&self, request: InitializeRequestParams, context) -> InitializeResult {
            self.initialize_session(request, context)
        }

        fn on_custom_request(&self, request: CustomRequest, _context) -> CustomResult {
            self.unread_request(request).await
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.start_list_changed(context);
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.listen_for_changes(context).await
    }
}
