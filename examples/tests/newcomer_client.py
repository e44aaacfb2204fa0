"""Drives the README's served quick start with the official MCP Python SDK.

The server is a fresh crate made from README.md alone: three tools over
streamable HTTP, `append_line` destructive and allowed the way the README
says. The script lists them and calls each, the destructive one included,
and checks what each answered.

    python newcomer_client.py URL FILE
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

TIMEOUT = 20.0


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def run(url: str, file: Path) -> None:
    with anyio.fail_after(60):
        async with Client(url, read_timeout_seconds=TIMEOUT) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            check(
                sorted(tools) == ["append_line", "count_words", "shout"],
                f"the server lists {sorted(tools)!r}",
            )
            annotations = tools["append_line"].annotations
            check(
                annotations is not None and annotations.destructive_hint is True,
                f"`append_line` is not marked destructive: {annotations!r}",
            )

            counted = await client.call_tool("count_words", {"text": "one two three"})
            check(counted.is_error is not True, f"count_words failed: {text_of(counted)!r}")
            check(text_of(counted) == "3 words", f"count_words said {text_of(counted)!r}")

            shouted = await client.call_tool("shout", {"text": "quiet please"})
            check(shouted.is_error is not True, f"shout failed: {text_of(shouted)!r}")
            check(text_of(shouted) == "QUIET PLEASE", f"shout said {text_of(shouted)!r}")

            for line in ["first", "second"]:
                appended = await client.call_tool("append_line", {"path": str(file), "line": line})
                check(
                    appended.is_error is not True,
                    f"the destructive `append_line` was refused or failed: {text_of(appended)!r}",
                )
            check(
                file.read_text() == "first\nsecond\n",
                f"`append_line` left {file.read_text()!r} in {file}",
            )
    print("ok: the README's three tools, the destructive one included")


def main() -> int:
    url, file = sys.argv[1], Path(sys.argv[2])
    try:
        anyio.run(run, url, file)
    except AssertionError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
