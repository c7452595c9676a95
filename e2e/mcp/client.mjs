// An MCP client others wrote (@modelcontextprotocol/sdk) against Switchboard's MCP endpoint: connect over
// streamable HTTP, initialize, list the tools, call a few, and check each tool's text against the same request
// made over plain HTTP. Usage: node client.mjs http://127.0.0.1:PORT
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';

const base = process.argv[2];
if (!base) {
  console.error('usage: node client.mjs BASE_URL');
  process.exit(2);
}

const transport = new StreamableHTTPClientTransport(new URL('/api/v1/mcp', base));
const client = new Client({ name: 'switchboard-e2e', version: '1.0.0' });
await client.connect(transport);

// Version negotiation: the SDK asks for its latest revision; the server answers one it speaks.
const negotiated = transport.protocolVersion;
console.log(`sdk asked for ${LATEST_PROTOCOL_VERSION}, server answered ${negotiated}`);
assert.ok(['2024-11-05', '2025-03-26', '2025-06-18'].includes(negotiated), `negotiated ${negotiated}`);
assert.equal(client.getServerVersion()?.name, 'switchboard');
assert.equal(typeof client.getServerCapabilities()?.tools, 'object');

const { tools, nextCursor } = await client.listTools();
assert.equal(tools.length, 34, `tools/list gave ${tools.length} tools`);
assert.equal(nextCursor, undefined);
for (const t of tools) {
  assert.match(t.name, /^service_[a-z_]+$/);
  assert.equal(t.inputSchema.type, 'object', `${t.name} inputSchema`);
  assert.ok(t.description.length > 0, `${t.name} has no description`);
}
const pick = tools.find((t) => t.name === 'service_pick');
assert.deepEqual(pick.inputSchema.required, ['task']);
assert.ok(pick.inputSchema.properties.task.enum.includes('llm'));

// A tool's text is the endpoint's body, byte for byte; an error status makes it an error result.
async function same(name, args, path) {
  const result = await client.callTool({ name, arguments: args });
  const res = await fetch(new URL(path, base));
  const body = await res.text();
  assert.equal(result.content.length, 1, `${name}: content`);
  assert.equal(result.content[0].type, 'text');
  assert.equal(result.content[0].text, body, `${name}: MCP text differs from GET ${path}`);
  assert.equal(result.isError === true, !res.ok, `${name}: isError ${result.isError} for HTTP ${res.status}`);
  console.log(`${name}: HTTP ${res.status}, isError ${result.isError === true}`);
  return { result, status: res.status, body };
}

const health = await same('service_health', {}, '/api/v1/health');
assert.equal(health.status, 200);
const h = JSON.parse(health.result.content[0].text);
assert.equal(Object.keys(h.providers).length, 52);

// Not implemented yet on this server: the tool says so as an error result with the endpoint's 501 text.
for (const [name, args, path] of [
  ['service_pick', { task: 'llm' }, '/api/v1/pick?task=llm'],
  ['service_pricing', {}, '/api/v1/pricing'],
]) {
  const r = await same(name, args, path);
  if (r.status === 501) {
    assert.equal(r.result.isError, true);
    assert.match(r.result.content[0].text, /not implemented/);
  }
}

// An argument the endpoint rejects is the endpoint's 400, as an error result the model can read.
const missing = await same('service_latency', {}, '/api/v1/latency');
assert.equal(missing.status, 400);
assert.match(missing.result.content[0].text, /parameter provider: is required/);
const unknown = await same('service_latency', { provider: 'no-such-provider' }, '/api/v1/latency?provider=no-such-provider');
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
