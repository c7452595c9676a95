// An MCP client others wrote (@modelcontextprotocol/sdk) against Switchboard's MCP endpoint over streamable
// HTTP: initialize (2025-11-25), list the tools, call one of each group of the document, and check each tool's
// answer against the same request made over plain HTTP. Usage: node client.mjs http://127.0.0.1:PORT
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { callOne, checkSession, onePerGroup } from './common.mjs';

const base = process.argv[2];
if (!base) {
  console.error('usage: node client.mjs BASE_URL');
  process.exit(2);
}

const transport = new StreamableHTTPClientTransport(new URL('/api/v1/mcp', base));
const client = new Client({ name: 'switchboard-e2e', version: '1.0.0' });
await client.connect(transport);
const tools = await checkSession(client, transport.protocolVersion);
console.log(`negotiated ${transport.protocolVersion}, ${tools.size} tools`);

// The groups are the document's tags of the tool operations: one call per group.
const doc = await (await fetch(new URL('/api/v1/openapi.json', base))).json();
const groups = new Map();
for (const [path, item] of Object.entries(doc.paths)) {
  for (const op of Object.values(item)) {
    if (op?.['x-mcp-tool']) groups.set(op['x-mcp-tool'], { tag: op.tags[0], path });
  }
}
assert.deepEqual([...new Set([...groups.values()].map((g) => g.tag))].sort(), Object.keys(onePerGroup).sort());

// A list tool (its endpoint takes a cursor) answers a first page of 20 unless given a limit.
const paged = new Set((await client.listTools()).tools.filter((t) => t.inputSchema?.properties?.cursor).map((t) => t.name));
assert.ok(paged.has('service_pricing'), 'service_pricing does not page');

// A tool's text is the endpoint's body, byte for byte; its structuredContent that body's object.
async function same(name, args) {
  const httpArgs = paged.has(name) && args.limit === undefined ? { ...args, limit: 20 } : args;
  const query = new URLSearchParams(Object.entries(httpArgs).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
  const path = `/api/v1${groups.get(name).path}${query.size ? `?${query}` : ''}`;
  const res = await fetch(new URL(path, base));
  const body = await res.text();
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.content[0].text, body, `${name}: MCP text differs from GET ${path}`);
  assert.equal(result.isError === true, !res.ok, `${name}: isError ${result.isError} for HTTP ${res.status}`);
  if (res.ok) {
    await callOne(client, name, args);
    assert.deepEqual(result.structuredContent, JSON.parse(body));
  } else {
    assert.equal(result.structuredContent, undefined, `${name}: an error result with structuredContent`);
  }
  console.log(`${name}: HTTP ${res.status}, isError ${result.isError === true}`);
  return { result, status: res.status, body };
}

for (const [group, [name, args]] of Object.entries(onePerGroup)) {
  assert.equal(groups.get(name)?.tag, group, `${name} is not in group ${group}`);
  const r = await same(name, args);
  assert.equal(r.status, 200, `${name}: HTTP ${r.status} ${r.body}`);
}
const h = JSON.parse((await same('service_health', {})).body);
assert.equal(Object.keys(h.providers).length, 52);

// An argument the endpoint rejects is the endpoint's 400, as an error result the model can read.
const missing = await same('service_latency', {});
assert.equal(missing.status, 400);
assert.match(missing.result.content[0].text, /parameter provider: is required/);
const unknown = await same('service_latency', { provider: 'no-such-provider' });
assert.equal(unknown.status, 404);

// An unknown tool is a JSON-RPC error (-32602), which the SDK raises.
await assert.rejects(client.callTool({ name: 'service_nope', arguments: {} }), (err) => {
  assert.ok(err instanceof McpError, String(err));
  assert.equal(err.code, ErrorCode.InvalidParams);
  return true;
});

await client.ping();
await client.close();
console.log('mcp client: ok');
