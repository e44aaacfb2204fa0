"""Drives the example MCP server with the official MCP Python SDK.

A client nobody on this project wrote: it lists the tools, checks every
input and output schema against the JSON Schema 2020-12 meta-schema, calls
every tool and checks each structuredContent against its tool's outputSchema,
sends bad arguments, cancels a slow call, and receives progress. Then it
lists the server's skills (the Skills extension, `skills/list` and
`skills/get`, sent as plain requests: the SDK has no methods of its own for
them) and reads each file of one, checking it against its digest and size.

    python mcp_client.py --stdio PATH/TO/dsh-mcp-server --events EVENTS.jsonl
    python mcp_client.py --url http://127.0.0.1:PORT/mcp --events EVENTS.jsonl

With --stdio the script starts the server itself; with --url the server must
have been started with `--allow edit_file --allow bash --events EVENTS.jsonl`.
`examples/tests/mcp.rs` runs it both ways, from a virtualenv it makes.
"""

from __future__ import annotations

import argparse
import base64
import functools
import hashlib
import http.server
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Literal

import anyio
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequest, Request, RequestParams
from pydantic import TypeAdapter

SERVER_ARGS = ["--allow", "edit_file", "--allow", "bash"]
CALL_TIMEOUT = 20.0


def fail(message: str) -> None:
    raise AssertionError(message)


def check(condition: bool, message: str) -> None:
    if not condition:
        fail(message)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


class Fixtures:
    """A directory with a file to read, edit and grep, served over HTTP for `fetch`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.notes = root / "notes.txt"
        self.notes.write_text("hello world\nsecond line\n")
        (root / "index.html").write_text(
            "<html><head><title>Fixture</title></head><body><p>fetched over HTTP</p></body></html>"
        )
        handler = functools.partial(QuietHandler, directory=str(root))
        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/index.html"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


def known_calls(fx: Fixtures) -> dict[str, tuple[dict[str, Any], str]]:
    """Arguments that must succeed for each example tool, and a text the content must hold."""
    return {
        "greet": ({"name": "Ada"}, "Hello, Ada!"),
        "read_file": ({"path": str(fx.notes)}, "second line"),
        "add_days": ({"date": "2024-02-28", "days": 1}, "2024-02-29"),
        "edit_file": ({"path": str(fx.notes), "old": "world", "new": "there"}, "there"),
        "wait": ({"millis": 150}, "waited 150 ms"),
        "lorem": ({"paragraphs": 3}, "3. Lorem ipsum"),
        "bash": ({"command": "echo from-bash"}, "from-bash"),
        "grep": ({"pattern": "second", "path": str(fx.root)}, "second line"),
        "fetch": ({"url": fx.url}, "fetched over HTTP"),
    }


def sample(schema: dict[str, Any]) -> Any:
    """A value for a schema, for a tool this script does not know yet."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        return {
            name: sample(schema.get("properties", {}).get(name, {}))
            for name in schema.get("required", [])
        }
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "null":
        return None
    return "x"


def check_schemas(tools: list[Any]) -> None:
    check(len(tools) > 0, "the server lists no tools")
    for tool in tools:
        check(bool(tool.description), f"`{tool.name}` has no description")
        try:
            Draft202012Validator.check_schema(tool.input_schema)
        except Exception as error:  # jsonschema's SchemaError, with the details
            fail(f"the inputSchema of `{tool.name}` is not valid JSON Schema 2020-12: {error}")
        check(tool.input_schema.get("type") == "object", f"the inputSchema of `{tool.name}` is not an object")
        if tool.output_schema is not None:
            try:
                Draft202012Validator.check_schema(tool.output_schema)
            except Exception as error:
                fail(f"the outputSchema of `{tool.name}` is not valid JSON Schema 2020-12: {error}")
        annotations = tool.annotations
        check(annotations is not None, f"`{tool.name}` has no annotations")


def check_annotations(by_name: dict[str, Any]) -> None:
    expected = {
        "greet": dict(
            read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        ),
        "read_file": dict(
            read_only_hint=True, destructive_hint=False, idempotent_hint=False, open_world_hint=None
        ),
        "edit_file": dict(read_only_hint=False, destructive_hint=True, idempotent_hint=False),
        "fetch": dict(read_only_hint=True, idempotent_hint=True, open_world_hint=True),
    }
    fetch_meta = by_name["fetch"].meta or {}
    check(
        fetch_meta.get("com.example/network") == "http"
        and fetch_meta.get("com.example/max_bytes") == 2_000_000,
        f"`fetch` has _meta {fetch_meta!r}, expected its own entries",
    )
    for name, hints in expected.items():
        check(name in by_name, f"`{name}` is not listed")
        for hint, value in hints.items():
            actual = getattr(by_name[name].annotations, hint)
            check(actual == value, f"`{name}` has {hint}={actual!r}, expected {value!r}")


