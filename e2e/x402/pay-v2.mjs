// Pays Switchboard's premium endpoint with the x402 v2 clients other people wrote, set up exactly as the
// quick start of @x402/fetch's README shows: wrapFetchWithPaymentFromConfig around fetch, with @x402/evm's
// ExactEvmScheme over a viem account whose key is generated here. viem signs the EIP-3009 authorization.
// Then, with the same libraries: a replay of the client's own PAYMENT-SIGNATURE is refused; one payment sent
// twice at once is answered and settled once; and @x402/extensions reads the bazaar discovery extension that
// the client echoed into its payment, as an indexer of paid APIs would.
//
// usage: node pay-v2.mjs <premium URL>
// Prints one JSON line {payer, receipt, providers, discovery} and then "x402 v2 client: ok"; exits non-zero on
// any failure.
import { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader } from "@x402/fetch";
import { ExactEvmScheme } from "@x402/evm";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { extractDiscoveryInfo, validateDiscoveryExtension } from "@x402/extensions/bazaar";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const url = process.argv[2];
if (!url) {
  console.error("usage: node pay-v2.mjs <premium URL>");
  process.exit(2);
}
function fail(msg) {
  console.error("x402 v2 client: " + msg);
  process.exit(1);
}
// Every request is bounded: a hung server fails the run instead of stalling it.
const timedFetch = (input, init = {}) => fetch(input, { ...init, signal: AbortSignal.timeout(30_000) });

// The quick start, word for word but for the network (Base Sepolia here) and the recorded fetch, which keeps
// the payment header the client sent so that it can be replayed below.
const sent = [];
const recordingFetch = (input, init = {}) => {
  const h = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  if (h.get("PAYMENT-SIGNATURE")) sent.push(h.get("PAYMENT-SIGNATURE"));
  return timedFetch(input, init);
};
const account = privateKeyToAccount(generatePrivateKey());
const fetchWithPayment = wrapFetchWithPaymentFromConfig(recordingFetch, {
  schemes: [
    {
      network: "eip155:84532", // Base Sepolia
      client: new ExactEvmScheme(account),
    },
  ],
});
const response = await fetchWithPayment(url, { method: "GET" });
if (response.status !== 200) fail(`paid request answered ${response.status}: ${await response.text()}`);
const body = await response.json();
const providers = Object.keys(body.providers ?? {}).length;
if (providers === 0 || typeof body.timestamp !== "string") fail("paid body is not the premium envelope");
const paymentResponse = response.headers.get("PAYMENT-RESPONSE");
if (!paymentResponse) fail("no PAYMENT-RESPONSE header");
if (response.headers.get("X-PAYMENT-RESPONSE")) fail("a v2 payment was answered with the v1 receipt header too");
const receipt = decodePaymentResponseHeader(paymentResponse);
if (receipt.success !== true || receipt.network !== "eip155:84532" || String(receipt.payer).toLowerCase() !== account.address.toLowerCase()) {
  fail("unexpected receipt: " + JSON.stringify(receipt));
}
if (sent.length !== 1) fail(`the client sent ${sent.length} PAYMENT-SIGNATURE headers, want 1`);

// The bazaar extension, as an indexer reads it from the payment: valid against its own schema, GET, the route.
const http = new x402HTTPClient(new x402Client());
const paymentPayload = JSON.parse(Buffer.from(sent[0], "base64").toString("utf8"));
const discovery = extractDiscoveryInfo(paymentPayload, paymentPayload.accepted);
if (!discovery || discovery.resourceUrl !== url || discovery.method !== "GET" ||
    !validateDiscoveryExtension(paymentPayload.extensions.bazaar).valid) {
  fail("bazaar discovery not readable from the payment: " + JSON.stringify(discovery));
}

// A replay of the client's own payment is refused, with the reason in PAYMENT-REQUIRED.
const replay = await timedFetch(url, { headers: { "PAYMENT-SIGNATURE": sent[0] } });
if (replay.status !== 402) fail(`replay answered ${replay.status}, want 402`);
const replayReason = http.getPaymentRequiredResponse((n) => replay.headers.get(n)).error;
if (!/nonce already used/.test(replayReason)) fail("replay refused for another reason: " + replayReason);

// One payment, signed by the library for the server's requirements, sent twice at once: one answer.
const unpaid = await timedFetch(url);
const required = http.getPaymentRequiredResponse((n) => unpaid.headers.get(n), await unpaid.json());
if (required.x402Version !== 2) fail("PAYMENT-REQUIRED is not x402 v2");
const client = new x402Client().register("eip155:84532", new ExactEvmScheme(account));
const payload = await client.createPaymentPayload(required);
const headers = new x402HTTPClient(client).encodePaymentSignatureHeader(payload);
const both = await Promise.all([timedFetch(url, { headers }), timedFetch(url, { headers })]);
const statuses = both.map((r) => r.status).sort();
if (statuses.join(",") !== "200,402") fail(`one payment twice at once answered ${statuses}, want 200 and 402`);

console.log(JSON.stringify({ payer: account.address, receipt, providers, discovery: { resourceUrl: discovery.resourceUrl, method: discovery.method } }));
console.log("x402 v2 client: ok");
