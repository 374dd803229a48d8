/** OpenTelemetry traces over OTLP, received by a local OTLP/HTTP receiver this test starts. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query, removeDir, startServer, type TestServer } from "./harness";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

const received: OtlpSpan[] = [];
let receiver: Server;
let server: TestServer;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        const payload = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const resource of payload.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  server = await startServer({ env: { ORGSIM_SAMPLE_SIZE: "40", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: "100" } });
});
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
  receiver?.close();
});

/** The trace's spans once every named one has arrived (spans come in batches: a request's children can arrive before it). */
async function spansOf(traceId: string, names: string[]): Promise<OtlpSpan[]> {
  for (let waited = 0; waited < 15_000; waited += 100) {
    const spans = received.filter((s) => s.traceId === traceId);
    if (names.every((name) => spans.some((s) => s.name === name))) return spans;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return received.filter((s) => s.traceId === traceId);
}

describe("traces", () => {
  it("says at start that it exports traces", () => {
    expect(server.output()).toContain("Traces: exported over OTLP");
  });

  it("exports a request's server span in the caller's trace, with the search, the embedding and the backend calls inside", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const callerSpan = "00f067aa0ba902b7";
    const res = await fetch(`${server.baseUrl}/v1/search/organizations/similar?${query({ description: "warehouse robots for grocery distribution" })}`, {
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    expect(res.status).toBe(200);
    const spans = await spansOf(traceId, [
      "GET /v1/search/organizations/similar",
      "search.similarToDescription",
      "embedding.query",
      "backend.rank",
      "backend.searchText",
      "backend.getMany",
    ]);
    const byName = (name: string) => spans.find((s) => s.name === name);
    const request = byName("GET /v1/search/organizations/similar");
    expect(request, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    expect(request?.parentSpanId).toBe(callerSpan);
    expect(request?.kind).toBe(2); // SERVER
    expect(request?.attributes.find((a) => a.key === "http.response.status_code")?.value.intValue).toEqual(expect.anything());
    const search = byName("search.similarToDescription");
    expect(search?.parentSpanId).toBe(request?.spanId);
    expect(byName("embedding.query")?.parentSpanId).toBe(search?.spanId);
    for (const call of ["backend.rank", "backend.searchText", "backend.getMany"]) expect(byName(call)?.parentSpanId, call).toBe(search?.spanId);
  });
});
