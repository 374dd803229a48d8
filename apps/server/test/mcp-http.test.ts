/** MCP at /mcp over Streamable HTTP, with the official SDK client against the real server. */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { agentWorkflow, errorOf } from "@orgsim/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, startServer, TEST_BACKEND, type TestServer } from "./harness";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ORGSIM_SAMPLE_SIZE: "60" } });
});
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

async function connect(): Promise<Client> {
  const client = new Client({ name: "orgsim-http-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)));
  return client;
}

/** A raw JSON-RPC POST, as curl would send it. */
async function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.baseUrl}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

describe("MCP over Streamable HTTP", () => {
  it("is announced at start", () => {
    expect(server.output()).toMatch(/MCP\s+http:\/\/127\.0\.0\.1:\d+\/mcp \(Streamable HTTP\); stdio: pnpm --silent mcp/);
  });

  it("runs an agent's workflow: every tool, bad input, the one-type rule", async () => {
    const client = await connect();
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "orgsim" });
      const report = await agentWorkflow(client);
      expect(report.tools).toBe(16);
    } finally {
      await client.close();
    }
  });

  it("links export_collection to the REST file on the address the client used, which downloads", async () => {
    const client = await connect();
    try {
      const call = async (name: string, args: Record<string, unknown>) => ((await client.callTool({ name, arguments: args })) as any).structuredContent;
      const collection = (await call("create_collection", { name: "Export me" })).data;
      await call("add_collection_item", { collection_id: collection.id, entity_type: "organization", entity_id: "3" });
      const exported = await call("export_collection", { collection_id: collection.id });
      expect(exported.meta).toMatchObject({
        format: "csv",
        inline: true,
        item_count: 1,
        url: `${server.baseUrl}/v1/collections/${collection.id}/export?format=csv`,
      });
      expect(exported.data[0].organization.id).toBe(3);
      const file = await fetch(exported.meta.url);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect((await file.text()).split("\r\n").filter(Boolean)).toHaveLength(2);
    } finally {
      await client.close();
    }
  });

  it("shares collections between requests and clients (one tenant, no sessions)", async () => {
    const a = await connect();
    const b = await connect();
    try {
      const created = (await a.callTool({ name: "create_collection", arguments: { name: "Shared" } })) as any;
      const seen = (await b.callTool({ name: "get_collection", arguments: { collection_id: created.structuredContent.data.id } })) as any;
      expect(seen.structuredContent.data.name).toBe("Shared");
      const mismatch = errorOf((await b.callTool({ name: "create_collection", arguments: { name: "x".repeat(201) } })) as any);
      expect(mismatch.code).toBe("VALIDATION_FAILED");
      expect(mismatch.first).toContain("name");
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("answers plain JSON-RPC POSTs with JSON and no session id", async () => {
    const res = await post({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "get_organization", arguments: { organization_id: 1, detail: "compact" } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 7, result: { structuredContent: { data: { id: 1 } } } });

    const listed = (await (await post({ jsonrpc: "2.0", id: 8, method: "tools/list" })).json()) as any;
    expect(listed.result.tools).toHaveLength(16);
  });

  it("refuses GET and DELETE (stateless: no stream, no session) and malformed bodies", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${server.baseUrl}/mcp`, { method, headers: { accept: "text/event-stream" } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(((await res.json()) as any).error.message).toContain("POST");
    }
    const bad = await fetch(`${server.baseUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toBe(-32700);
    // The body checks of REST and tRPC hold here too: a lone surrogate never reaches a store.
    const surrogate = await fetch(`${server.baseUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_collection","arguments":{"name":"x\\ud800"}}}',
    });
    expect(surrogate.status).toBe(400);
    expect(((await surrogate.json()) as any).error.data).toMatchObject({ code: "VALIDATION_FAILED" });
  });

  it("refuses foreign origins and hosts (DNS rebinding) on its loopback address", async () => {
    const init = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const foreign = await post(init, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect((await post(init, { origin: "http://localhost:6274" })).status).toBe(200);

    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${server.baseUrl}/mcp`);
      const req = request(
        {
          hostname: url.hostname,
          port: url.port,
          path: "/mcp",
          method: "POST",
          headers: { host: "evil.example", "content-type": "application/json", accept: "application/json, text/event-stream" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(init));
    });
    expect(status).toBe(403);
  });
});

describe("a batch of long searches and other clients", () => {
  /** A 2,000-character description (the longest a query may be), different for each call so nothing is reused. */
  const longDescription = (i: number) =>
    `Call ${i}: ${"industrial robots for warehouses, precision farming sensors and payments software ".repeat(30)}`.slice(0, 2000);
  const searchCall = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "search_organizations_by_description", arguments: { description: longDescription(id), limit: 10 } },
  });
  const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

  /** Another client's short searches, one after another, until `until` settles: each one's latency in ms, sorted. */
  async function otherClientLatencies(until: Promise<unknown>): Promise<number[]> {
    let done = false;
    void until.finally(() => (done = true));
    const latencies: number[] = [];
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${server.baseUrl}/v1/search/organizations/similar?description=robots&limit=3`);
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
    }
    return latencies.sort((a, b) => a - b);
  }
  const summary = (l: number[]) => `n=${l.length} p50=${percentile(l, 50).toFixed(0)} p99=${percentile(l, 99).toFixed(0)} max=${(l.at(-1) ?? 0).toFixed(0)} ms`;

  it("keeps answering other clients while a batch of the largest size runs (logs p99; asserts no time)", async () => {
    const idle = await otherClientLatencies(new Promise((resolve) => setTimeout(resolve, 1_500)));
    const size = Number(process.env.ORGSIM_TEST_MCP_BATCH ?? 20);
    const started = performance.now();
    const batch = post(Array.from({ length: size }, (_, i) => searchCall(i + 1)));
    const during = await otherClientLatencies(batch.then((res) => res.arrayBuffer()));
    const answer = await batch;
    expect(answer.status).toBe(200);
    console.log(
      `[mcp-batch] ${TEST_BACKEND}: batch of ${size} long searches answered in ${(performance.now() - started).toFixed(0)} ms; ` +
        `another client's searches: idle ${summary(idle)}; during the batch ${summary(during)}`,
    );
  });
});
