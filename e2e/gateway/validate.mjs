// Loads the failover export's configurations with the gateways' own code: each Portkey config goes through the
// config schema of Portkey's own gateway (@portkey-ai/gateway, started here on a free loopback port), each
// OpenRouter body through the chat request schema of OpenRouter's SDK (@openrouter/sdk). LiteLLM's parser is
// Python (not installable here): e2e/gateway_test.go checks those files against litellm.schema.json instead.
//
// Usage: node validate.mjs <dir>, where dir holds *.portkey.json and *.openrouter.json (each a `config`).
// Prints "gateway configs: ok <n>" when every file passes; exits 1 naming the first that does not.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ChatRequest$outboundSchema, ProviderName } from '@openrouter/sdk/models';

const dir = process.argv[2];
const files = readdirSync(dir).filter((f) => f.endsWith('.portkey.json') || f.endsWith('.openrouter.json'));
const fail = (msg) => {
  console.error(msg);
  process.exit(1);
};

// OpenRouter: the SDK takes camelCase fields and writes the wire body; a body our config gives must come out of
// its schema unchanged (a field the schema does not know would be dropped), and each provider name must be one of
// the SDK's ProviderName values (the schema also lets any string through).
const providerNames = new Set(Object.values(ProviderName));
function checkOpenRouter(file, body) {
  const messages = [{ role: 'user', content: 'ping' }];
  const input = { models: body.models, messages };
  if (body.provider) input.provider = { order: body.provider.order, allowFallbacks: body.provider.allow_fallbacks };
  const parsed = ChatRequest$outboundSchema.safeParse(input);
  if (!parsed.success) fail(`${file}: OpenRouter's ChatRequest schema refuses it: ${parsed.error}`);
  const { messages: _m, stream: _s, ...wire } = parsed.data;
  if (!isDeepStrictEqual(wire, body)) fail(`${file}: OpenRouter's schema gives ${JSON.stringify(wire)} for ${JSON.stringify(body)}`);
  for (const name of body.provider?.order ?? []) {
    if (!providerNames.has(name)) fail(`${file}: ${name} is not an OpenRouter provider name`);
  }
  if (body.models.length > 3) fail(`${file}: OpenRouter takes at most 3 models`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// Portkey: the gateway validates x-portkey-config before it reads the body; an unreadable body then stops the
// request before any provider is called. So "Invalid config passed" (400) means the schema refused the config,
// and any other answer that it accepted it. A config known to be invalid must be refused, or the check proves
// nothing.
async function portkeyGateway() {
  const require = createRequire(import.meta.url);
  const pkg = dirname(require.resolve('@portkey-ai/gateway/package.json'));
  // The free port is free when asked, not always when the gateway binds it: another test's server may take it
  // in between (the gateway then exits, and that server answers). Such a start is tried again on a new port.
  for (let attempt = 0; attempt < 5; attempt++) {
    const gw = await startPortkey(pkg, await freePort());
    if (gw) return gw;
  }
  fail("Portkey's gateway could not start on a free port in five attempts");
}

async function startPortkey(pkg, port) {
  const child = spawn(process.execPath, [join(pkg, 'build', 'start-server.js'), `--port=${port}`, '--headless'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  const check = async (config) => {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-portkey-config': JSON.stringify(config) },
      body: 'not json',
    });
    const text = await r.text();
    return { refused: r.status === 400 && text.includes('Invalid config passed'), status: r.status, text };
  };
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || /EADDRINUSE/.test(log)) {
      return null; // the port was taken before the gateway bound it
    }
    try {
      const r = await check({});
      if (r.text.includes('no such endpoint')) {
        child.kill(); // Switchboard's own 404: another test's service holds the port
        return null;
      }
      break;
    } catch (e) {
      if (i > 100) fail(`Portkey's gateway did not start: ${e}\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { check, stop: () => child.kill() };
}

const portkeyFiles = files.filter((f) => f.endsWith('.portkey.json'));
const gw = portkeyFiles.length > 0 ? await portkeyGateway() : null;
try {
  if (gw) {
    const bad = await gw.check({ strategy: { mode: 'fallback' }, targets: [{ provider: 'no-such-provider', api_key: 'x' }] });
    if (!bad.refused) fail(`Portkey's gateway accepted a config with an unknown provider: ${bad.status} ${bad.text}`);
  }
  for (const f of files) {
    const config = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    if (f.endsWith('.openrouter.json')) {
      checkOpenRouter(f, config);
      continue;
    }
    const r = await gw.check(config);
    if (r.refused) fail(`${f}: Portkey's gateway refuses it: ${r.text}`);
  }
} finally {
  gw?.stop();
}
console.log(`gateway configs: ok ${files.length}`);
