/**
 * Elasticsearch going away: with the cluster killed (SIGKILL of its JVM), every API call that
 * needs it answers 503 BACKEND_UNAVAILABLE in the contract's shape on REST, tRPC and MCP (not
 * 500, and soon, not after a hang), /ready answers 503 with the backend check false, and when
 * the node is started again on the same data the same server recovers by itself: the same
 * requests succeed, /ready is 200 and nothing acknowledged before the crash is lost.
 *
 * Uses its own node (ES_PORT 9272 unless ORGSIM_FAULT_ES_PORT says otherwise, a temporary
 * ES_HOME), so stopping it disturbs no other test.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { generateSampleOrganizations } from "@orgsim/sample-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callServer, SERVER_DIR, type ServerProcess, spawnServer, waitFor } from "./failures-support";
import { removeDir, TEST_BACKEND } from "./harness";

const run = promisify(execFile);
const ES_TOOL = join(SERVER_DIR, "..", "..", "tools", "elasticsearch-node", "es.mjs");
const ES_PORT = process.env.ORGSIM_FAULT_ES_PORT || "9272";
const ES_URL = `http://127.0.0.1:${ES_PORT}`;

describe.skipIf(TEST_BACKEND !== "elasticsearch")("Elasticsearch going away", () => {
  let esHome: string;
  let dataDir: string;
  const es = (command: "start" | "stop") =>
    run(process.execPath, [ES_TOOL, command], { env: { ...process.env, ES_PORT, ES_HOME: esHome, ES_HEAP: "512m" }, encoding: "utf8" });
  let server: ServerProcess;
  let collectionId: string;
  const organizations = generateSampleOrganizations({ count: 6 });

  beforeAll(async () => {
    esHome = mkdtempSync(join(tmpdir(), "orgsim-es-fault-"));
    dataDir = mkdtempSync(join(tmpdir(), "orgsim-es-fault-data-"));
    const started = await es("start");
    if (/already running/.test(`${started.stdout}${started.stderr}`)) {
      throw new Error(`a node not of this test already answers on port ${ES_PORT}; set ORGSIM_FAULT_ES_PORT to a free port`);
    }
    server = await spawnServer(dataDir, { ORGSIM_BACKEND: "elasticsearch", ELASTICSEARCH_URL: ES_URL, ORGSIM_ES_INDEX_PREFIX: "fault" });
    expect((await call("POST", "/v1/organizations/bulk", { organizations: organizations.slice(0, 5) })).status).toBe(200);
    const created = await call("POST", "/v1/collections", { name: "Before the crash" });
    expect(created.status).toBe(201);
    collectionId = created.body.id;
    expect((await call("POST", `/v1/collections/${collectionId}/items`, { entity_type: "organization", entity_id: "1" })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.kill();
    if (esHome) {
      await es("stop").catch(() => undefined);
      removeDir(esHome);
    }
    if (dataDir) removeDir(dataDir);
  });

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => callServer(server, method, path, body, headers);

  /** One call of every kind that needs the cluster, on every surface; `contract` finds the contract error in a failed answer. */
  const calls = (): { name: string; send: () => ReturnType<typeof call>; contract: (body: any) => any }[] => {
    const rest = (body: any) => body?.error;
    const trpc = (body: any) => body?.error?.data?.error;
    const mcp = (body: any) => body?.error?.data;
    const q = encodeURIComponent;
    return [
      { name: "REST search by description", send: () => call("GET", "/v1/search/organizations/similar?description=robots+for+factories"), contract: rest },
      { name: "REST similar organizations", send: () => call("GET", "/v1/search/organizations/1/similar"), contract: rest },
      { name: "REST similar customers", send: () => call("GET", "/v1/search/organizations/similar-customers?organization_customer=hospitals"), contract: rest },
      { name: "REST get organization", send: () => call("GET", "/v1/organizations/2"), contract: rest },
      { name: "REST bulk upsert", send: () => call("POST", "/v1/organizations/bulk", { organizations: organizations.slice(5) }), contract: rest },
      { name: "REST list collections", send: () => call("GET", "/v1/collections"), contract: rest },
      { name: "REST create collection", send: () => call("POST", "/v1/collections", { name: "During" }), contract: rest },
      { name: "REST get collection", send: () => call("GET", `/v1/collections/${collectionId}`), contract: rest },
      {
        name: "REST add item",
        send: () => call("POST", `/v1/collections/${collectionId}/items`, { entity_type: "organization", entity_id: "3" }),
        contract: rest,
      },
      { name: "REST list items", send: () => call("GET", `/v1/collections/${collectionId}/items`), contract: rest },
      {
        name: "tRPC query",
        send: () => call("GET", `/trpc/search.similarToDescription?input=${q(JSON.stringify({ description: "robots" }))}`),
        contract: trpc,
      },
      { name: "tRPC mutation", send: () => call("POST", "/trpc/collections.create", { name: "Via tRPC" }), contract: trpc },
      {
        name: "MCP tool call",
        send: () =>
          call(
            "POST",
            "/mcp",
            { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_organizations_by_description", arguments: { description: "robots" } } },
            { accept: "application/json, text/event-stream" },
          ),
        contract: mcp,
      },
    ];
  };

  it("answers 503 BACKEND_UNAVAILABLE everywhere while it is down and recovers by itself when it is back", { timeout: 240_000 }, async () => {
    for (const c of calls()) expect((await c.send()).status, c.name).toBeLessThan(300);
    expect((await call("GET", "/ready")).status).toBe(200);

    // Fault: the node dies (SIGKILL: no clean shutdown, the translog replays at the next start).
    const pid = Number(readFileSync(join(esHome, "es.pid"), "utf8"));
    process.kill(pid, "SIGKILL");
    await waitFor("the node to be gone", () => (alive(pid) ? undefined : true));
    const downAt = Date.now();

    const took: number[] = [];
    for (const c of calls()) {
      const t0 = Date.now();
      const { status, body } = await c.send();
      took.push(Date.now() - t0);
      expect(status, `${c.name}: ${JSON.stringify(body)}`).toBe(503);
      const error = c.contract(body);
      expect(error, `${c.name}: ${JSON.stringify(body)}`).toMatchObject({
        code: "BACKEND_UNAVAILABLE",
        status: 503,
        details: expect.any(Object),
        request_id: expect.any(String),
      });
      expect(error.message).toMatch(/^Elasticsearch is unreachable/);
      // No internals: no host, port, client message or stack.
      expect(error.message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|\n\s+at /);
    }
    const ready = await call("GET", "/ready");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: "not_ready", checks: { backend: false, model: true, data_loaded: true, accepting: true } });
    expect((await call("GET", "/health")).status).toBe(200);
    expect(server.output()).toMatch(/Elasticsearch at http:\/\/127\.0\.0\.1:\d+ is unavailable/);

    // The node comes back on the same data; the server was not restarted.
    const restartAt = Date.now();
    await es("start");
    const healthyAt = Date.now();
    await waitFor("/ready to answer 200", async () => ((await call("GET", "/ready")).status === 200 ? true : undefined), 60_000, 100);
    const readyAt = Date.now();
    for (const c of calls()) expect((await c.send()).status, c.name).toBeLessThan(300);
    expect(server.child.exitCode).toBeNull();
    expect(server.output()).toMatch(/Elasticsearch at http:\/\/127\.0\.0\.1:\d+ answers again/);
    // Nothing acknowledged before the crash is lost.
    for (const o of organizations.slice(0, 5)) expect((await call("GET", `/v1/organizations/${o.id}`)).status).toBe(200);
    const collection = await call("GET", `/v1/collections/${collectionId}`);
    expect(collection.body).toMatchObject({ name: "Before the crash", entity_type: "organization" });
    expect(collection.body.item_count).toBeGreaterThanOrEqual(2);

    const sorted = [...took].sort((a, b) => a - b);
    console.log(
      `[fault] elasticsearch: SIGKILL of the node: ${took.length} calls answered 503 in ${sorted[0]}–${sorted.at(-1)} ms (median ${sorted[Math.floor(sorted.length / 2)]} ms); ` +
        `down for ${((restartAt - downAt) / 1000).toFixed(1)} s; node healthy again ${((healthyAt - restartAt) / 1000).toFixed(1)} s after its start, ` +
        `/ready 200 ${readyAt - healthyAt} ms after that; no server restart`,
    );
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
