"""Calls tools of a dsh MCP server with a W3C trace context in `_meta`,
through the official MCP Python SDK, for the telemetry tests.

    python otel_client.py --url http://127.0.0.1:PORT/mcp --traceparent TP [--legacy] CALL...

Each CALL is `TOOL=JSON`; every call carries `{"traceparent": TP}` in its
`_meta`. Prints one JSON line per call: the tool, `isError` and the text.
`examples/tests/it/telemetry.rs` runs it from the virtualenv of mcp.rs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
from mcp import Client

CALL_TIMEOUT = 20.0


async def run(url: str, traceparent: str, mode: str, calls: list[tuple[str, dict[str, Any]]]) -> None:
    with anyio.fail_after(60):
        async with Client(url, read_timeout_seconds=CALL_TIMEOUT, mode=mode) as client:
            await client.list_tools()
            for name, arguments in calls:
                result = await client.call_tool(name, arguments, meta={"traceparent": traceparent})
                text = "\n".join(
                    block.text for block in result.content if getattr(block, "type", None) == "text"
                )
                print(json.dumps({"tool": name, "is_error": bool(result.is_error), "text": text}))
            print(json.dumps({"protocol": client.protocol_version}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True)
    parser.add_argument("--traceparent", required=True)
    parser.add_argument("--legacy", action="store_true", help="the initialize handshake (2025-11-25)")
    parser.add_argument("calls", nargs="+", help="TOOL=JSON")
    options = parser.parse_args()
    calls = []
    for call in options.calls:
        name, _, arguments = call.partition("=")
        calls.append((name, json.loads(arguments)))
    anyio.run(run, options.url, options.traceparent, "legacy" if options.legacy else "auto", calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