def validator(schema: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


async def call_every_tool(client: Client, tools: list[Any], fx: Fixtures) -> None:
    calls = known_calls(fx)
    listed = {tool.name for tool in tools}
    stale = sorted(set(calls) - listed)
    check(not stale, f"tools this script calls are not listed: {stale}")
    for tool in tools:
        known = tool.name in calls
        args, expected_text = calls.get(tool.name, (sample(tool.input_schema), ""))
        result = await client.call_tool(tool.name, args, read_timeout_seconds=CALL_TIMEOUT)
        text = text_of(result)
        check(text.strip() != "", f"`{tool.name}` returned empty text content")
        if known:
            check(not result.is_error, f"`{tool.name}` failed with {args}: {text}")
            check(expected_text in text, f"`{tool.name}` returned {text!r}, expected it to hold {expected_text!r}")
        if result.is_error:
            continue
        if tool.output_schema is not None:
            check(
                result.structured_content is not None,
                f"`{tool.name}` declares an outputSchema but sent no structuredContent",
            )
            errors = sorted(validator(tool.output_schema).iter_errors(result.structured_content), key=str)
            check(
                not errors,
                f"the structuredContent of `{tool.name}` breaks its outputSchema: "
                + "; ".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors),
            )
    check("there" in fx.notes.read_text(), "`edit_file` did not change the file")


async def typed_failure(client: Client, by_name: dict[str, Any], fx: Fixtures) -> None:
    """A tool's failure shapes in tools/list, and a failure as the result carries it."""
    schema = (by_name["edit_file"].meta or {}).get("dsh/failureSchema")
    check(isinstance(schema, dict), "`edit_file` lists no failure schema in its _meta")
    kinds = [branch["properties"]["kind"]["const"] for branch in schema["oneOf"]]
    check(
        kinds == ["InvalidInput", "NoMatchesFound", "AmbiguousMatch", "Io"],
        f"`edit_file` declares the failure kinds {kinds!r}",
    )
    result = await client.call_tool(
        "edit_file",
        {"path": str(fx.notes), "old": "no such text", "new": "x"},
        read_timeout_seconds=CALL_TIMEOUT,
    )
    check(result.is_error is True, "an edit of text the file lacks succeeded")
    failure = (result.meta or {}).get("dsh/failure")
    expected = {"cause": "tool", "kind": "NoMatchesFound", "data": {"path": os.path.realpath(fx.notes)}}
    check(failure == expected, f"the failure is {failure!r}, expected {expected!r}")
    carried = {"kind": failure["kind"], "data": failure["data"]}
    errors = sorted(validator(schema).iter_errors(carried), key=str)
    check(not errors, f"the failure breaks the failure schema: {'; '.join(e.message for e in errors)}")


async def bad_arguments(client: Client) -> None:
    result = await client.call_tool("greet", {"name": 4})
    check(result.is_error is True, "a wrong type was accepted")
    check(
        text_of(result) == 'invalid arguments for `greet`: /name: 4 is not of type "string"',
        f"unexpected text for a wrong type: {text_of(result)!r}",
    )

    result = await client.call_tool("add_days", {"date": "yesterday", "days": 99999})
    check(result.is_error is True, "arguments that break two constraints were accepted")
    text = text_of(result)
    for part in ("/date", "/days", "36500"):
        check(part in text, f"the error for bad add_days arguments does not mention {part!r}: {text!r}")

    result = await client.call_tool("read_file", {})
    check(result.is_error is True, "a missing argument was accepted")
    check("/path: required property missing" in text_of(result), f"unexpected text: {text_of(result)!r}")

    try:
        await client.call_tool("gret", {"name": "Ada"})
    except MCPError as error:
        check("`greet`" in str(error), f"the unknown-tool error names no close tool: {error}")
    else:
        fail("calling an unknown tool did not raise a protocol error")


async def progress(client: Client) -> None:
    received: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        received.append((progress, total, message))

    result = await client.call_tool(
        "wait", {"millis": 350}, read_timeout_seconds=CALL_TIMEOUT, progress_callback=on_progress
    )
    check(not result.is_error, f"`wait` failed: {text_of(result)}")
    messages = [message for _, _, message in received]
    check(len(received) >= 3, f"expected at least 3 progress notifications, got {received}")
    check(messages[-1] == "350 of 350 ms", f"unexpected progress messages: {messages}")
    values = [value for value, _, _ in received]
    check(values == sorted(values) and len(set(values)) == len(values), f"progress does not grow: {values}")


def read_events(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def cancel(client: Client, events: Path) -> None:
    started = time.monotonic()
    with anyio.move_on_after(0.4) as scope:
        await client.call_tool("wait", {"millis": 1800}, read_timeout_seconds=CALL_TIMEOUT)
    check(scope.cancelled_caught, "the slow call finished before it was cancelled")

    # The server must have stopped the call, not run it to the end: its
    # result event says `cancelled`, well before the 1.8 s were up.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        results = [
            event["payload"]
            for event in read_events(events)
            if event["type"] == "tool.invoke.result" and event["payload"]["tool_name"] == "wait"
        ]
        if results and results[-1]["status"] != "success":
            break
        await anyio.sleep(0.05)
    else:
        fail(f"the server did not report the cancelled `wait` call in {events}")
    last = results[-1]
    check(last["status"] == "cancelled", f"the cancelled call ended as {last['status']}: {last}")
    check(time.monotonic() - started < 1.8, "the cancelled call ran to the end")

    # The session goes on.
    result = await client.call_tool("greet", {"name": "again"})
    check(text_of(result) == "Hello, again!", f"unexpected text after a cancel: {text_of(result)!r}")


