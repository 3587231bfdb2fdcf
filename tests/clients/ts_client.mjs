// The TypeScript SDK as a real client of `ck3raven serve` over stdio, in one protocol era:
//
//   node ts_client.mjs 2025-11-25 <server command> [args...]   @modelcontextprotocol/sdk (v1), initialize
//   node ts_client.mjs 2026-07-28 <server command> [args...]   @modelcontextprotocol/client (v2), pinned
//                                                                to 2026-07-28 (server/discover, no fallback)
//
// It lists the tools, then calls each tool once with the arguments of tool_calls.json (beside this file).
// Every reply is checked three ways: by the SDK itself (callTool validates structuredContent against the
// tool's outputSchema and throws when it does not match), again by Ajv's JSON Schema 2020-12 validator in
// strict mode (the dialect MCP names for tool schemas), and against its text twin (the serialized JSON in a
// TextContent block). The call's arguments are checked against the tool's inputSchema the same way, and
// the envelope's reply_type against the one tool_calls.json expects.
//
// Prints one line per check (`ok ...` or `FAIL ...`) and exits 1 when anything failed, 2 on bad usage.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import Ajv2020Module from "ajv/dist/2020.js";

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const ERAS = ["2025-11-25", "2026-07-28"];

const [era, command, ...args] = process.argv.slice(2);
if (!ERAS.includes(era) || !command) {
  console.error(`usage: node ts_client.mjs ${ERAS.join("|")} <server command> [args...]`);
  process.exit(2);
}

const here = dirname(fileURLToPath(import.meta.url));
const { calls } = JSON.parse(readFileSync(join(here, "tool_calls.json"), "utf8"));
const failures = [];

function report(ok, line) {
  console.log(`${ok ? "ok" : "FAIL"} ${line}`);
  if (!ok) failures.push(line);
}

// Union types (`"type": ["string", "null"]`) are legal JSON Schema; their portability is what Inspector's
// --strict judges, so they are allowed here and everything else strict mode knows is not.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateSchema: true });

function compile(schema, what) {
  try {
    return ajv.compile(schema);
  } catch (error) {
    report(false, `${what} does not compile as JSON Schema 2020-12: ${error.message}`);
    return null;
  }
}

function problems(validate) {
  return ajv.errorsText(validate.errors, { separator: "; " });
}

async function connect() {
  const server = { command, args, env: { ...process.env }, stderr: "inherit" };
  if (era === "2025-11-25") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const client = new Client({ name: "ck3raven-ts-sdk-v1", version: "1.0.0" });
    const transport = new StdioClientTransport(server);
    let negotiated;
    transport.setProtocolVersion = (version) => {
      negotiated = version;
    };
    await client.connect(transport);
    return { client, negotiated };
  }
  const { Client } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  const client = new Client(
    { name: "ck3raven-ts-sdk-v2", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: era } } },
  );
  await client.connect(new StdioClientTransport(server));
  return { client, negotiated: client.getNegotiatedProtocolVersion() };
}

function checkReply(call, tool, result) {
  const name = call.tool;
  const structured = result.structuredContent;
  if (structured === undefined) {
    report(false, `${name}: the reply has no structuredContent although the tool declares an outputSchema`);
    return;
  }
  const output = compile(tool.outputSchema, `${name}'s outputSchema`);
  if (output && !output(structured)) {
    report(false, `${name}: structuredContent does not match the outputSchema: ${problems(output)}`);
  }
  const twin = (result.content ?? []).find((block) => block.type === "text");
  let twinValue;
  try {
    twinValue = twin ? JSON.parse(twin.text) : undefined;
  } catch {
    twinValue = undefined;
  }
  if (JSON.stringify(twinValue) !== JSON.stringify(structured)) {
    report(false, `${name}: no TextContent block carries structuredContent as JSON`);
  }
  const wantError = call.reply_type !== "S";
  if (structured.reply_type !== call.reply_type || Boolean(result.isError) !== wantError) {
    report(
      false,
      `${name}: expected reply_type ${call.reply_type} (isError ${wantError}), got ` +
        `${structured.reply_type} ${structured.code} (isError ${Boolean(result.isError)}): ${structured.message}`,
    );
    return;
  }
  report(true, `${name}: ${structured.reply_type} ${structured.code}`);
}

async function callEach(client, tools) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const planned = new Set(calls.map((call) => call.tool));
  for (const tool of tools) {
    if (!planned.has(tool.name)) {
      report(false, `${tool.name}: listed by the server but tool_calls.json has no call for it`);
    }
  }
  for (const call of calls) {
    const tool = byName.get(call.tool);
    if (!tool) {
      report(false, `${call.tool}: not listed by the server`);
      continue;
    }
    const input = compile(tool.inputSchema, `${call.tool}'s inputSchema`);
    if (input && !input(call.arguments)) {
      report(false, `${call.tool}: the planned arguments do not match its inputSchema: ${problems(input)}`);
      continue;
    }
    try {
      checkReply(call, tool, await client.callTool({ name: call.tool, arguments: call.arguments }));
    } catch (error) {
      report(false, `${call.tool}: the SDK refused the reply: ${error.message}`);
    }
  }
}

async function main() {
  const { client, negotiated } = await connect();
  try {
    report(negotiated === era, `negotiated protocol version ${negotiated} (wanted ${era})`);
    const { tools } = await client.listTools();
    report(tools.length > 0, `tools/list: ${tools.map((tool) => tool.name).join(", ")}`);
    await callEach(client, tools);
  } finally {
    await client.close();
  }
}

try {
  await main();
} catch (error) {
  report(false, `client error: ${error.stack ?? error}`);
}
console.log(failures.length ? `${failures.length} check(s) failed` : "all checks passed");
process.exit(failures.length ? 1 : 0);
