/** API keys, tenants, scopes and rate limits over real HTTP, on every surface (REST, tRPC, MCP). */
import { mkdtempSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createOrgsimClient, orgsimErrorOf } from "@orgsim/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, orgsimCommand, query, removeDir, startServer, type TestServer } from "./harness";

const dataDir = mkdtempSync(join(tmpdir(), "orgsim-access-"));
let server: TestServer;
const keys: Record<"acme" | "globex" | "reader" | "limited", { id: string; token: string }> = {} as never;

async function createKey(tenant: string, scopes: string, ...more: string[]) {
  const result = await orgsimCommand(["keys", "create", "--tenant", tenant, "--scopes", scopes, "--json", ...more], dataDir);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { id: string; token: string };
}

beforeAll(async () => {
  const all = "search:read,collections:read,collections:write,organizations:write";
  keys.acme = await createKey("acme", all, "--name", "acme app");
  keys.globex = await createKey("globex", all);
  keys.reader = await createKey("acme", "search:read");
  keys.limited = await createKey("acme", "search:read", "--rate-limit", "5");
  // No key cache: a revocation is seen by the next request.
  server = await startServer({ dataDir, env: { ORGSIM_SAMPLE_SIZE: "30", ORGSIM_KEY_CACHE_MS: "0" } });
});
afterAll(async () => {
  await server?.stop();
  removeDir(dataDir);
});

/** A tRPC call as the typed client sends it (GET for queries, POST for mutations). */
async function trpc(procedure: string, input: unknown, token?: string, method: "GET" | "POST" = "GET") {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const url = `${server.baseUrl}/trpc/${procedure}${method === "GET" ? `?input=${encodeURIComponent(JSON.stringify(input))}` : ""}`;
  const response = await fetch(
    url,
    method === "GET" ? { headers } : { method, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(input) },
  );
  return { status: response.status, body: (await response.json()) as any };
}

async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: "orgsim-access-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

