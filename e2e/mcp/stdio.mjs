// The official MCP TypeScript SDK client over stdio: it starts `switchboard mcp` as a desktop agent would,
// initializes, lists every tool and calls service_health and one tool of each group.
// Usage: node stdio.mjs /path/to/switchboard [args of the mcp command...]
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { callOne, checkSession, onePerGroup } from './common.mjs';

const [binary, ...args] = process.argv.slice(2);
if (!binary) {
  console.error('usage: node stdio.mjs SWITCHBOARD_BINARY [ARGS...]');
  process.exit(2);
}

const transport = new StdioClientTransport({ command: binary, args: ['mcp', ...args], stderr: 'pipe' });
let stderr = '';
transport.stderr.on('data', (d) => { stderr += d; });
const client = new Client({ name: 'switchboard-e2e-stdio', version: '1.0.0' });
// Anything on stdout that is not a JSON-RPC message surfaces here.
const transportErrors = [];
client.onerror = (err) => transportErrors.push(err);
await client.connect(transport);
const tools = await checkSession(client);
console.log(`stdio: ${tools.size} tools`);

const health = await callOne(client, 'service_health', {});
assert.equal(Object.keys(health.structuredContent.providers).length, 52);
for (const [group, [name, a]] of Object.entries(onePerGroup)) {
  await callOne(client, name, a);
  console.log(`${group}: ${name} ok`);
}
// Argument errors are tool errors, as over HTTP.
const bad = await client.callTool({ name: 'service_latency', arguments: {} });
assert.equal(bad.isError, true);
assert.match(bad.content[0].text, /parameter provider: is required/);

await client.ping();
await client.close();
assert.deepEqual(transportErrors, []);
// The logs went to stderr.
assert.match(stderr, /mcp over stdio/);
console.log('mcp stdio client: ok');
