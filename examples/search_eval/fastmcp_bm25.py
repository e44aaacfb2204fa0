"""Ranks the evaluation's queries with FastMCP's BM25 tool-search transform.

Driven by `cargo run --release --example search_eval`, which installs FastMCP
into a virtualenv under target/ and writes the catalog and the queries:

    python fastmcp_bm25.py CATALOG.json QUERIES.json LIMIT OUT.json

CATALOG.json is a list of `{name, description, input_schema}`, QUERIES.json
a list of `{text, own}`, where `own`, when not null, is a definition that
takes the place of the catalog's tool of its name while that query is
searched (the question's own definition of its answer). OUT.json gets
`{"version", "ranked": [[name, ...], ...], "seconds": [...]}`: each query's
best `LIMIT` tool names, best first, and how long each search took, not
counting the index build a swapped definition sets off.
"""

import asyncio
import json
import sys
import time
from importlib.metadata import version

from fastmcp.server.transforms.search.bm25 import BM25SearchTransform
from fastmcp.tools.base import Tool


async def main() -> None:
    catalog_path, queries_path, limit, out_path = sys.argv[1:5]
    with open(catalog_path, encoding="utf-8") as f:
        catalog = json.load(f)
    with open(queries_path, encoding="utf-8") as f:
        queries = json.load(f)

    def tool(definition):
        return Tool(
            name=definition["name"],
            description=definition["description"],
            parameters=definition["input_schema"],
        )

    tools = [tool(definition) for definition in catalog]
    at = {definition["name"]: i for i, definition in enumerate(catalog)}
    transform = BM25SearchTransform(max_results=int(limit))

    # The queries with no swap first, then those with one, grouped by the
    # definition swapped in: the transform rebuilds its index only when
    # the tools it is given change.
    def key(i):
        own = queries[i]["own"]
        return (own is not None, json.dumps(own, sort_keys=True))

    ranked = [None] * len(queries)
    seconds = [0.0] * len(queries)
    for i in sorted(range(len(queries)), key=key):
        query = queries[i]
        searched = tools
        if query["own"] is not None:
            searched = list(tools)
            searched[at[query["own"]["name"]]] = tool(query["own"])
            # Built here, untimed, as a long-lived server would have it.
            await transform._search(searched, "")
        started = time.perf_counter()
        # What the transform's `search_tools` tool runs over the hidden tools.
        found = await transform._search(searched, query["text"])
        seconds[i] = time.perf_counter() - started
        ranked[i] = [found_tool.name for found_tool in found]

    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(
            {"version": version("fastmcp"), "ranked": ranked, "seconds": seconds}, f
        )


asyncio.run(main())
