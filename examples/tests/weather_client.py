"""Drives the quick start crate's `weather-server` with the official MCP Python SDK.

The server is a crate that depends on dsh-kit alone (and tokio): its
helper types (a field enum, nested and generic structs, a newtype) and its
typed error derive through dsh-kit's re-exports. The script checks what a
client sees of them: the input schema's enum, the output schema, the
failure shapes in `tools/list` `_meta["dsh/failureSchema"]`, a success's
structured content against the output schema, and a failure in the
result's `_meta["dsh/failure"]` against the failure schema.

    python weather_client.py PATH/TO/weather-server
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.client.stdio import StdioServerParameters

TIMEOUT = 20.0


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def errors(schema: dict[str, Any], value: Any) -> list[str]:
    Draft202012Validator.check_schema(schema)
    return sorted(error.message for error in Draft202012Validator(schema).iter_errors(value))


async def run(server: str) -> None:
    target = StdioServerParameters(command=server, args=[])
    with anyio.fail_after(120):
        async with Client(target, read_timeout_seconds=TIMEOUT) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            check(list(tools) == ["weather"], f"the server lists {list(tools)!r}")
            tool = tools["weather"]

            unit = tool.input_schema["$defs"]["Unit"]
            check(unit.get("enum") == ["celsius", "fahrenheit"], f"the unit's schema is {unit!r}")
            check(tool.output_schema is not None, "`weather` lists no output schema")

            failure_schema = (tool.meta or {}).get("dsh/failureSchema")
            check(isinstance(failure_schema, dict), f"`weather` lists no failure schema: {tool.meta!r}")
            kinds = [branch["properties"]["kind"]["const"] for branch in failure_schema["oneOf"]]
            check(kinds == ["UnknownCity", "Offline", "TooMany"], f"the failure kinds are {kinds!r}")

            ok = await client.call_tool("weather", {"place": {"city": "Oslo"}, "unit": "fahrenheit"})
            check(ok.is_error is not True, f"a good call failed: {text_of(ok)!r}")
            value = ok.structured_content
            check(
                value is not None and value["readings"]["items"][0] == {"value": 21.5, "unit": "fahrenheit"},
                f"the structured content is {value!r}",
            )
            broken = errors(tool.output_schema, value)
            check(not broken, f"the result breaks the output schema: {broken}")

            bad = await client.call_tool("weather", {"place": {"city": ""}, "unit": "celsius"})
            check(bad.is_error is True, "a call for a city with no name succeeded")
            check("unknown city" in text_of(bad), f"the failure's text is {text_of(bad)!r}")
            failure = (bad.meta or {}).get("dsh/failure")
            expected = {"cause": "tool", "kind": "UnknownCity", "data": {"city": ""}}
            check(failure == expected, f"the failure is {failure!r}, expected {expected!r}")
            broken = errors(failure_schema, {"kind": failure["kind"], "data": failure["data"]})
            check(not broken, f"the failure breaks the failure schema: {broken}")

            wrong = await client.call_tool("weather", {"place": {"city": "Oslo"}, "unit": "kelvin"})
            check(wrong.is_error is True, "a unit outside the enum was accepted")
            check("/unit" in text_of(wrong), f"the error does not name /unit: {text_of(wrong)!r}")
    print("ok: weather's helper types, output schema and typed failure as the Python SDK sees them")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        anyio.run(run, sys.argv[1])
    except AssertionError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
