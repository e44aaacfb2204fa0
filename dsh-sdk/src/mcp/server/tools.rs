//! `tools/list` and `tools/call`: the registry's export, and a call run
//! through the pipeline, as a task, or as multi-round-trip input.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorCode, InputRequiredResult, ListToolsResult,
    TASKS_EXTENSION_ID, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;
use std::sync::Arc;

use crate::export::{Format, export_tool};
use crate::mcp::apps;
use crate::mcp::session::{ProgressForward, RoundTrip};
use crate::mcp::task::Finish;
use crate::mcp::wire::{Reader, complete, declares, mcp_tool, request_state, structures};
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
        let tools = crate::mcp::status::marked(
            &self.registry,
            self.mcp_tools(&view, declares(context, VALUES_EXTENSION))?,
        );
        Ok(crate::mcp::cache::tools_list(tools))
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
        let reader = Reader::of(context, self.result_shape);
        let object_output_only = reader.object_output_only;
        let args = Value::Object(request.arguments.unwrap_or_default());
        let tasks = view
            .get(&request.name)
            .map_or(TaskSupport::Forbidden, |tool| {
                tool.definition().task_support()
            });
        if tasks != TaskSupport::Forbidden {
            let takes_tasks = context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.supports_tasks());
            if takes_tasks {
                return self
                    .start_task(&request.name, args, principal, context, reader)
                    .await;
            }
            if tasks == TaskSupport::Required {
                return Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!(
                        "`{}` runs only as a task, and this client did not declare the `{TASKS_EXTENSION_ID}` extension",
                        request.name
                    ),
                    None,
                ));
            }
        }
        // MCP 2026-07-28 has no requests from server to client: what a tool
        // asks of the client goes back in an `InputRequiredResult`, and the
        // retry brings the answers and the state given here.
        let round_trip = (!object_output_only).then(|| RoundTrip::new(request.input_responses));
        // Hashing the arguments costs; only a retry or a call that may
        // need input uses the state.
        let state = (round_trip.is_some() || request.request_state.is_some())
            .then(|| request_state(&request.name, &args));
        if let Some(echoed) = &request.request_state
            && Some(echoed) != state.as_ref()
        {
            return Err(ErrorData::invalid_params(
                "`requestState` is not the one this server gave for this tool and these arguments",
                None,
            ));
        }
        let call = ToolCall::new(request.name.as_ref(), args)
            .cancel_on(context.ct.clone())
            .client(self.session.client(
                &context.peer,
                context.protocol_version(),
                context.client_capabilities(),
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
                    return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                        Some(needed),
                        state,
                    )));
                }
            },
        };
        if let Some(progress) = progress {
            progress.finish().await;
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
    /// A task outlives its request: no client to reach, no cancel but
    /// `tasks/cancel`.
    async fn start_task(
        &self,
        name: &str,
        args: Value,
        principal: Arc<Principal>,
        context: &RequestContext<RoleServer>,
        reader: Reader,
    ) -> Result<CallToolResponse, ErrorData> {
        let owner = caller::task_owner(&context.extensions);
        // The task's call goes through this session: a tool search it
        // makes loads into this session's list.
        let call = ToolCall::new(name, args).made_by(&principal, Some(&self.searches));
        let registry = self.registry.clone();
        let owned = name.to_owned();
        let finish: Finish = Box::new(move |result| {
            let call = complete(&registry, &owned, result, reader);
            serde_json::to_value(call).unwrap_or_default()
        });
        let task = (self.tasks)
            .start(&self.registry, name, call, &owner, finish)
            .await?;
        Ok(CallToolResponse::Task(task))
    }
}
