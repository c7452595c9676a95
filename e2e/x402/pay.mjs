// Pays Switchboard's premium endpoint with the legacy x402 v1 client other people wrote: npm's x402-fetch
// (wrapFetchWithPayment) around a viem account whose private key is generated here. viem signs the EIP-3009
// authorization with its own EIP-712 code, so a 200 proves the server's EIP-712 verification agrees with it.
// Then a replay of the client's own X-PAYMENT is refused, and one payment made by x402's createPaymentHeader
// and sent twice at once is answered once.
//
// usage: node pay.mjs <premium URL>
// Prints one JSON line {payer, receipt, providers} and then "x402 client: ok"; exits non-zero on any failure.
import { wrapFetchWithPayment, decodeXPaymentResponse } from "x402-fetch";
import { createPaymentHeader } from "x402/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const url = process.argv[2];
if (!url) {
  console.error("usage: node pay.mjs <premium URL>");
  process.exit(2);
}

function fail(msg) {
  console.error("x402 client: " + msg);
  process.exit(1);
}

// Every request is bounded: a hung server fails the run instead of stalling it.
const timedFetch = (input, init = {}) => fetch(input, { ...init, signal: AbortSignal.timeout(30_000) });

// 1. Without payment: 402 with the requirements.
const unpaid = await timedFetch(url);
if (unpaid.status !== 402) fail(`unpaid request answered ${unpaid.status}, want 402`);
const required = await unpaid.json();
if (required.x402Version !== 1 || !Array.isArray(required.accepts) || required.accepts.length !== 1) {
  fail("402 body is not an x402 v1 payment requirement: " + JSON.stringify(required));
}

// 2. Pay: x402-fetch reads the 402, signs with the account and retries with X-PAYMENT (recorded on its way).
const sent = [];
const recordingFetch = (input, init = {}) => {
  const h = new Headers(init.headers ?? {});
  if (h.get("X-PAYMENT")) sent.push(h.get("X-PAYMENT"));
  return timedFetch(input, init);
};
const account = privateKeyToAccount(generatePrivateKey());
const payingFetch = wrapFetchWithPayment(recordingFetch, account);
const res = await payingFetch(url, { method: "GET" });
if (res.status !== 200) fail(`paid request answered ${res.status}: ${await res.text()}`);

const body = await res.json();
const providers = Object.keys(body.providers ?? {}).length;
if (providers === 0 || typeof body.timestamp !== "string" || typeof body.summary !== "object") {
  fail("paid body is not the premium envelope: " + JSON.stringify(body).slice(0, 500));
}
for (const [id, p] of Object.entries(body.providers)) {
  for (const field of ["status", "uptime_pct", "avg_response_ms", "p95_response_ms", "recent_incidents", "rate_limit_risk", "trend", "degraded"]) {
    if (!(field in p)) fail(`provider ${id} lacks ${field}`);
  }
}

const header = res.headers.get("x-payment-response");
if (!header) fail("no X-PAYMENT-RESPONSE header");
const receipt = decodeXPaymentResponse(header);
if (receipt.success !== true || typeof receipt.transaction !== "string" || receipt.network !== required.accepts[0].network) {
  fail("unexpected receipt: " + JSON.stringify(receipt));
}
if (String(receipt.payer).toLowerCase() !== account.address.toLowerCase()) {
  fail(`receipt payer ${receipt.payer}, want ${account.address}`);
}

if (res.headers.get("PAYMENT-RESPONSE")) fail("a v1 payment was answered with the v2 receipt header too");

// 3. A replay of the client's own payment is refused.
if (sent.length !== 1) fail(`the client sent ${sent.length} X-PAYMENT headers, want 1`);
const replay = await timedFetch(url, { headers: { "X-PAYMENT": sent[0] } });
const replayBody = await replay.json();
if (replay.status !== 402 || !/nonce already used/.test(replayBody.error)) {
  fail(`replay answered ${replay.status} ${JSON.stringify(replayBody)}, want 402 nonce already used`);
}

// 4. One payment sent twice at once: one answer.
const second = await createPaymentHeader(account, 1, required.accepts[0]);
const both = await Promise.all([0, 1].map(() => timedFetch(url, { headers: { "X-PAYMENT": second } })));
const statuses = both.map((r) => r.status).sort();
if (statuses.join(",") !== "200,402") fail(`one payment twice at once answered ${statuses}, want 200 and 402`);

console.log(JSON.stringify({ payer: account.address, receipt, providers }));
console.log("x402 client: ok");
