/**
 * ORGSIM_WORKERS=2: two server processes on one port answer as one server, over real HTTP. The
 * primary hands each new connection to the next worker in turn, so requests made on connections
 * of their own reach both workers.
 */
import { type ChildProcess, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ORGSIM_NODE_FLAGS } from "@orgsim/runtime/node-flags";
import { startOrgsimServe } from "@orgsim/testing/serve";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVER_DIR, type ServerProcess, spawnServer, waitFor } from "./failures-support";
import { backendEnv, ENTRY, orgsimCommand, removeDir, sampleOrganizations } from "./harness";

const WORKERS = { ORGSIM_WORKERS: "2" };

interface Answer {
  status: number;
  body: any;
}

/** One REST request on a connection of its own (no keep-alive): the next worker in turn answers it. */
function fresh(server: ServerProcess, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.baseUrl}/v1${path}`,
      { method, agent: false, headers: { connection: "close", ...(payload ? { "content-type": "application/json" } : {}), ...headers } },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** The same request on `times` connections of their own, one after another. */
async function everywhere(server: ServerProcess, times: number, method: string, path: string, headers?: Record<string, string>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < times; i++) answers.push(await fresh(server, method, path, undefined, headers));
  return answers;
}

/** The server with both workers: it serves once the first is ready, and says when the second is. */
async function spawnWorkers(dataDir: string): Promise<ServerProcess> {
  const server = await spawnServer(dataDir, WORKERS);
  await waitFor("both workers", () => (ALL_READY.test(server.output()) ? true : undefined));
  return server;
}
const ALL_READY = /Workers: all 2 processes ready/;

/** The command lines of the primary's worker processes (its other children, such as tsx's esbuild when it runs the sources, left out), each from its pid. */
function workerCommands(server: { child: ChildProcess }): string[] {
  const listing = spawnSync("ps", ["-o", "pid=,args=", "--ppid", String(server.child.pid)], { encoding: "utf8" }).stdout;
  return listing
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => / serve$/.test(line));
}
const workerPids = (server: ServerProcess) => workerCommands(server).map((line) => Number.parseInt(line, 10));

describe("two worker processes on one port", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "orgsim-workers-"));
  const organizations = sampleOrganizations().slice(0, 30);
  let server: ServerProcess;

  beforeAll(async () => {
    server = await spawnWorkers(dataDir);
    expect((await fresh(server, "POST", "/organizations/bulk", { organizations })).status).toBe(200);
  });
  afterAll(async () => {
    await server?.kill();
    removeDir(dataDir);
  });

  it("says how many workers run, and runs them", () => {
    expect(server.output()).toMatch(/Workers\s+1 of 2 processes ready on one port/);
    expect(workerPids(server)).toHaveLength(2);
  });

  it("serves from the first worker while the next starts, after a clean stop too", async () => {
    await server.stop();
    server = await spawnServer(dataDir, WORKERS);
    // Ready and serving before the second worker is: the banner comes first, the line about both after it.
    const banner = server.output().search(/Workers\s+1 of 2/);
    expect(banner).toBeGreaterThanOrEqual(0);
    await waitFor("both workers", () => (ALL_READY.test(server.output()) ? true : undefined));
    expect(server.output().search(ALL_READY)).toBeGreaterThan(banner);
    for (const answer of await everywhere(server, 2, "GET", `/search/organizations/${organizations[1]?.id}/similar?limit=5`)) {
      expect(answer.status).toBe(200);
      expect(answer.body.data).toHaveLength(5);
    }
  });

  it("shows every worker a write, a replacement and a delete made through another at once, in searches too", async () => {
    const added = { ...(organizations[5] as (typeof organizations)[number]), id: 9001, name: "Quokkaworks", description: "Quokka habitat sensors for zoos." };
    expect((await fresh(server, "PUT", "/organizations/9001", added)).status).toBe(200);
    expect((await fresh(server, "DELETE", `/organizations/${organizations[0]?.id}`)).status).toBe(204);
    const similar = await everywhere(server, 4, "GET", `/search/organizations/${organizations[1]?.id}/similar?limit=50`);
    for (const answer of similar) {
      const ids = answer.body.data.map((o: { id: number }) => o.id);
      expect(ids).toContain(9001);
      expect(ids).not.toContain(organizations[0]?.id);
      expect(ids).toEqual(similar[0]?.body.data.map((o: { id: number }) => o.id));
    }
    for (const answer of await everywhere(server, 4, "GET", "/search/organizations/similar?description=quokka+habitat&limit=1")) {
      expect(answer.body.data[0]?.id).toBe(9001);
    }
  });

  it("answers /metrics, asked of either worker, with the sum of both workers' counts", async () => {
    const route = 'orgsim_http_requests_total{surface="rest",route="GET /v1/categories",status="200"}';
    const counted = async () => {
      const scrape = await fetch(`${server.baseUrl}/metrics`, { headers: { connection: "close" } });
      const line = (await scrape.text()).split("\n").find((l) => l.startsWith(`${route} `));
      return line === undefined ? 0 : Number(line.slice(route.length + 1));
    };
    const before = await counted();
    // Ten connections of their own: five reach each worker.
    for (const answer of await everywhere(server, 10, "GET", "/categories")) expect(answer.status).toBe(200);
    // Each scrape goes to the next worker in turn: both answer the total.
    expect([await counted(), await counted()]).toEqual([before + 10, before + 10]);
  });

  it("follows a page cursor made by one worker on another", async () => {
    const first = await fresh(server, "GET", "/search/organizations/similar?description=software&limit=5");
    const cursor = encodeURIComponent(first.body.meta.next_cursor);
    const next = await everywhere(server, 4, "GET", `/search/organizations/similar?description=software&limit=5&cursor=${cursor}`);
    for (const answer of next) expect(answer.status).toBe(200);
    expect(new Set(next.map((a) => JSON.stringify(a.body.data.map((o: { id: number }) => o.id)))).size).toBe(1);
  });

  it("replaces a worker killed with SIGKILL, and keeps answering", async () => {
    const before = workerPids(server);
    process.kill(before[0] as number, "SIGKILL");
    const after = await waitFor("a replacement worker", () => {
      const pids = workerPids(server);
      return pids.length === 2 && !pids.includes(before[0] as number) ? pids : undefined;
    });
    expect(after).toContain(before[1]);
    await waitFor("the replacement to answer", async () => {
      const answers = await everywhere(server, 4, "GET", "/search/organizations/similar?description=quokka+habitat&limit=1");
      return answers.every((a) => a.status === 200 && a.body.data[0]?.id === 9001) ? true : undefined;
    });
  });

  it("drains and stops every worker at SIGTERM, exiting 0", async () => {
    const pids = workerPids(server);
    server.child.kill("SIGTERM");
    expect((await server.exited).code).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe("an API key's rate limit across two workers", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "orgsim-workers-keys-"));
  let server: ServerProcess;
  let token: string;

  beforeAll(async () => {
    const created = await orgsimCommand(["keys", "create", "--tenant", "acme", "--scopes", "search:read", "--rate-limit", "4", "--json"], dataDir);
    token = JSON.parse(created.stdout).token;
    server = await spawnWorkers(dataDir);
  });
  afterAll(async () => {
    await server?.kill();
    removeDir(dataDir);
  });

  it("is one budget for the server, not one per worker", async () => {
    const answers = await everywhere(server, 8, "GET", "/search/organizations/similar?description=software&limit=1", { authorization: `Bearer ${token}` });
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
  });
});

describe("the workers' V8 flags", () => {
  it("runs every worker with orgsim's V8 flags, also when the primary was started without them", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "orgsim-workers-flags-"));
    const env = { ORGSIM_SAMPLE_SIZE: "0", ...backendEnv(dataDir), ...WORKERS };
    const server = await startOrgsimServe({ serverDir: SERVER_DIR, entry: ENTRY, nodeFlags: false, env });
    try {
      await waitFor("both workers", () => (ALL_READY.test(server.output()) ? true : undefined));
      const primary = spawnSync("ps", ["-o", "args=", "-p", String(server.child.pid)], { encoding: "utf8" }).stdout;
      for (const flag of ORGSIM_NODE_FLAGS) expect(primary).not.toContain(flag);
      const workers = workerCommands(server);
      expect(workers).toHaveLength(2);
      for (const command of workers) for (const flag of ORGSIM_NODE_FLAGS) expect(command.split(" ")).toContain(flag);
    } finally {
      await server.kill();
      removeDir(dataDir);
    }
  });
});
