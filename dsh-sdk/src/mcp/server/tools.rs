//! `tools/list` and `tools/call`: the registry's export, and a call run
//! through the pipeline, as a task, or as multi-round-trip input.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorCode, InputResponses, ListToolsResult,
    TASKS_EXTENSION_ID, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use std::sync::Arc;

use crate::export::{Format, export_tool};
use crate::mcp::apps;
use crate::mcp::request_state::binding;
use crate::mcp::session::{ProgressForward, RoundTrip, missing_capability};
use crate::mcp::tasks::Finish;
use crate::mcp::wire::{Reader, complete, declares, mcp_tool, structures};
use crate::pipeline::ToolCall;
use crate::registry::CallerView;
use crate::tool::TaskSupport;
use crate::value::principal::Principal;
use crate::value::result::Cause;
use crate::value::wire_keys::VALUES_EXTENSION;

use super::{McpServer, caller};

impl McpServer {
    /// The registry as `principal` sees it through this session: the tools
    /// it may see, and the deferred tools this session's tool search loaded.
    pub(super) fn caller(&self, principal: Arc<Principal>) -> CallerView {
        self.registry
            .as_caller(principal)
            .in_session(&self.searches)
    }

    /// The MCP definitions of the tools `caller` may see; `takes_values`:
    /// the client declared [`VALUES_EXTENSION`], and every tool lists its
    /// `outputSchema`.
    fn mcp_tools(&self, caller: &CallerView, takes_values: bool) -> Result<Vec<Tool>, ErrorData> {
        match caller.export(Format::Mcp) {
            Value::Array(tools) => tools
                .into_iter()
                .map(|tool| {
                    let structured = tool
                        .get("name")
                        .and_then(Value::as_str)
                        .and_then(|name| self.registry.get(name))
                        .is_none_or(|info| takes_values || structures(&info, self.result_shape));
                    mcp_tool(tool, structured)
                        .map(|tool| apps::link_card_view(&self.registry, tool))
                })
                .collect(),
            _ => Ok(Vec::new()),
        }
    }

    /// `tools/list`: the tools the caller may see, with their statuses marked.
    pub(super) fn tool_list(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let view = self.caller(caller::principal(context));
        let tools = crate::mcp::server::offers::status::marked(
            &self.registry,
            self.mcp_tools(&view, declares(context, VALUES_EXTENSION))?,
        );
        Ok(crate::mcp::server::offers::cache::tools_list(tools))
    }

    /// One tool's MCP definition, made once per registration of the tool.
    pub(super) fn tool(&self, name: &str) -> Option<Tool> {
        let tool = self.registry.get(name)?;
        let definition = self.definitions.get_or_make(&tool, || {
            mcp_tool(
                export_tool(&tool, Format::Mcp),
                structures(&tool, self.result_shape),
            )
            .ok()
            .map(|made| apps::link_card_view(&self.registry, made))
        })?;
        Some(Tool::clone(&definition))
    }

