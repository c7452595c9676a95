// Checks shared by the HTTP and the stdio client scripts: what every MCP client of Switchboard may rely on.
import assert from 'node:assert/strict';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

// One tool per group of the document (its tag), with arguments it answers 200 with. client.mjs checks that the
// groups are exactly the document's.
export const onePerGroup = {
  'Live status': ['service_health', {}],
  'Decision tools': ['service_pick', { task: 'llm' }],
  'Provider data': ['service_pricing', { provider: 'openai' }],
  'Cost and batch': ['service_task_cost', { task_type: 'chat' }],
  'Model intelligence': ['service_context_window', {}],
  'Trust and compliance': ['service_error_codes', { provider: 'anthropic' }],
};

// checkSession checks the handshake and the tool list, and returns the tools by name.
export async function checkSession(client, transportVersion) {
  // The SDK asks for its latest revision; the server speaks it.
  assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
  if (transportVersion !== undefined) {
    assert.equal(transportVersion, '2025-11-25', `negotiated ${transportVersion}`);
  }
  assert.equal(client.getServerVersion()?.name, 'switchboard');
  assert.equal(typeof client.getServerCapabilities()?.tools, 'object');

  const { tools, nextCursor } = await client.listTools();
  assert.equal(tools.length, 36, `tools/list gave ${tools.length} tools`);
  assert.equal(nextCursor, undefined);
  for (const t of tools) {
    assert.match(t.name, /^service_[a-z_]+$/);
    assert.ok(t.title?.length > 0, `${t.name} has no title`);
    assert.ok(t.description.length > 0, `${t.name} has no description`);
    assert.equal(t.inputSchema.type, 'object', `${t.name} inputSchema`);
    assert.equal(t.outputSchema?.type, 'object', `${t.name} outputSchema`);
    assert.deepEqual(t.annotations, { readOnlyHint: true, idempotentHint: true, openWorldHint: false }, `${t.name} annotations`);
  }
  const pick = tools.find((t) => t.name === 'service_pick');
  assert.deepEqual(pick.inputSchema.required, ['task']);
  assert.ok(pick.inputSchema.properties.task.enum.includes('llm'));
  return new Map(tools.map((t) => [t.name, t]));
}

// callOne calls a tool that must succeed. The SDK itself checks structuredContent against the tool's
// outputSchema (and fails the call when it does not match); here it must also be the text's object.
export async function callOne(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.notEqual(result.isError, true, `${name}: ${result.content?.[0]?.text}`);
  assert.equal(result.content.length, 1, `${name}: content`);
  assert.equal(result.content[0].type, 'text');
  assert.equal(typeof result.structuredContent, 'object', `${name}: no structuredContent`);
  assert.deepEqual(result.structuredContent, JSON.parse(result.content[0].text), `${name}: structuredContent differs from the text`);
  return result;
}
