// Pays for Switchboard's premium MCP tool with clients other people wrote, following x402's MCP transport: the
// MCP TypeScript SDK's Client over Streamable HTTP calls service_health_premium; the unpaid call is an error
// result whose structuredContent is the x402 v2 PaymentRequired; @x402/core's x402Client with @x402/evm's
// ExactEvmScheme (viem signs) makes the payment, which goes in params._meta["x402/payment"]; the paid result
// carries the receipt in _meta["x402/payment-response"]. The SDK checks every structuredContent against the
// tool's outputSchema. A replay of the same payment is refused.
//
// usage: node mcp-pay.mjs <MCP URL>
// Prints one JSON line {payer, receipt, providers} and then "x402 MCP client: ok"; exits non-zero on failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm";
import { validateDiscoveryExtension } from "@x402/extensions/bazaar";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const url = process.argv[2];
if (!url) {
  console.error("usage: node mcp-pay.mjs <MCP URL>");
  process.exit(2);
}
function fail(msg) {
  console.error("x402 MCP client: " + msg);
  process.exit(1);
}
const TOOL = "service_health_premium";
const timeout = { timeout: 30_000 };

const client = new Client({ name: "switchboard-x402-mcp-test", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const { tools } = await client.listTools();
if (!tools.some((t) => t.name === TOOL)) fail(`tools/list has no ${TOOL}`);

// The transport's client side: structuredContent first, else content[0].text.
function paymentRequired(result) {
  if (!result.isError) return null;
  const sc = result.structuredContent;
  if (sc && sc.x402Version && Array.isArray(sc.accepts)) return sc;
  try {
    const parsed = JSON.parse(result.content?.[0]?.text ?? "");
    if (parsed.x402Version && Array.isArray(parsed.accepts)) return parsed;
  } catch {}
  return null;
}

// 1. Unpaid: the requirements, in both forms, identical.
const unpaid = await client.callTool({ name: TOOL, arguments: {} }, undefined, timeout);
const required = paymentRequired(unpaid);
if (!required || required.x402Version !== 2 || required.accepts[0].network !== "eip155:84532") {
  fail("unpaid call did not return x402 v2 requirements: " + JSON.stringify(unpaid).slice(0, 500));
}
if (JSON.stringify(JSON.parse(unpaid.content[0].text)) !== JSON.stringify(unpaid.structuredContent)) {
  fail("content[0].text is not the JSON of structuredContent");
}
if (required.extensions?.bazaar?.info?.input?.tool !== TOOL) fail("no bazaar extension for the tool");
const valid = validateDiscoveryExtension(required.extensions.bazaar);
if (!valid.valid) fail("the tool's bazaar extension does not follow its own schema: " + JSON.stringify(valid.errors));

// 2. Pay: the library signs for the requirements; the payment goes in _meta.
const account = privateKeyToAccount(generatePrivateKey());
const payer = new x402Client().register("eip155:84532", new ExactEvmScheme(account));
const payment = await payer.createPaymentPayload(required);
const paid = await client.callTool({ name: TOOL, arguments: {}, _meta: { "x402/payment": payment } }, undefined, timeout);
if (paid.isError) fail("paid call failed: " + paid.content?.[0]?.text);
const receipt = paid._meta?.["x402/payment-response"];
if (!receipt || receipt.success !== true || receipt.network !== "eip155:84532" ||
    String(receipt.payer).toLowerCase() !== account.address.toLowerCase()) {
  fail("unexpected receipt: " + JSON.stringify(paid._meta));
}
const providers = Object.keys(paid.structuredContent?.providers ?? {}).length;
if (providers === 0) fail("paid result is not the premium envelope");

// 3. The same payment again: refused with the requirements.
const replay = await client.callTool({ name: TOOL, arguments: {}, _meta: { "x402/payment": payment } }, undefined, timeout);
const again = paymentRequired(replay);
if (!again || !/nonce already used/.test(again.error)) fail("replay not refused: " + JSON.stringify(replay).slice(0, 300));

await client.close();
console.log(JSON.stringify({ payer: account.address, receipt, providers }));
console.log("x402 MCP client: ok");
