"""Ranks the evaluation's queries with FastMCP's BM25 tool-search transform.

Driven by `cargo run --release --example search_eval`, which installs FastMCP
into a virtualenv under target/ and writes the catalog and the queries:

    python fastmcp_bm25.py CATALOG.json QUERIES.json LIMIT OUT.json

CATALOG.json is a list of `{name, description, input_schema}`, QUERIES.json
a list of strings. OUT.json gets `{"version", "ranked": [[name, ...], ...],
"seconds": [...]}`: each query's best `LIMIT` tool names, best first, and how
long each search took.
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

    tools = [
        Tool(
            name=tool["name"],
            description=tool["description"],
            parameters=tool["input_schema"],
        )
        for tool in catalog
    ]
    transform = BM25SearchTransform(max_results=int(limit))

    ranked = []
    seconds = []
    for query in queries:
        started = time.perf_counter()
        # What the transform's `search_tools` tool runs over the hidden tools.
        found = await transform._search(tools, query)
        seconds.append(time.perf_counter() - started)
        ranked.append([tool.name for tool in found])

    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(
            {"version": version("fastmcp"), "ranked": ranked, "seconds": seconds}, f
        )


asyncio.run(main())