    /// `tools/call`, as the caller: a tool hidden from it is unknown.
    pub(super) async fn answer_call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let principal = caller::principal(context);
        let view = self.caller(Arc::clone(&principal));
        // Read from the request's `_meta` (2026-07-28) once: each read
        // decodes them again.
        let protocol = context.protocol_version();
        let capabilities = context.client_capabilities();
        let reader = Reader::of(protocol.as_ref(), capabilities.as_ref(), self.result_shape);
        let object_output_only = reader.object_output_only;
        let args = Value::Object(request.arguments.unwrap_or_default());
        let (tasks, asks_first) =
            view.get(&request.name)
                .map_or((TaskSupport::Forbidden, false), |tool| {
                    let definition = tool.definition();
                    (definition.task_support(), definition.asks_first())
                });
        // MCP 2026-07-28 has no requests from server to client: what a tool
        // asks of the client goes back in an `InputRequiredResult`, and the
        // retry brings the answers and the state given here.
        let retry = request.input_responses.is_some() || request.request_state.is_some();
        let round_trip = self.round_trip(
            !object_output_only,
            || binding("tools/call", &request.name, &args),
            request.input_responses,
            request.request_state.as_deref(),
        )?;
        if tasks != TaskSupport::Forbidden {
            let takes_tasks =
                (capabilities.as_ref()).is_some_and(|capabilities| capabilities.supports_tasks());
            // A tool that asks first runs in the request until a round
            // brings answers; that round becomes the task, which starts
            // with them.
            let in_request = asks_first && !retry && round_trip.is_some();
            if takes_tasks && !in_request {
                return self
                    .start_task(&request.name, args, principal, context, reader, round_trip)
                    .await;
            }
            if tasks == TaskSupport::Required && !takes_tasks {
                let message = format!(
                    "`{}` runs only as a task, and this client did not declare the `{TASKS_EXTENSION_ID}` extension",
                    request.name
                );
                // 2026-07-28 names the capability missing (-32021);
                // 2025-11-25 answers an unknown method.
                if object_output_only {
                    return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, message, None));
                }
                let required = json!({ "extensions": { TASKS_EXTENSION_ID: {} } });
                return Err(ErrorData::new(
                    ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                    message,
                    Some(json!({ "requiredCapabilities": required })),
                ));
            }
        }
        let call = ToolCall::new(request.name.as_ref(), args)
            .cancel_on(context.ct.clone())
            .client(self.session.client(
                &context.peer,
                protocol,
                capabilities,
                context.meta.log_level(),
                round_trip.clone(),
            ));
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| ProgressForward::start(&self.registry, call.id(), token, &context.peer));
        let result = match &round_trip {
            None => view.call_with(call).await,
            Some(round_trip) => tokio::select! {
                result = view.call_with(call) => result,
                // The call is dropped, and runs again with the answer.
                needed = round_trip.needed() => {
                    if let Some(progress) = progress {
                        progress.finish().await;
                    }
                    return Ok(CallToolResponse::InputRequired(
                        self.input_required(round_trip, needed),
                    ));
                }
            },
        };
        if let Some(progress) = progress {
            progress.finish().await;
        }
        if result.failure.is_some()
            && let Some(capability) = round_trip.as_deref().and_then(RoundTrip::missing)
        {
            return Err(missing_capability(capability));
        }
        let unknown =
            result.failure.as_ref().map(|failure| failure.cause) == Some(Cause::UnknownTool);
        if unknown {
            // The pipeline's message names the closest tools.
            return Err(ErrorData::invalid_params(result.text(), None));
        }
        Ok(CallToolResponse::Complete(complete(
            &self.registry,
            &request.name,
            result,
            reader,
        )))
    }

    /// Runs the call of `name` as a task, answering at once with the task.
    /// A task outlives its request: no cancel but `tasks/cancel`, and no
    /// client to reach but, on 2026-07-28, through `input_required` and
    /// `tasks/update`, starting with the answers `answered` holds (those
    /// the request brought, for a tool that asked first).
    async fn start_task(
        &self,
        name: &str,
        args: Value,
        principal: Arc<Principal>,
        context: &RequestContext<RoleServer>,
        reader: Reader,
        answered: Option<Arc<RoundTrip>>,
    ) -> Result<CallToolResponse, ErrorData> {
        let owner = caller::task_owner(&context.extensions);
        // The task's call goes through this session: a tool search it
        // makes loads into this session's list.
        // On 2026-07-28 what the tool asks of the client waits in the task
        // (`input_required`) for `tasks/update` to answer it.
        let input = (!reader.object_output_only).then(|| {
            answered.unwrap_or_else(|| {
                RoundTrip::new(binding("tools/call", name, &args), InputResponses::new())
            })
        });
        let mut call = ToolCall::new(name, args).made_by(&principal, Some(&self.searches));
        if let Some(input) = &input {
            call = call.client(self.session.client(
                &context.peer,
                context.protocol_version(),
                context.client_capabilities(),
                context.meta.log_level(),
                Some(Arc::clone(input)),
            ));
        }
        let registry = self.registry.clone();
        let owned = name.to_owned();
        let finish: Finish = Box::new(move |result| {
            let call = complete(&registry, &owned, result, reader);
            serde_json::to_value(call).unwrap_or_default()
        });
        let task = (self.tasks)
            .start(&self.registry, name, call, &owner, finish, input)
            .await?;
        Ok(CallToolResponse::Task(task))
    }
}
