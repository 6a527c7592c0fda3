// The official TypeScript SDK client driving `sari serve` over stdio (or streamable HTTP when
// the script names a "url" instead of a command), step by step.
//
// Usage: node ts_client.mjs SCRIPT.json, where SCRIPT is
//   {"command": ..., "args": [...], "env": {...}, "cwd": ..., "roots": [uri, ...] | null,
//    "url": "http://127.0.0.1:PORT/mcp" (instead of command, args, env, cwd),
//    "steps": [{"op": "list"} | {"op": "call", "name": ..., "arguments": {...}}
//              | {"op": "roots", "roots": [uri, ...]} | {"op": "sleep", "ms": N}]}
// and prints one JSON object: {"connect_ms", "steps": [one record per step]}. A call's record
// is what the SDK handed back ({isError, structuredContent, text}) or what it threw
// ({thrown}): the SDK checks structured content against the tool's output schema itself.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.env.SARI_NODE_CLIENTS_PREFIX + "/node_modules/");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require(
  "@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ListRootsRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

const script = JSON.parse(readFileSync(process.argv[2], "utf8"));
let roots = script.roots;
const capabilities = roots ? { roots: { listChanged: true } } : {};
const client = new Client({ name: "sari-e2e-ts", version: "1.0.0" }, { capabilities });
if (roots) {
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: roots.map((uri) => ({ uri, name: uri.split("/").pop() })),
  }));
}
const transport = script.url
  ? new StreamableHTTPClientTransport(new URL(script.url))
  : new StdioClientTransport({
    command: script.command, args: script.args, env: script.env, cwd: script.cwd,
    stderr: "inherit",
  });
const out = { steps: [] };
const started = performance.now();
await client.connect(transport);
out.connect_ms = performance.now() - started;
for (const step of script.steps) {
  const at = performance.now();
  if (step.op === "list") {
    const { tools } = await client.listTools();
    out.steps.push({ tools, ms: performance.now() - at });
  } else if (step.op === "call") {
    try {
      const result = await client.callTool({ name: step.name, arguments: step.arguments });
      out.steps.push({
        isError: result.isError ?? false, structuredContent: result.structuredContent ?? null,
        text: (result.content ?? []).map((block) => block.text ?? "").join("\n"),
        ms: performance.now() - at,
      });
    } catch (error) {
      out.steps.push({ thrown: String(error && error.message ? error.message : error) });
    }
  } else if (step.op === "roots") {
    roots = step.roots;
    await client.sendRootsListChanged();
    out.steps.push({ roots });
  } else if (step.op === "sleep") {
    await new Promise((resolve) => setTimeout(resolve, step.ms));
    out.steps.push({});
  }
}
await client.close();
process.stdout.write(JSON.stringify(out));
