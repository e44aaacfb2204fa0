// The Node.js hosts of the host matrix (examples/tests/it/hosts.rs): each
// starts the example server over stdio, makes the calls in the cases file
// and writes, for each, the text its model would be handed, as one JSON
// object a line: {"host", "case", "model"}.
//
// - `ts-sdk`: the official TypeScript SDK's client. It builds no model
//   message: a host on it hands the model the result's `content`, so the
//   text blocks are what is measured.
// - `vercel-ai`: the Vercel AI SDK with `@ai-sdk/mcp`. A mock model from
//   `ai/test` asks for the call; `generateText` runs the tool and converts
//   its result with the tool's own `toModelOutput` (`mcpToModelOutput`),
//   and the mock records the tool message of the next prompt.
//
// Usage: node hosts.mjs SERVER CASES.json OUT.jsonl
import { readFileSync, appendFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const [server, casesFile, out] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(casesFile, "utf8"));
const serverArgs = ["--allow", "edit_file"];

function record(host, name, model) {
  appendFileSync(out, JSON.stringify({ host, case: name, model }) + "\n");
}

/// The text of a tool result part's `output` as the model gets it.
function outputText(output) {
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value;
    case "json":
    case "error-json":
      return JSON.stringify(output.value);
    case "content":
      return output.value
        .map((part) => (part.type === "text" ? part.text : JSON.stringify(part)))
        .join("\n");
    default:
      return JSON.stringify(output);
  }
}

async function tsSdk() {
  const client = new Client({ name: "dsh-host-matrix", version: "0" });
  await client.connect(new StdioClientTransport({ command: server, args: serverArgs, stderr: "inherit" }));
  try {
    for (const c of cases) {
      const result = await client.callTool({ name: c.tool, arguments: c.args });
      const text = result.content
        .map((block) => (block.type === "text" ? block.text : JSON.stringify(block)))
        .join("\n");
      record("ts-sdk", c.case, text);
    }
  } finally {
    await client.close();
  }
}

async function vercelAi() {
  const mcp = await createMCPClient({
    transport: new Experimental_StdioMCPTransport({ command: server, args: serverArgs, stderr: "inherit" }),
  });
  try {
    const tools = await mcp.tools();
    for (const c of cases) {
      let handed;
      let turn = 0;
      const model = new MockLanguageModelV4({
        doGenerate: async ({ prompt }) => {
          turn += 1;
          const usage = {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          };
          if (turn === 1) {
            return {
              content: [{ type: "tool-call", toolCallId: "call-1", toolName: c.tool, input: JSON.stringify(c.args) }],
              finishReason: { unified: "tool-calls", raw: "tool_calls" },
              usage,
              warnings: [],
            };
          }
          const parts = prompt
            .filter((message) => message.role === "tool")
            .flatMap((message) => message.content)
            .filter((part) => part.type === "tool-result");
          handed = parts.map((part) => outputText(part.output)).join("\n");
          return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
        },
      });
      await generateText({ model, tools, prompt: "go", stopWhen: stepCountIs(2) });
      if (handed === undefined) throw new Error(`vercel-ai: the model was never handed the result of ${c.case}`);
      record("vercel-ai", c.case, handed);
    }
  } finally {
    await mcp.close();
  }
}

await tsSdk();
await vercelAi();
