// An outside proof that the published document is usable: openapi-typescript generated ./generated/schema.d.ts
// from the running server's /api/v1/openapi.json, this file type-checks against it, and it runs against the
// server. Later issues add their endpoints here.
import createClient from "openapi-fetch";
import type { paths } from "./generated/schema.js";

const base = process.argv[2];
if (!base) {
  console.error("usage: node client.js <base-url>");
  process.exit(2);
}
const client = createClient<paths>({ baseUrl: base + "/api/v1" });
const failures: string[] = [];

// The document describes itself.
{
  const { data, error, response } = await client.GET("/openapi.json");
  if (error || !data) {
    failures.push(`/openapi.json: ${response.status}`);
  } else {
    const doc = data as { openapi: string; paths: Record<string, Record<string, unknown>> };
    const ops = Object.values(doc.paths).flatMap((item) =>
      Object.keys(item).filter((m) => ["get", "post", "delete", "put", "patch"].includes(m)),
    );
    if (!doc.openapi.startsWith("3.1.")) failures.push(`openapi is ${doc.openapi}`);
    if (ops.length !== 79) failures.push(`${ops.length} operations, want 79`);
  }
}

// A required parameter the type system demands; the server must agree at run time.
{
  const { error, response } = await client.GET("/latency", {
    // @ts-expect-error: provider is required by the document, so the generated types reject its absence.
    params: { query: {} },
  });
  if (response.status !== 400 || !error || !String((error as { error: string }).error).includes("provider")) {
    failures.push(`/latency without provider: ${response.status}`);
  }
}

// An out-of-range limit, typed as a number, rejected by the server.
{
  const { response } = await client.GET("/benchmarks", { params: { query: { limit: 500 } } });
  if (response.status !== 400) failures.push(`/benchmarks?limit=500: ${response.status}`);
}

// Trust records: attest an output, then verify it through the returned verify_url's id.
{
  const { data, error } = await client.POST("/attest", {
    body: { provider: "openai", model: "gpt-4o", output: "hello from typescript" },
  });
  if (error || !data) {
    failures.push("/attest failed");
  } else {
    const { data: rec } = await client.GET("/validate/{id}", {
      params: { path: { id: data.attestation_id }, query: { output: "hello from typescript" } },
    });
    if (!rec || rec.type !== "attestation" || rec.match !== true || rec.payload_hash !== data.payload_hash) {
      failures.push("/validate did not confirm the attested output");
    }
  }
}

if (failures.length > 0) {
  console.error(failures.join("\n"));
  process.exit(1);
}
console.log("typescript client: ok");
