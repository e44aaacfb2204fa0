//! rmcp's `ServerHandler`: each MCP request, answered by the concept it
//! belongs to.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, GetTaskParams, GetTaskResult, Implementation,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscriptionFilter, Tool, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::{McpServer, caller, lifecycle, trace};
use crate::mcp::server::offers::skills;

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_tasks()
            .build();
        self.offers.extend_capabilities(&mut capabilities);
        skills::declare(self.registry.skills(), &mut capabilities);
        let config =
            ServerConfig::new(capabilities).with_server_info(Implementation::clone(&self.info));
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.to_string()),
            None => config,
        }
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tool(name)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        trace::traced("tools/list", None, &context, async {
            self.tool_list(&context)
        })
        .await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A cancel that reached another replica finds the call by its
        // session: a call on none (a stateless request) is never found
        // that way, and is not tracked.
        let _running = super::caller::session_id(&context.extensions).map(|session| {
            (self.session.calls).track(session, context.id.to_string(), context.ct.clone())
        });
        let span = trace::call_span(&request.name, &context);
        trace::traced_call(span, self.answer_call(request, &context)).await
    }

    async fn on_cancelled(
        &self,
        notification: rmcp::model::CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) {
        trace::notification_span("notifications/cancelled", &context)
            .in_scope(|| self.cancel_elsewhere(notification, &context));
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let owner = caller::task_owner(&context.extensions);
        let getting = async {
            Ok(GetTaskResult::new(
                self.tasks.get(&request.task_id, &owner).await?,
            ))
        };
        trace::traced("tasks/get", None, &context, getting).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = caller::task_owner(&context.extensions);
        let cancelling = async { self.tasks.cancel(&request.task_id, &owner).await.map(drop) };
        trace::traced("tasks/cancel", None, &context, cancelling).await
    }

    /// The answers to a task's input requests, for its runner.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let owner = caller::task_owner(&context.extensions);
        self.tasks
            .update(&request.task_id, &owner, request.input_responses)
            .await
    }

    /// Every provider's resources: first the MCP Apps card views, one `ui://`
    /// resource per tool that presents a card and the caller may see.
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        trace::traced("resources/list", None, &context, async {
            Ok(self.resource_list(&context))
        })
        .await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(self.offers.resources.templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let reading = async {
            self.read_resource_as(&request.uri, &context)
                .await
                .map(Into::into)
        };
        trace::traced("resources/read", Some(&request.uri), &context, reading).await
    }

    #[allow(
        deprecated,
        reason = "clients on the 2025 protocols subscribe this way"
    )]
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        lifecycle::removed(
            "resources/subscribe",
            context.meta.protocol_version().as_ref(),
        )?;
        let Some(updates) = self.offers.resources.update_sender() else {
            return Err(ErrorData::method_not_found::<
                rmcp::model::SubscribeRequestMethod,
            >());
        };
        self.session.subscribe(request.uri, &context.peer, updates);
        Ok(())
    }

    #[allow(
        deprecated,
        reason = "clients on the 2025 protocols unsubscribe this way"
    )]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        lifecycle::removed(
            "resources/unsubscribe",
            context.meta.protocol_version().as_ref(),
        )?;
        self.session.unsubscribe(&request.uri);
        Ok(())
    }

    /// The registry's skills, a page at a time, in URI order.
    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let cursor = request.and_then(|request| request.cursor);
        trace::traced("skills/list", None, &context, async {
            Ok(skills::list(self.registry.skills(), cursor.as_deref()))
        })
        .await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let getting = async { skills::get(self.registry.skills(), &request.uri) };
        trace::traced("skills/get", Some(&request.uri), &context, getting).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(self.offers.prompts.list())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let target = request.name.clone();
        let getting = self.answer_prompt(request, &context);
        trace::traced("prompts/get", Some(&target), &context, getting).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.offers.complete(&request)
    }

    #[allow(
        deprecated,
        reason = "clients on the 2025 protocols set the level this way"
    )]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        lifecycle::removed("logging/setLevel", context.meta.protocol_version().as_ref())?;
        self.session.set_log_level(request.level);
        Ok(())
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        lifecycle::removed("initialize", context.meta.protocol_version().as_ref())?;
        let initializing = async { self.initialize_session(request, &context) };
        trace::traced("initialize", None, &context, initializing).await
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let owner = caller::task_owner(&context.extensions);
        let protocol = context.meta.protocol_version();
        self.unread_request(request, protocol.as_ref(), &owner)
            .await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let span = trace::notification_span("notifications/initialized", &context);
        span.in_scope(|| self.start_list_changed(context));
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
