/**
 * A three-node Elasticsearch cluster losing a node under traffic: with one replica of each shard,
 * searches keep answering while a node is killed (SIGKILL of its JVM) and while it comes back, and
 * every write the server acknowledged is there afterwards.
 *
 * Uses its own cluster (`es.mjs start --nodes 3` on ports 9282-9284 unless ORGSIM_CLUSTER_ES_PORT
 * says otherwise, a temporary ES_HOME), so killing a node disturbs no other test.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { generateSampleOrganizations } from "@orgsim/sample-data";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callServer, SERVER_DIR, type ServerProcess, sleep, spawnServer } from "./failures-support";
import { removeDir, TEST_BACKEND } from "./harness";

const run = promisify(execFile);
const ES_TOOL = join(SERVER_DIR, "..", "..", "tools", "elasticsearch-node", "es.mjs");
const FIRST_PORT = Number(process.env.ORGSIM_CLUSTER_ES_PORT || "9282");
const VICTIM_PORT = FIRST_PORT + 1;

interface Traffic {
  reads: { phase: string; status: number }[];
  acknowledged: Map<number, string>;
  stop(): Promise<void>;
}

describe.skipIf(TEST_BACKEND !== "elasticsearch")("a three-node Elasticsearch cluster losing a node", () => {
  let esHome: string;
  let dataDir: string;
  let server: ServerProcess;
  const cluster = (command: "start" | "stop") =>
    run(process.execPath, [ES_TOOL, command, "--nodes", "3"], {
      env: { ...process.env, ES_PORT: String(FIRST_PORT), ES_HOME: esHome, ES_HEAP: "512m", ES_START_TIMEOUT: "240" },
      encoding: "utf8",
    });
  const organizations = generateSampleOrganizations({ count: 400 });

  beforeAll(async () => {
    esHome = mkdtempSync(join(tmpdir(), "orgsim-es-cluster-"));
    dataDir = mkdtempSync(join(tmpdir(), "orgsim-es-cluster-data-"));
    const started = await cluster("start");
    if (/already running/.test(started.stderr)) throw new Error(`a node not of this test answers on ports ${FIRST_PORT}+; set ORGSIM_CLUSTER_ES_PORT`);
    server = await spawnServer(dataDir, {
      ORGSIM_BACKEND: "elasticsearch",
      ELASTICSEARCH_URL: started.stdout.trim(),
      ORGSIM_ES_INDEX_PREFIX: "cluster",
      ORGSIM_ES_SHARDS: "3",
      ORGSIM_ES_REPLICAS: "1",
    });
    expect((await call("POST", "/v1/organizations/bulk", { organizations: organizations.slice(0, 200) })).status).toBe(200);
    await waitGreen();
  });
  afterAll(async () => {
    await server?.kill();
    if (esHome) {
      await cluster("stop").catch(() => undefined);
      removeDir(esHome);
    }
    if (dataDir) removeDir(dataDir);
  });

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => callServer(server, method, path, body, headers);

  async function waitGreen() {
    const health = await fetch(`http://127.0.0.1:${FIRST_PORT}/_cluster/health?wait_for_status=green&timeout=120s`);
    expect(((await health.json()) as { status: string }).status).toBe("green");
  }

  /** One reader and one writer, each a request at a time, until stopped; `phase()` labels what they meet. */
  function traffic(phase: () => string): Traffic {
    const reads: Traffic["reads"] = [];
    const acknowledged = new Map<number, string>();
    let running = true;
    const reader = (async () => {
      for (let i = 0; running; i++) {
        const q = ["robots for factories", "payroll software", "clinical trials", "solar farms"][i % 4] as string;
        const at = phase();
        const answer = await call("GET", `/v1/search/organizations/similar?description=${encodeURIComponent(q)}&limit=10`).catch(() => ({ status: 0 }));
        reads.push({ phase: at, status: answer.status });
      }
    })();
    const writer = (async () => {
      for (let i = 200; running && i < organizations.length; i++) {
        const organization = organizations[i] as (typeof organizations)[number];
        const answer = await call("PUT", `/v1/organizations/${organization.id}`, organization).catch(() => ({ status: 0 }));
        if (answer.status === 200 || answer.status === 201) acknowledged.set(organization.id, organization.name);
      }
    })();
    return {
      reads,
      acknowledged,
      async stop() {
        running = false;
        await Promise.all([reader, writer]);
      },
    };
  }

  it("keeps answering searches and keeps every acknowledged write through a node's kill -9 and return", { timeout: 600_000 }, async () => {
    let phase = "before";
    const load = traffic(() => phase);
    await sleep(3_000);
    const victim = Number.parseInt(readFileSync(join(esHome, `node-${VICTIM_PORT}`, "es.pid"), "utf8"), 10);
    process.kill(victim, "SIGKILL");
    phase = "node down";
    await sleep(10_000);
    phase = "node returning";
    await cluster("start"); // starts the missing node and waits until the three form the cluster again
    await sleep(3_000);
    await load.stop();
    await waitGreen();

    const phases = ["before", "node down", "node returning"].map((name) => ({ name, reads: load.reads.filter((r) => r.phase === name) }));
    const summary = phases.map(({ name, reads }) => `${name}: ${reads.filter((r) => r.status === 200).length}/${reads.length} searches answered`);
    console.log(`[cluster] ${summary.join("; ")}; ${load.acknowledged.size} writes acknowledged`);
    for (const { name, reads } of phases) expect(reads.length, name).toBeGreaterThan(0);
    expect(load.reads.filter((r) => r.status !== 200)).toEqual([]);

    expect(load.acknowledged.size).toBeGreaterThan(0);
    for (const [id, name] of load.acknowledged) {
      const stored = await call("GET", `/v1/organizations/${id}`);
      expect(stored.status, `organization ${id}`).toBe(200);
      expect(stored.body.name).toBe(name);
    }
    for (const organization of organizations.slice(0, 200)) expect((await call("GET", `/v1/organizations/${organization.id}`)).status).toBe(200);
  });
});
