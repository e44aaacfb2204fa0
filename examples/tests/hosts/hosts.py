"""The Python hosts of the host matrix (examples/tests/it/hosts.rs).

Each starts the example server over stdio, makes the calls in the cases file
through the host's own code, and writes, for each, the text its model would
be handed, as one JSON object a line: {"host", "case", "model"}. No model
provider is reached: each framework gets its own kind of fake model, which
asks for the call and records the tool message it is handed next.

- `python-sdk`: the official MCP Python SDK. It builds no model message: a
  host on it hands the model the result's `content`, so the text blocks are
  what is measured.
- `pydantic-ai`: an `Agent` with an `MCPToolset` and a `FunctionModel`; the
  tool return (or retry prompt, for a failed call) is converted by
  `_map_mcp_call_tool_result` and measured as `model_response_str()` (or
  `model_response()`), the text its providers send.
- `openai-agents`: an `Agent` with `MCPServerStdio` and a `Model` of our own;
  `MCPUtil.invoke_mcp_tool` converts the result and the runner makes the
  `function_call_output` item of the model's next input.
- `langchain`: langchain-mcp-adapters' tools (`load_mcp_tools`), called with
  a tool call as an agent's tool node calls them; the `ToolMessage` they
  return is what the model is handed. It needs `mcp` 1, so it runs from a
  virtualenv of its own (`langchain-requirements.txt`).

Usage: python hosts.py SERVER CASES.json OUT.jsonl HOST...
"""

import asyncio
import json
import sys

SERVER, CASES, OUT = sys.argv[1:4]
HOSTS = sys.argv[4:]
SERVER_ARGS = ["--allow", "edit_file"]
with open(CASES, encoding="utf-8") as file:
    cases = json.load(file)


def record(host, case, model):
    with open(OUT, "a", encoding="utf-8") as file:
        file.write(json.dumps({"host": host, "case": case, "model": model}) + "\n")


def block_text(block):
    return block.text if getattr(block, "type", None) == "text" else block.model_dump_json()


async def python_sdk():
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=SERVER, args=SERVER_ARGS)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for case in cases:
            result = await session.call_tool(case["tool"], case["args"])
            record("python-sdk", case["case"], "\n".join(block_text(b) for b in result.content))


async def pydantic_ai():
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    toolset = MCPToolset(StdioTransport(command=SERVER, args=SERVER_ARGS))
    for case in cases:
        handed = []

        def model(messages, info, case=case, handed=handed):
            request = messages[-1]
            answers = [
                part
                for part in request.parts
                if getattr(part, "tool_call_id", None) == "call-1" and isinstance(request, ModelRequest)
            ]
            if not answers:
                return ModelResponse(parts=[ToolCallPart(case["tool"], case["args"], tool_call_id="call-1")])
            for part in answers:
                if hasattr(part, "model_response_str"):
                    handed.append(part.model_response_str())
                else:
                    handed.append(part.model_response())
            return ModelResponse(parts=[TextPart("done")])

        agent = Agent(FunctionModel(model), toolsets=[toolset])
        async with agent:
            await agent.run("go")
        if not handed:
            raise SystemExit(f"pydantic-ai: the model was never handed the result of {case['case']}")
        record("pydantic-ai", case["case"], "\n".join(handed))


async def openai_agents():
    from agents import Agent, Runner, set_tracing_disabled
    from agents.items import ModelResponse
    from agents.mcp import MCPServerStdio
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    class Recorder(Model):
        """Asks for the case's call, then keeps the `function_call_output` it is handed."""

        def __init__(self, case):
            self.case = case
            self.handed = None

        async def get_response(self, system_instructions, input, *args, **kwargs):
            outputs = [
                item
                for item in (input if isinstance(input, list) else [])
                if isinstance(item, dict) and item.get("type") == "function_call_output"
            ]
            if not outputs:
                call = ResponseFunctionToolCall(
                    type="function_call",
                    call_id="call-1",
                    name=self.case["tool"],
                    arguments=json.dumps(self.case["args"]),
                )
                return ModelResponse(output=[call], usage=Usage(), response_id=None)
            self.handed = "\n".join(output_text(item["output"]) for item in outputs)
            message = ResponseOutputMessage(
                id="m-1",
                type="message",
                role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text="done", annotations=[])],
            )
            return ModelResponse(output=[message], usage=Usage(), response_id=None)

        def stream_response(self, *args, **kwargs):
            raise NotImplementedError("the host matrix runs without streaming")

    def output_text(output):
        if isinstance(output, str):
            return output
        return "\n".join(
            part["text"] if isinstance(part, dict) and "text" in part else json.dumps(part) for part in output
        )

    set_tracing_disabled(True)
    async with MCPServerStdio({"command": SERVER, "args": SERVER_ARGS}, client_session_timeout_seconds=30) as server:
        for case in cases:
            model = Recorder(case)
            agent = Agent(name="host-matrix", model=model, mcp_servers=[server])
            await Runner.run(agent, "go", max_turns=3)
            if model.handed is None:
                raise SystemExit(f"openai-agents: the model was never handed the result of {case['case']}")
            record("openai-agents", case["case"], model.handed)


async def langchain():
    from langchain_mcp_adapters.tools import load_mcp_tools
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=SERVER, args=SERVER_ARGS)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name: tool for tool in await load_mcp_tools(session)}
        for case in cases:
            call = {"type": "tool_call", "id": "call-1", "name": case["tool"], "args": case["args"]}
            message = await tools[case["tool"]].ainvoke(call)
            content = message.content
            if not isinstance(content, str):
                content = "\n".join(
                    part["text"] if isinstance(part, dict) and part.get("type") == "text" else json.dumps(part)
                    for part in content
                )
            record("langchain", case["case"], content)


DRIVERS = {
    "python-sdk": python_sdk,
    "pydantic-ai": pydantic_ai,
    "openai-agents": openai_agents,
    "langchain": langchain,
}


async def main():
    for host in HOSTS:
        await DRIVERS[host]()


asyncio.run(main())
