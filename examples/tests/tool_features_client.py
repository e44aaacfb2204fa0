"""Drives header parameters and URL elicitation with the official MCP Python SDK.

    python tool_features_client.py --url http://127.0.0.1:PORT/mcp [--legacy]

Lists the tools, calls `find_order` (whose `region` and `tenant` the client
mirrors into `Mcp-Param-*` headers on 2026-07-28), calls it again with a
`Mcp-Param-Region` header that contradicts the body, and calls `calendar`
twice, accepting then declining the URL it is sent to. Prints what it saw
as one JSON object on its last line; `examples/tests/it/mcp_tool_features.rs`
checks it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
import mcp.client.session as client_session
from mcp import Client, types
from mcp.shared.exceptions import MCPError

CALL_TIMEOUT = 20.0


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def run(url: str, mode: str) -> dict[str, Any]:
    seen: dict[str, Any] = {"elicitations": [], "completions": []}
    answers = ["accept", "decline"]

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        seen["elicitations"].append(
            {
                "mode": params.mode,
                "message": params.message,
                "url": getattr(params, "url", None),
                "elicitationId": getattr(params, "elicitation_id", None),
            }
        )
        return types.ElicitResult(action=answers.pop(0))

    async def on_message(message: Any) -> None:
        if getattr(message, "method", None) == "notifications/elicitation/complete":
            seen["completions"].append(message.params.elicitation_id)

    with anyio.fail_after(90):
        async with Client(
            url,
            read_timeout_seconds=CALL_TIMEOUT,
            mode=mode,
            elicitation_callback=on_elicit,
            message_handler=on_message,
        ) as client:
            seen["protocol"] = client.protocol_version
            listed = await client.list_tools()
            seen["tools"] = {tool.name: tool.input_schema for tool in listed.tools}
            found = await client.call_tool("find_order", {"region": "eu-west", "tenant": 7, "order": 42})
            seen["find_order"] = {"error": found.is_error, "text": text_of(found)}

            # A header that says another region than the body: what a
            # gateway routing on the header would be fooled by.
            honest = client_session.mcp_param_headers

            def lying(header_map: Any, arguments: Any) -> dict[str, str]:
                headers = honest(header_map, arguments)
                if "Mcp-Param-Region" in headers:
                    headers["Mcp-Param-Region"] = "us-east"
                return headers

            client_session.mcp_param_headers = lying
            try:
                lied = await client.call_tool("find_order", {"region": "eu-west", "order": 42})
                seen["mismatch"] = {"error": lied.is_error, "text": text_of(lied)}
            except MCPError as error:
                seen["mismatch"] = {"code": error.error.code, "text": error.error.message}
            except Exception as error:  # the transport's own error, with the status
                seen["mismatch"] = {"text": f"{type(error).__name__}: {error}"}
            finally:
                client_session.mcp_param_headers = honest

            accepted = await client.call_tool("calendar", {})
            seen["accepted"] = {"error": accepted.is_error, "text": text_of(accepted)}
            declined = await client.call_tool("calendar", {})
            seen["declined"] = {"error": declined.is_error, "text": text_of(declined)}
            # The completion notice travels on its own: give it a moment.
            await anyio.sleep(0.2)
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="the streamable HTTP URL of the server")
    parser.add_argument("--legacy", action="store_true", help="use the initialize handshake (2025-11-25)")
    options = parser.parse_args()
    seen = anyio.run(run, options.url, "legacy" if options.legacy else "auto")
    print(json.dumps(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
