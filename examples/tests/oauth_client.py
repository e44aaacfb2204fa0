"""The official MCP Python SDK as the client of a protected dsh server.

    python oauth_client.py URL ISSUER CLIENT_ID CLIENT_SECRET SCOPE [ROUNDS]

Connects to the MCP server at URL with no token; the SDK's client
credentials provider follows the server's 401 to its protected resource
metadata (RFC 9728), then to the authorization server's metadata, gets a
token for the server's resource URI, and retries. Then it lists the tools,
calls `whoami` (which answers with the caller the server authenticated) and
`write_note`, and prints what it saw. With ROUNDS, does all of it that
many times in a row, each with a new HTTP client and no token, and fails
on the first round that goes wrong (a transport error included). Exits
non-zero on anything unexpected.
"""

from __future__ import annotations

import json
import sys

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.auth import TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client


class Memory(TokenStorage):
    def __init__(self) -> None:
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens) -> None:
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info) -> None:
        self.client_info = client_info


def check(condition: bool, message: str) -> None:
    if not condition:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)


async def run(url: str, issuer: str, client_id: str, secret: str, scope: str, rounds: str = "1") -> None:
    for round_ in range(int(rounds)):
        try:
            seen = await flow(url, issuer, client_id, secret, scope)
        except Exception as error:  # noqa: BLE001 - any failure of a round is reported
            check(False, f"round {round_ + 1} of {rounds}: {type(error).__name__}: {error!r}")
    seen["rounds"] = int(rounds)
    print(json.dumps(seen))


async def flow(url: str, issuer: str, client_id: str, secret: str, scope: str) -> dict:
    storage = Memory()
    auth = ClientCredentialsOAuthProvider(
        server_url=url,
        storage=storage,
        client_id=client_id,
        client_secret=secret,
        scope=scope,
        issuer=issuer,
    )
    with anyio.fail_after(60):
        async with httpx2.AsyncClient(auth=auth, timeout=30) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = sorted(tool.name for tool in (await session.list_tools()).tools)
                    check(tools == ["whoami", "write_note"], f"the tools listed: {tools}")
                    me = await session.call_tool("whoami", {})
                    check(not me.is_error, f"whoami failed: {me}")
                    caller = me.structured_content
                    check(caller is not None and caller.get("subject") == client_id, f"whoami says {caller}")
                    written = await session.call_tool("write_note", {"text": "from Python"})
                    check(not written.is_error, f"write_note failed: {written}")
    check(storage.tokens is not None, "no token was stored")
    return {"tools": tools, "caller": caller, "scope": storage.tokens.scope}


def main() -> int:
    if len(sys.argv) not in (6, 7):
        print(__doc__, file=sys.stderr)
        return 2
    anyio.run(run, *sys.argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