describe("with API keys", () => {
  it("says at start that keys are required", () => {
    expect(server.output()).toMatch(/Access\s+API keys required/);
  });

  it("refuses callers without a valid key with 401 UNAUTHORIZED on REST, tRPC and MCP", async () => {
    const path = "/search/organizations/similar?description=industrial+robots";
    for (const [token, why] of [
      [undefined, /Missing API key/],
      [`osk_0123456789abcdef_${"A".repeat(43)}`, /Invalid API key/],
      ["nonsense", /not an orgsim key/],
    ] as const) {
      const rest = await api(server, "GET", path, undefined, token);
      expect(rest.status).toBe(401);
      expect(rest.body.error).toMatchObject({ code: "UNAUTHORIZED", status: 401, message: expect.stringMatching(why) });
      expect(rest.body.error.request_id).toBeTruthy();
      expect(rest.headers.get("www-authenticate")).toMatch(/^Bearer/);

      const viaTrpc = await trpc("search.similarToDescription", { description: "industrial robots" }, token);
      expect(viaTrpc.status).toBe(401);
      expect(viaTrpc.body.error.data.error).toMatchObject({ code: "UNAUTHORIZED" });
    }
    const mcp = await fetch(`${server.baseUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(401);
    expect(((await mcp.json()) as any).error.data).toMatchObject({ code: "UNAUTHORIZED" });
    const basic = await fetch(`${server.baseUrl}/v1/categories`, { headers: { authorization: "Basic YTpi" } });
    expect(basic.status).toBe(401);
  });

  it("keeps health, readiness and the API document public", async () => {
    for (const path of ["/health", "/ready", "/openapi.json"]) expect((await fetch(`${server.baseUrl}${path}`)).status).toBe(200);
  });

  it("answers another tenant's collection with 404 on REST, tRPC and MCP, and leaves it untouched", async () => {
    const mine = (await api(server, "POST", "/collections", { name: "Acme leads" }, keys.acme.token)).body;
    const item = await api(
      server,
      "POST",
      `/collections/${mine.id}/items`,
      { entity_type: "person", entity_id: "p1", entity: { full_name: "Ada" } },
      keys.acme.token,
    );
    expect(item.status).toBe(201);
    const g = keys.globex.token;

    for (const [method, path, body] of [
      ["GET", `/collections/${mine.id}`],
      ["PATCH", `/collections/${mine.id}`, { name: "taken" }],
      ["DELETE", `/collections/${mine.id}`],
      ["GET", `/collections/${mine.id}/items`],
      ["GET", `/collections/${mine.id}/items/${item.body.id}`],
      ["POST", `/collections/${mine.id}/items`, { entity_type: "person", entity_id: "p2" }],
      ["POST", `/collections/${mine.id}/items/bulk`, { items: [{ entity_type: "person", entity_id: "p3" }] }],
      ["PATCH", `/collections/${mine.id}/items/${item.body.id}`, { notes: "mine now" }],
      ["DELETE", `/collections/${mine.id}/items/${item.body.id}`],
    ] as const) {
      const response = await api(server, method, path, body, g);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.code).toBe("NOT_FOUND");
    }
    expect((await api(server, "GET", "/collections", undefined, g)).body.data).toEqual([]);

    const viaTrpc = await trpc("collections.get", { id: mine.id }, g);
    expect(viaTrpc.status).toBe(404);
    expect(viaTrpc.body.error.data.error.code).toBe("NOT_FOUND");

    const client = await mcpClient(g);
    try {
      const result = (await client.callTool({ name: "get_collection", arguments: { collection_id: mine.id } })) as any;
      expect(result.isError).toBe(true);
      expect(result._meta["orgsim/error"].code).toBe("NOT_FOUND");
      const listed = (await client.callTool({ name: "list_collections", arguments: {} })) as any;
      expect(listed.structuredContent.data).toEqual([]);
    } finally {
      await client.close();
    }

    const after = await api(server, "GET", `/collections/${mine.id}`, undefined, keys.acme.token);
    expect(after.body).toMatchObject({ name: "Acme leads", item_count: 1 });
    const items = await api(server, "GET", `/collections/${mine.id}/items`, undefined, keys.acme.token);
    expect(items.body.data.map((i: any) => [i.entity_id, i.notes])).toEqual([["p1", null]]);
  });

  it("leaves out what the caller's collections hold (exclude_collection_ids) on REST, tRPC and MCP; another tenant's collection is a 404", async () => {
    const token = keys.acme.token;
    const ask = { description: "industrial robots for factories", limit: 10 };
    const before = (await api(server, "GET", `/search/organizations/similar?${query(ask)}`, undefined, token)).body.data.map((o: { id: number }) => o.id);
    const saved = (await api(server, "POST", "/collections", { name: "Seen" }, token)).body;
    const items = before.slice(0, 3).map((id: number) => ({ entity_type: "organization", entity_id: String(id) }));
    expect((await api(server, "POST", `/collections/${saved.id}/items/bulk`, { items }, token)).status).toBe(201);
    const people = (await api(server, "POST", "/collections", { name: "People", entity_type: "person" }, token)).body;
    const expected = (await api(server, "GET", `/search/organizations/similar?${query({ ...ask, exclude_ids: before.slice(0, 3) })}`, undefined, token)).body
      .data;

    const viaRest = await api(
      server,
      "GET",
      `/search/organizations/similar?${query({ ...ask, exclude_collection_ids: [saved.id, people.id] })}`,
      undefined,
      token,
    );
    expect(viaRest.status, JSON.stringify(viaRest.body)).toBe(200);
    expect(viaRest.body.data.map((o: { id: number }) => o.id)).toEqual(expected.map((o: { id: number }) => o.id));
    expect(viaRest.body.data).toHaveLength(10);
    const viaTrpc = await createOrgsimClient({ url: server.baseUrl, apiKey: token }).search.similarToDescription.query({
      ...ask,
      exclude_collection_ids: [saved.id],
    });
    expect(viaTrpc.data.map((o) => o.id)).toEqual(expected.map((o: { id: number }) => o.id));
    const client = await mcpClient(token);
    try {
      const viaMcp = (await client.callTool({ name: "search_organizations_by_description", arguments: { ...ask, exclude_collection_ids: [saved.id] } })) as any;
      expect(viaMcp.structuredContent.data.map((o: { id: number }) => o.id)).toEqual(expected.map((o: { id: number }) => o.id));
    } finally {
      await client.close();
    }

    const theirs = await api(
      server,
      "GET",
      `/search/organizations/similar?${query({ ...ask, exclude_collection_ids: saved.id })}`,
      undefined,
      keys.globex.token,
    );
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toMatchObject({ code: "NOT_FOUND" });
    expect(theirs.body.error.message).toContain(saved.id);
    const malformed = await api(server, "GET", `/search/organizations/similar?${query({ ...ask, exclude_collection_ids: "robots" })}`, undefined, token);
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body.error)).toContain("exclude_collection_ids");
    const tooMany = Array.from({ length: 21 }, (_, i) => `col_${i}`);
    expect((await api(server, "GET", `/search/organizations/similar?${query({ ...ask, exclude_collection_ids: tooMany })}`, undefined, token)).status).toBe(
      400,
    );
  });

  it("serves the typed client with its apiKey, and tells it why without one", async () => {
    const acme = createOrgsimClient({ url: server.baseUrl, apiKey: keys.acme.token });
    const created = await acme.collections.create.mutate({ name: "From the typed client" });
    expect((await acme.collections.get.query({ id: created.id })).name).toBe("From the typed client");
    const anonymous = createOrgsimClient({ url: server.baseUrl });
    const refused = await anonymous.collections.get.query({ id: created.id }).catch(orgsimErrorOf);
    expect(refused).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    const globex = createOrgsimClient({ url: server.baseUrl, apiKey: keys.globex.token });
    expect(await globex.collections.get.query({ id: created.id }).catch(orgsimErrorOf)).toMatchObject({ code: "NOT_FOUND" });
  });

  it("shares a tenant's collections between its keys, and MCP sees them as REST does", async () => {
    const mine = (await api(server, "POST", "/collections", { name: "Shared in acme" }, keys.acme.token)).body;
    expect((await api(server, "GET", `/collections/${mine.id}`, undefined, keys.acme.token)).status).toBe(200);
    const client = await mcpClient(keys.acme.token);
    try {
      const seen = (await client.callTool({ name: "get_collection", arguments: { collection_id: mine.id } })) as any;
      expect(seen.structuredContent.data.name).toBe("Shared in acme");
    } finally {
      await client.close();
    }
  });

  it("refuses an operation outside the key's scopes with 403 FORBIDDEN naming the scope", async () => {
    const refused = await api(server, "POST", "/collections", { name: "Nope" }, keys.reader.token);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "FORBIDDEN", details: { required_scope: "collections:write" } });
    expect((await api(server, "GET", "/collections", undefined, keys.reader.token)).status).toBe(403);
    expect((await api(server, "DELETE", "/organizations/1", undefined, keys.reader.token)).body.error.details.required_scope).toBe("organizations:write");
    expect((await trpc("collections.create", { name: "Nope" }, keys.reader.token, "POST")).status).toBe(403);
    const search = await api(server, "GET", "/search/organizations/similar?description=industrial+robots&limit=2", undefined, keys.reader.token);
    expect(search.status).toBe(200);
    expect(search.body.data).toHaveLength(2);
    const client = await mcpClient(keys.reader.token);
    try {
      const result = (await client.callTool({ name: "create_collection", arguments: { name: "Nope" } })) as any;
      expect(result._meta["orgsim/error"]).toMatchObject({ code: "FORBIDDEN" });
    } finally {
      await client.close();
    }
  });

  it("rate-limits each key: RateLimit headers on every answer, then 429 RATE_LIMITED with Retry-After", async () => {
    const path = "/categories";
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await api(server, "GET", path, undefined, keys.limited.token));
    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[0]?.headers.get("ratelimit-limit")).toBe("5");
    expect(answers.slice(0, 5).map((a) => a.headers.get("ratelimit-remaining"))).toEqual(["4", "3", "2", "1", "0"]);
    const limited = answers[5];
    expect(limited?.status).toBe(429);
    expect(limited?.body.error).toMatchObject({ code: "RATE_LIMITED", status: 429, details: { limit_per_minute: 5 } });
    expect(Number(limited?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited?.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(answers[6]?.status).toBe(429);
    // Another key has its own budget.
    expect((await api(server, "GET", path, undefined, keys.reader.token)).status).toBe(200);
    const viaTrpc = await trpc("categories.list", {}, keys.limited.token);
    expect(viaTrpc.status).toBe(429);
    expect(viaTrpc.body.error.data.error.code).toBe("RATE_LIMITED");
  });

  it("counts each call of a tRPC batch against the key's limit, and bounds batches", async () => {
    const key = await createKey("acme", "search:read", "--rate-limit", "4");
    const batch = (n: number) =>
      fetch(`${server.baseUrl}/trpc/${Array(n).fill("categories.list").join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`, {
        headers: { authorization: `Bearer ${key.token}` },
      });
    const three = await batch(3);
    expect(three.status).toBe(200);
    expect(three.headers.get("ratelimit-remaining")).toBe("1");
    expect((await batch(2)).status).toBe(429);
    const tooMany = await fetch(`${server.baseUrl}/trpc/${Array(21).fill("categories.list").join(",")}?batch=1&input=%7B%7D`, {
      headers: { authorization: `Bearer ${keys.acme.token}` },
    });
    expect(tooMany.status).toBe(400);
  });

  it("counts each call of an MCP batch against the key's limit, and bounds batches", async () => {
    const key = await createKey("acme", "search:read", "--rate-limit", "4");
    const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "list_categories", arguments: {} } });
    const batch = (messages: unknown[], token = key.token) =>
      fetch(`${server.baseUrl}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
        body: JSON.stringify(messages),
      });
    const three = await batch([call(1), call(2), call(3)]);
    expect(three.status).toBe(200);
    expect(((await three.json()) as any[]).map((answer) => answer.id)).toEqual([1, 2, 3]);
    expect(three.headers.get("ratelimit-remaining")).toBe("1");
    const overBudget = await batch([call(4), call(5)]);
    expect(overBudget.status).toBe(429);
    expect(((await overBudget.json()) as any).error.data).toMatchObject({ code: "RATE_LIMITED" });

    const tooMany = await batch(
      Array.from({ length: 21 }, (_, i) => call(i + 1)),
      keys.acme.token,
    );
    expect(tooMany.status).toBe(400);
    const refused = (await tooMany.json()) as any;
    expect(refused.error.code).toBe(-32600);
    expect(refused.error.data).toMatchObject({
      code: "VALIDATION_FAILED",
      details: { issues: [{ path: ["batch"], message: expect.stringMatching(/at most 20/) }] },
    });
  });

  it("stops accepting a revoked key", async () => {
    const key = await createKey("acme", "search:read");
    expect((await api(server, "GET", "/categories", undefined, key.token)).status).toBe(200);
    const revoked = await orgsimCommand(["keys", "revoke", key.id], dataDir);
    expect(revoked.stdout).toMatch(/Revoked/);
    const after = await api(server, "GET", "/categories", undefined, key.token);
    expect(after.status).toBe(401);
    expect(after.body.error.message).toMatch(/revoked/);
    const listed = await orgsimCommand(["keys", "list", "--json"], dataDir);
    const list = JSON.parse(listed.stdout) as { id: string; revoked_at: string | null }[];
    expect(list.find((k) => k.id === key.id)?.revoked_at).toBeTruthy();
    expect(listed.stdout).not.toContain(key.token.slice(-43));
  });
});