SKILLS = "io.modelcontextprotocol/skills"
RAW = TypeAdapter(dict[str, Any])


class ListSkillsRequest(PaginatedRequest[Literal["skills/list"]]):
    """`skills/list`, which the SDK does not know."""

    method: Literal["skills/list"] = "skills/list"


class GetSkillParams(RequestParams):
    uri: str


class GetSkillRequest(Request[GetSkillParams, Literal["skills/get"]]):
    """`skills/get`, which the SDK does not know."""

    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


async def skills(client: Client) -> int:
    """Lists and gets the example skill, and reads each of its files."""
    extensions = client.server_capabilities.extensions or {}
    check(extensions.get(SKILLS) == {}, f"the server does not declare {SKILLS}: {extensions}")
    listed = await client.session.send_request(ListSkillsRequest(), RAW)
    check("nextCursor" not in listed, f"one page holds the example's skills: {listed}")
    by_uri = {entry["uri"]: entry for entry in listed["skills"]}
    uri = "skill://edit-safely/SKILL.md"
    check(uri in by_uri, f"{uri} is not listed: {sorted(by_uri)}")
    entry = by_uri[uri]
    check(entry["frontmatter"]["name"] == "edit-safely", f"unexpected front matter: {entry['frontmatter']}")
    got = await client.session.send_request(GetSkillRequest(params=GetSkillParams(uri=uri)), RAW)
    check(got["skill"] == entry, f"skills/get differs from skills/list: {got['skill']} vs {entry}")
    files = entry["resources"]
    check(
        [file["uri"] for file in files] == [uri, "skill://edit-safely/references/CHECKLIST.md"],
        f"unexpected files: {files}",
    )
    for file in files:
        read = await client.read_resource(file["uri"])
        contents = read.contents[0]
        text = getattr(contents, "text", None)
        data = text.encode() if text is not None else base64.b64decode(contents.blob)
        check(len(data) == file["size"], f"{file['uri']}: {len(data)} bytes, the manifest says {file['size']}")
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        check(digest == file["digest"], f"{file['uri']}: digest {digest}, the manifest says {file['digest']}")
        if file["uri"] == uri:
            check(text is not None and text.startswith("---\nname: edit-safely\n"), f"SKILL.md reads {text!r}")
    try:
        await client.session.send_request(
            GetSkillRequest(params=GetSkillParams(uri="skill://nobody/SKILL.md")), RAW
        )
    except MCPError as error:
        check(error.code == -32602, f"an unknown skill is {error.code}, not -32602 (invalid params)")
    else:
        fail("skills/get of an unknown skill succeeded")
    return len(listed["skills"])


async def run(target: Any, events: Path, mode: str) -> None:
    with tempfile.TemporaryDirectory(prefix="dsh-mcp-client-") as root:
        fx = Fixtures(Path(root))
        try:
            with anyio.fail_after(120):
                async with Client(target, read_timeout_seconds=CALL_TIMEOUT, mode=mode) as client:
                    listed = await client.list_tools()
                    tools = listed.tools
                    check_schemas(tools)
                    check_annotations({tool.name: tool for tool in tools})
                    await call_every_tool(client, tools, fx)
                    await typed_failure(client, {tool.name: tool for tool in tools}, fx)
                    await bad_arguments(client)
                    await progress(client)
                    await cancel(client, events)
                    listed = await skills(client)
                    print(
                        f"ok: {len(tools)} tools and {listed} skills over protocol {client.protocol_version}: "
                        "schemas, calls, bad arguments, progress, cancel, skills"
                    )
        finally:
            fx.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--stdio", help="the server binary, started with stdio")
    where.add_argument("--url", help="the streamable HTTP URL of a running server")
    parser.add_argument("--events", required=True, help="the file the server appends its RAWP events to")
    parser.add_argument(
        "--legacy",
        action="store_true",
        help="use the initialize handshake (protocol 2025-11-25) instead of server/discover",
    )
    options = parser.parse_args()
    events = Path(options.events)
    if options.stdio:
        target: Any = StdioServerParameters(
            command=options.stdio, args=[*SERVER_ARGS, "--events", str(events)]
        )
    else:
        target = options.url
    try:
        anyio.run(run, target, events, "legacy" if options.legacy else "auto")
    except BaseException as error:
        failed = assertion_in(error)
        if failed is None:
            raise
        print(f"FAILED: {failed}", file=sys.stderr)
        return 1
    return 0


def assertion_in(error: BaseException) -> AssertionError | None:
    """The check that failed, out of the exception groups task groups wrap it in."""
    if isinstance(error, AssertionError):
        return error
    for inner in getattr(error, "exceptions", ()):
        found = assertion_in(inner)
        if found is not None:
            return found
    return None


if __name__ == "__main__":
    sys.exit(main())
