//! The names OpenTelemetry's semantic conventions give what dsh-kit traces:
//! the GenAI conventions' tool execution (`execute_tool {gen_ai.tool.name}`)
//! and the MCP conventions' server and client operations
//! (`{mcp.method.name} {target}`), in one place.
//!
//! Every call makes a `tracing` span named [`EXECUTE_TOOL_SPAN`] with these
//! attributes; the MCP server makes one named [`MCP_SERVER_SPAN`] per
//! request, and a proxied tool's call one named [`MCP_CLIENT_SPAN`]. They
//! also carry `tracing-opentelemetry`'s own fields, `otel.name` (the
//! conventions' span name), `otel.kind` and `otel.status_code`, so a host
//! that bridges `tracing` to OpenTelemetry gets spans by the conventions
//! without code of its own. With no subscriber they cost a check of a
//! cached flag.
//!
//! (`tracing`'s span macros take their field names as literal tokens: the
//! spans spell the same names as these constants, which the metrics and the
//! tests read.)

/// The `tracing` name of the span of one call (its OpenTelemetry name is
/// `execute_tool {gen_ai.tool.name}`, in `otel.name`).
pub const EXECUTE_TOOL_SPAN: &str = "execute_tool";
/// The `tracing` name of the MCP server's span of one request (its
/// OpenTelemetry name is `{mcp.method.name} {target}`, in `otel.name`).
pub const MCP_SERVER_SPAN: &str = "mcp.server";
/// The `tracing` name of the span of a request a proxy sends to an MCP server.
pub const MCP_CLIENT_SPAN: &str = "mcp.client";

/// `gen_ai.operation.name`: `execute_tool` on a call's span.
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// The operation name of a tool's execution.
pub const EXECUTE_TOOL: &str = "execute_tool";
/// `gen_ai.tool.name`: the tool's name.
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.tool.call.id`: the call's id (its invocation id).
pub const GEN_AI_TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
/// `gen_ai.tool.type`: `function` for every dsh tool, run in the process.
pub const GEN_AI_TOOL_TYPE: &str = "gen_ai.tool.type";
/// `gen_ai.tool.description`: the tool's description.
pub const GEN_AI_TOOL_DESCRIPTION: &str = "gen_ai.tool.description";
/// `gen_ai.tool.call.arguments`: the arguments, as JSON, only when the
/// host opts in ([`RegistryBuilder::trace_payloads`](crate::RegistryBuilder::trace_payloads)).
pub const GEN_AI_TOOL_CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
/// `gen_ai.tool.call.result`: the result's text, only when the host opts in.
pub const GEN_AI_TOOL_CALL_RESULT: &str = "gen_ai.tool.call.result";
/// `error.type`: on a failed call, its [`Cause`](crate::Cause) in
/// snake case (`invalid_arguments`, `denied`, `tool`, `timeout`, …); on an
/// MCP request, `tool_error` for a tool result with `isError`, else the
/// JSON-RPC error code.
pub const ERROR_TYPE: &str = "error.type";
/// `error.type` of an MCP `tools/call` whose result has `isError` set.
pub const TOOL_ERROR: &str = "tool_error";

/// `mcp.method.name`: the request's method (`tools/call`).
pub const MCP_METHOD_NAME: &str = "mcp.method.name";
/// `mcp.protocol.version`: the protocol version the request speaks.
pub const MCP_PROTOCOL_VERSION: &str = "mcp.protocol.version";
/// `mcp.session.id`: the session, for a request made in one.
pub const MCP_SESSION_ID: &str = "mcp.session.id";
/// `jsonrpc.request.id`: the JSON-RPC id of the request.
pub const JSONRPC_REQUEST_ID: &str = "jsonrpc.request.id";
/// `rpc.response.status_code`: the JSON-RPC error code of a request that failed.
pub const RPC_RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
/// `network.transport`: `tcp` for streamable HTTP, `pipe` for stdio.
pub const NETWORK_TRANSPORT: &str = "network.transport";

/// The histogram of calls' durations, in seconds.
pub const GEN_AI_EXECUTE_TOOL_DURATION: &str = "gen_ai.execute_tool.duration";
/// The histogram of MCP requests' durations on the server, in seconds.
pub const MCP_SERVER_OPERATION_DURATION: &str = "mcp.server.operation.duration";
/// The histogram of MCP requests' durations as their sender saw them (a
/// proxied tool's call, from the request sent to the answer read), in
/// seconds.
pub const MCP_CLIENT_OPERATION_DURATION: &str = "mcp.client.operation.duration";
/// The counter of calls refused before their tool ran, by `error.type`
/// (`unknown_tool`, `unavailable`, `invalid_arguments`, `denied`, `rejected`).
pub const DSH_TOOL_REFUSALS: &str = "dsh.tool.refusals";

/// The bucket boundaries the GenAI conventions advise for
/// [`GEN_AI_EXECUTE_TOOL_DURATION`], in seconds.
pub const GEN_AI_DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
/// The bucket boundaries the MCP conventions advise for
/// [`MCP_SERVER_OPERATION_DURATION`] and [`MCP_CLIENT_OPERATION_DURATION`],
/// in seconds.
pub const MCP_DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// The most bytes of arguments or result text an opted-in span attribute
/// holds; longer ones are cut at a character boundary and end with `…`.
pub const PAYLOAD_ATTRIBUTE_LIMIT: usize = 4096;