describe("without API keys", () => {
  it("runs open on loopback and says so", async () => {
    const open = await startServer({ env: { ORGSIM_SAMPLE_SIZE: "0" } });
    try {
      expect(open.output()).toMatch(/Access\s+OPEN: no API keys configured/);
      expect((await api(open, "GET", "/categories")).status).toBe(200);
    } finally {
      await open.stop();
      removeDir(open.dataDir);
    }
  });

  it("refuses to listen beyond loopback", async () => {
    const dir = mkdtempSync(join(tmpdir(), "orgsim-exposed-"));
    try {
      await expect(startServer({ dataDir: dir, env: { ORGSIM_SAMPLE_SIZE: "0", HOST: "0.0.0.0" } })).rejects.toThrow(
        /Refusing to listen on 0\.0\.0\.0 without API keys/,
      );
    } finally {
      removeDir(dir);
    }
  });
});

describe("revoking the last key", () => {
  const dir = mkdtempSync(join(tmpdir(), "orgsim-revoked-"));
  afterAll(() => removeDir(dir));
  const command = (...args: string[]) => orgsimCommand(args, dir);
  const create = async () => {
    const result = await command("keys", "create", "--tenant", "acme", "--scopes", "search:read", "--json");
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as { id: string; token: string };
  };
  /** A call without a key on REST, tRPC and MCP: each surface's HTTP status. */
  async function statusesWithoutKey(on: TestServer) {
    const rest = await api(on, "GET", "/categories");
    const viaTrpc = await fetch(`${on.baseUrl}/trpc/categories.list`);
    const mcp = await fetch(`${on.baseUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    return { rest: rest.status, trpc: viaTrpc.status, mcp: mcp.status, message: rest.body.error?.message as string | undefined };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200)); // the server's log comes through a pipe
  const env = { ORGSIM_SAMPLE_SIZE: "0", ORGSIM_KEY_CACHE_MS: "0" };

  it("keeps requiring keys, says so in the log, and still does after a restart", async () => {
    const key = await create();
    const first = await startServer({ dataDir: dir, env });
    try {
      expect((await statusesWithoutKey(first)).rest).toBe(401);
      const revoked = await command("keys", "revoke", key.id);
      expect(revoked.stdout).toMatch(/No key is active now: servers keep requiring keys/);
      const after = await statusesWithoutKey(first);
      expect(after).toMatchObject({
        rest: 401,
        trpc: 401,
        mcp: 401,
        message: expect.stringMatching(/every API key of this server is revoked.*ORGSIM_OPEN=true/),
      });
      await settle();
      expect(first.output()).toMatch(/Access changed: every API key of this server is revoked, and keys stay required/);
    } finally {
      await first.stop();
    }
    const restarted = await startServer({ dataDir: dir, env });
    try {
      expect(restarted.output()).toMatch(/Access\s+API keys required, but every key is revoked/);
      expect(await statusesWithoutKey(restarted)).toMatchObject({ rest: 401, trpc: 401, mcp: 401 });
    } finally {
      await restarted.stop();
    }
  });

  it("runs open only when restarted with ORGSIM_OPEN=true, on loopback, and logs each change", async () => {
    const open = await startServer({ dataDir: dir, env: { ...env, ORGSIM_OPEN: "true" } });
    try {
      expect(open.output()).toMatch(/Access\s+OPEN \(ORGSIM_OPEN=true\)/);
      expect(await statusesWithoutKey(open)).toMatchObject({ rest: 200, trpc: 200, mcp: 200 });
      const key = await create();
      expect(await statusesWithoutKey(open)).toMatchObject({ rest: 401, trpc: 401, mcp: 401 });
      await command("keys", "revoke", key.id);
      expect((await statusesWithoutKey(open)).rest).toBe(200);
      await settle();
      expect(open.output()).toMatch(/Access changed: API keys are required[\s\S]*Access changed: OPEN: no API key is active and ORGSIM_OPEN=true/);
    } finally {
      await open.stop();
    }
    await expect(startServer({ dataDir: dir, env: { ...env, ORGSIM_OPEN: "true", HOST: "0.0.0.0" } })).rejects.toThrow(
      /Refusing ORGSIM_OPEN=true on 0\.0\.0\.0/,
    );
  });
});

describe("/metrics", () => {
  /** This machine's first non-loopback IPv4 address: a caller from off the machine, as far as the server can tell. */
  const outside = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

  it("is open on loopback, and off it needs a key with metrics:read", async () => {
    expect(outside, "a non-loopback IPv4 address to call from").toBeDefined();
    const metricsKey = await createKey("ops", "metrics:read");
    const wide = await startServer({ dataDir, env: { ORGSIM_SAMPLE_SIZE: "0", ORGSIM_KEY_CACHE_MS: "0", HOST: "0.0.0.0" } });
    try {
      const port = new URL(wide.baseUrl).port;
      const scrape = (base: string, token?: string) => fetch(`${base}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      const local = await scrape(`http://127.0.0.1:${port}`);
      expect(local.status).toBe(200);
      expect(local.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const remote = `http://${outside}:${port}`;
      expect((await scrape(remote)).status).toBe(401);
      const lacking = await scrape(remote, keys.reader.token);
      expect(lacking.status).toBe(403);
      expect(((await lacking.json()) as any).error.details.required_scope).toBe("metrics:read");
      const allowed = await scrape(remote, metricsKey.token);
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain("orgsim_http_requests_total");
    } finally {
      await wide.stop();
    }
  });

  it("counts requests by surface, route and status, rate-limit refusals, backend calls and embeddings", async () => {
    await api(server, "GET", `/search/organizations/similar?${query({ description: "industrial robots" })}`, undefined, keys.acme.token);
    await trpc("categories.list", {}, keys.acme.token);
    const client = await mcpClient(keys.acme.token);
    await client.listTools();
    await client.close();
    for (let i = 0; i < 6; i++) await api(server, "GET", "/categories", undefined, keys.limited.token);
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const value = (series: string) => {
      const line = text.split("\n").find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(value('orgsim_http_requests_total{surface="rest",route="GET /v1/search/organizations/similar",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(value('orgsim_http_requests_total{surface="trpc",route="/trpc/categories.list",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/orgsim_http_requests_total\{surface="mcp",route="\/mcp",status="200"\} \d+/);
    expect(value('orgsim_rate_limited_total{surface="rest"}')).toBeGreaterThanOrEqual(1);
    expect(value('orgsim_http_request_duration_seconds_count{surface="rest",route="GET /v1/search/organizations/similar"}')).toBeGreaterThanOrEqual(1);
    expect(value('orgsim_embedding_duration_seconds_count{purpose="query"}')).toBeGreaterThanOrEqual(1);
    expect(value('orgsim_backend_call_duration_seconds_count{operation="rank",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    // The 30 sample organizations, and any the other tests of this file wrote.
    expect(value("orgsim_organizations")).toBeGreaterThanOrEqual(30);
    // Never a key, never a query text.
    expect(text).not.toContain(keys.acme.token);
    expect(text).not.toContain("industrial");
  });
});

describe("request log", () => {
  type Line = Record<string, unknown>;
  const lines = (output: string): Line[] =>
    output.split("\n").flatMap((l) => {
      if (!l.startsWith("{")) return [];
      try {
        return [JSON.parse(l) as Line];
      } catch {
        return [];
      }
    });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300)); // the server's output comes through a pipe

  it("writes one JSON line per request with its id, route, status, duration and tenant; never a key or a query text", async () => {
    const res = await fetch(`${server.baseUrl}/v1/search/organizations/similar?${query({ description: "secret plans for payroll" })}`, {
      headers: { authorization: `Bearer ${keys.globex.token}` },
    });
    expect(res.status).toBe(200);
    await settle();
    const id = res.headers.get("x-request-id");
    const line = lines(server.output()).find((l) => l.request_id === id);
    expect(line).toMatchObject({
      msg: "request",
      method: "GET",
      surface: "rest",
      route: "GET /v1/search/organizations/similar",
      status: 200,
      tenant: "globex",
      duration_ms: expect.any(Number),
    });
    expect(line).not.toHaveProperty("query");
    expect(server.output()).not.toContain(keys.globex.token);
    expect(server.output()).not.toContain("secret plans");
    const refused = await fetch(`${server.baseUrl}/v1/categories`);
    await settle();
    expect(lines(server.output()).find((l) => l.request_id === refused.headers.get("x-request-id"))).toMatchObject({ status: 401, tenant: null });
  });

  it("writes the query string too with ORGSIM_LOG_QUERIES=true", async () => {
    const logging = await startServer({ dataDir, env: { ORGSIM_SAMPLE_SIZE: "0", ORGSIM_LOG_QUERIES: "true" } });
    try {
      const res = await fetch(`${logging.baseUrl}/v1/organizations?name=plans`, { headers: { authorization: `Bearer ${keys.acme.token}` } });
      await settle();
      expect(lines(logging.output()).find((l) => l.request_id === res.headers.get("x-request-id"))).toMatchObject({ query: "?name=plans", tenant: "acme" });
      expect(logging.output()).not.toContain(keys.acme.token);
    } finally {
      await logging.stop();
    }
  });
});
