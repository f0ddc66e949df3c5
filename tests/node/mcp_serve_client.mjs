// The independent client of tests/mcp_serve/test_serve_typescript.py: the TypeScript SDK's Client.
//
// Usage: node mcp_serve_client.mjs COMMAND ARGS...  (the server to start over stdio)
// The calls to make are in SEAMHOST_TS_CALLS, a JSON list of [name, arguments]; every
// elicitation is answered "accept" with {"allow_once": true}. Prints one JSON object: the
// instructions, the listed tools, each call's result and the questions asked.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client(
  { name: "seamhost-ts-test", version: "1.0.0" },
  { capabilities: { elicitation: {} } },
);
const questions = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  questions.push(request.params.message);
  return { action: "accept", content: { allow_once: true } };
});
await client.connect(transport);
const listed = await client.listTools();
const results = [];
for (const [name, callArgs] of JSON.parse(process.env.SEAMHOST_TS_CALLS)) {
  results.push(await client.callTool({ name, arguments: callArgs }));
}
const out = { instructions: client.getInstructions(), tools: listed.tools, results, questions };
await client.close();
console.log(JSON.stringify(out));
