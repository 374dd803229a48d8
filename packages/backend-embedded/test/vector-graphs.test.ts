import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { OrganizationFilter, VectorKind } from "@orgsim/core";
import { randomRecords, rng, unitVector } from "@orgsim/testing";
import { describeOrganizationStoreContract } from "@orgsim/testing/contracts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EmbeddedBackend, openEmbeddedBackend, type VectorIndexOptions } from "../src/index";
import { tempDir } from "./temp-dir";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };
/** Every ranking takes its candidates from the graphs (and the pending organizations). */
const GRAPHS_ALWAYS = { exactBelow: 0 } as const;
/** The same with graphs split into shards of 400 organizations (3000 make 8): every search merges shards. */
const SMALL_SHARDS = { exactBelow: 0, shardNodes: 400 } as const;

describeOrganizationStoreContract("embedded, every ranking through the HNSW graphs", {
  backend: "embedded",
  async open() {
    const dir = tempDir();
    const backend = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: GRAPHS_ALWAYS });
    return {
      store: backend.organizations,
      async cleanup() {
        await backend.close();
        dir.remove();
      },
    };
  },
});

describeOrganizationStoreContract("embedded, every ranking through HNSW graphs of 7 organizations a shard", {
  backend: "embedded",
  async open() {
    const dir = tempDir();
    const backend = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, shardNodes: 7 } });
    return {
      store: backend.organizations,
      async cleanup() {
        await backend.close();
        dir.remove();
      },
    };
  },
});

describe("embedded: the HNSW graphs", () => {
  let dir: ReturnType<typeof tempDir>;
  const opened: EmbeddedBackend[] = [];
  const open = (vectorIndex: Omit<VectorIndexOptions, "dir"> = GRAPHS_ALWAYS) => {
    const backend = openEmbeddedBackend({ dataDir: dir.path, vectorIndex });
    opened.push(backend);
    return backend;
  };

  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
    dir.remove();
  });

  it.each([
    ["one graph", GRAPHS_ALWAYS],
    ["shards of 400", SMALL_SHARDS],
  ])("finds the exact top 10 (recall >= 0.98) with exact scores, unfiltered and under broad and restrictive filters (%s)", async (_, options) => {
    const records = randomRecords(3000, DIM, 7);
    const graphs = open(options);
    await graphs.organizations.upsert(records, MODEL);
    await graphs.organizations.vectorIndexSettled();
    expect(graphs.organizations.vectorIndexStatus().current).toBe(true);
    const exactDir = tempDir();
    const exact = openEmbeddedBackend({ dataDir: exactDir.path, vectorIndex: { kind: "exact" } });
    await exact.organizations.upsert(records, MODEL);
    const filters: OrganizationFilter[] = [{}, { employeesMin: 50 }, { fundingStages: ["seed"] }, { excludeIds: [1, 2, 3] }];
    const random = rng(8);
    let found = 0;
    let wanted = 0;
    for (const filter of filters) {
      for (const kind of ["profile", "customer"] as VectorKind[]) {
        for (let q = 0; q < 25; q++) {
          const query = { vector: unitVector(DIM, random), kind, filter, offset: 0, size: 10 };
          const want = await exact.organizations.rank(query);
          const got = await graphs.organizations.rank(query);
          const exactScores = new Map(want.map((h) => [h.id, h.score]));
          for (const hit of got) if (exactScores.has(hit.id)) expect(hit.score).toBe(exactScores.get(hit.id));
          found += got.filter((h) => exactScores.has(h.id)).length;
          wanted += want.length;
          expect(got.length).toBe(want.length);
        }
      }
    }
    await exact.close();
    exactDir.remove();
    expect(found / wanted).toBeGreaterThanOrEqual(0.98);
  });

  it.each([
    ["one graph", GRAPHS_ALWAYS],
    ["shards of 400", SMALL_SHARDS],
  ])("ranks a run of identical vectors longer than the graph's candidates by id, after deletes and a reopen too (%s)", async (_, options) => {
    const records = randomRecords(3000, DIM, 21);
    const vector = unitVector(DIM, rng(22));
    const twinOf = (id: number) => {
      const record = records[id % 3000] as (typeof records)[number];
      return { ...record, organization: { ...record.organization, id }, profileVector: vector };
    };
    const twins = Array.from({ length: 500 }, (_, i) => twinOf(9000 - i));
    const first = open(options);
    await first.organizations.upsert(records, MODEL);
    for (let i = 0; i < twins.length; i += 50) await first.organizations.upsert(twins.slice(i, i + 50), MODEL);
    await first.organizations.vectorIndexSettled();
    const expectRun = async (backend: EmbeddedBackend, ids: number[]) => {
      for (const [offset, size] of [
        [0, 100],
        [37, 50],
        [ids.length - 50, 100],
      ] as const) {
        const got = await backend.organizations.rank({ vector, kind: "profile", filter: {}, offset, size });
        expect(got.map((h) => h.id).slice(0, Math.max(0, ids.length - offset))).toEqual(ids.slice(offset, offset + size));
      }
    };
    await expectRun(
      first,
      Array.from({ length: 500 }, (_, i) => 8501 + i),
    );
    // 9000 is the node the others hang off: deleting it puts them back in the graph.
    await first.organizations.delete(9000);
    await first.organizations.delete(8501);
    const left = Array.from({ length: 498 }, (_, i) => 8502 + i);
    await expectRun(first, left);
    await first.organizations.vectorIndexSettled();
    await expectRun(first, left);
    await first.close();

    const again = open(options);
    expect(again.organizations.vectorIndexStatus().current).toBe(true);
    await expectRun(again, left);
    await again.organizations.upsert([twinOf(20_000)], MODEL);
    await again.organizations.vectorIndexSettled();
    await expectRun(again, [...left, 20_000]);
  });

  it("finds a cluster imported into one shard whole, though each shard is asked for its share of the candidates only", async () => {
    const records = randomRecords(3000, DIM, 31);
    const center = unitVector(DIM, rng(32));
    const random = rng(33);
    // 400 organizations close around one point, written together: they fill about one shard.
    const cluster = Array.from({ length: 400 }, (_, i) => {
      const record = records[i] as (typeof records)[number];
      const near = unitVector(DIM, random).map((x, j) => (center[j] as number) + 0.05 * x);
      const norm = Math.hypot(...near);
      return { ...record, organization: { ...record.organization, id: 10_000 + i }, profileVector: near.map((x) => x / norm) };
    });
    const graphs = open(SMALL_SHARDS);
    await graphs.organizations.upsert(records, MODEL);
    await graphs.organizations.upsert(cluster, MODEL);
    await graphs.organizations.vectorIndexSettled();
    const exactDir = tempDir();
    const exact = openEmbeddedBackend({ dataDir: exactDir.path, vectorIndex: { kind: "exact" } });
    await exact.organizations.upsert([...records, ...cluster], MODEL);
    const query = { vector: center, kind: "profile" as const, filter: {}, offset: 0, size: 100 };
    const want = (await exact.organizations.rank(query)).map((h) => h.id);
    const got = new Set((await graphs.organizations.rank(query)).map((h) => h.id));
    await exact.close();
    exactDir.remove();
    expect(want.filter((id) => got.has(id)).length / want.length).toBeGreaterThanOrEqual(0.98);
  });

  it.each([
    ["one graph", GRAPHS_ALWAYS, 300],
    ["shards of 100", { exactBelow: 0, shardNodes: 100 }, 100],
  ])("saves the graphs with the generation they reflect, and loads them instead of rebuilding (%s)", async (_, options, shardNodes) => {
    const progress: (string | undefined)[] = [];
    const records = randomRecords(300, DIM, 1);
    const customers = records.filter((r) => r.customerVector).length;
    const files = Math.ceil(300 / shardNodes) + Math.ceil(customers / shardNodes);
    const first = open({ ...options, onProgress: (p) => progress.push(p.reason) });
    await first.organizations.upsert(records, MODEL);
    await first.organizations.vectorIndexSettled();
    await first.close();
    expect(existsSync(join(dir.path, "orgsim.vectors.json"))).toBe(true);
    expect(readdirSync(dir.path).filter((f) => f.endsWith(".usearch"))).toHaveLength(files);

    progress.length = 0;
    const again = open({ ...options, onProgress: (p) => progress.push(p.reason) });
    expect(again.organizations.vectorIndexStatus().current).toBe(true);
    expect(progress).toEqual([]);
    const query = { vector: (records[42] as (typeof records)[number]).profileVector, kind: "profile" as const, filter: {}, offset: 0, size: 1 };
    expect((await again.organizations.rank(query)).map((hit) => hit.id)).toEqual([(records[42] as (typeof records)[number]).organization.id]);
  });

  it.each([
    ["a few", 30],
    // More than a mapped shard keeps aside: it is copied into memory without them.
    ["many", 1_100],
  ])("after a reopen (full shards mapped), ranks exactly through updates and deletes of %s organizations in them, and saves them", async (_, changed) => {
    const options = { exactBelow: 0, shardNodes: 1_200 };
    const records = randomRecords(3_000, DIM, 31);
    const first = open(options);
    await first.organizations.upsert(records, MODEL);
    await first.organizations.vectorIndexSettled();
    await first.close();

    const exactDir = tempDir();
    const exact = openEmbeddedBackend({ dataDir: exactDir.path, vectorIndex: { kind: "exact" } });
    await exact.organizations.upsert(records, MODEL);
    const reasons: (string | undefined)[] = [];
    let graphs = open({ ...options, onProgress: (p) => reasons.push(p.reason) });
    const random = rng(32);
    // The first shards' organizations: the first `changed` get new vectors, every third of them is deleted.
    const updated = records.slice(0, changed).map((r) => ({ ...r, profileVector: unitVector(DIM, random) }));
    const deleted = updated.filter((_, i) => i % 3 === 0).map((r) => r.organization.id);
    for (const store of [graphs.organizations, exact.organizations]) {
      for (let i = 0; i < updated.length; i += 10) await store.upsert(updated.slice(i, i + 10), MODEL);
      for (const id of deleted) await store.delete(id);
    }
    await graphs.organizations.vectorIndexSettled();
    const expectExactTop = async () => {
      let found = 0;
      let wanted = 0;
      for (const record of [...updated.slice(0, 60), ...records.slice(2_000, 2_040)]) {
        const query = { vector: record.profileVector, kind: "profile" as const, filter: {}, offset: 0, size: 10 };
        const want = (await exact.organizations.rank(query)).map((h) => h.id);
        const got = (await graphs.organizations.rank(query)).map((h) => h.id);
        expect(got.filter((id) => deleted.includes(id))).toEqual([]);
        found += got.filter((id) => want.includes(id)).length;
        wanted += want.length;
      }
      expect(found / wanted).toBeGreaterThanOrEqual(0.98);
    };
    await expectExactTop();
    await graphs.close();
    graphs = open({ ...options, onProgress: (p) => reasons.push(p.reason) });
    expect(graphs.organizations.vectorIndexStatus().current).toBe(true);
    expect(reasons).toEqual([]);
    await expectExactTop();
    await exact.close();
    exactDir.remove();
  });

  it("adds a small write to the graphs before it returns, except in a bulk import, whose writes wait for one pass after them", async () => {
    const records = randomRecords(200, DIM, 12);
    const serving = open();
    await serving.organizations.upsert(records.slice(0, 40), MODEL);
    expect(serving.organizations.vectorIndexStatus()).toMatchObject({ current: true });
    await serving.close();

    const progress: { done: number; total: number }[] = [];
    const importing = open({ ...GRAPHS_ALWAYS, bulkImport: true, onProgress: ({ done, total }) => progress.push({ done, total }) });
    for (let i = 40; i < 200; i += 40) await importing.organizations.upsert(records.slice(i, i + 40), MODEL);
    expect(importing.organizations.vectorIndexStatus().current).toBe(false);
    // Searched meanwhile, the pending organizations are scanned exactly.
    const query = { vector: records[150]?.profileVector as Float32Array, kind: "profile" as const, filter: {}, offset: 0, size: 1 };
    expect((await importing.organizations.rank(query)).map((hit) => hit.id)).toEqual([records[150]?.organization.id]);
    await importing.organizations.vectorIndexSettled();
    expect(importing.organizations.vectorIndexStatus()).toMatchObject({ current: true, done: 160, total: 160 });
    // Its progress counts the 160 organizations, both their graphs together (the profiles' first).
    expect(progress).toEqual([
      { done: 80, total: 160 },
      { done: 160, total: 160 },
    ]);
  });

  it("rebuilds graphs that another connection's writes made stale, answering exactly meanwhile", async () => {
    const first = open();
    await first.organizations.upsert(randomRecords(300, DIM, 1), MODEL);
    await first.close();
    const other = open({ kind: "exact" });
    const added = randomRecords(1, DIM, 9, 5000)[0];
    await other.organizations.upsert([added as NonNullable<typeof added>], MODEL);
    await other.close();

    const reasons: (string | undefined)[] = [];
    const reopened = open({ ...GRAPHS_ALWAYS, onProgress: (p) => reasons.push(p.reason) });
    expect(reopened.organizations.vectorIndexStatus().current).toBe(false);
    expect(reasons[0]).toMatch(/generation/);
    const hits = await reopened.organizations.rank({ vector: added?.profileVector as Float32Array, kind: "profile", filter: {}, offset: 0, size: 1 });
    expect(hits[0]?.id).toBe(5000);
    await reopened.organizations.vectorIndexSettled();
    expect(reopened.organizations.vectorIndexStatus().current).toBe(true);
  });

  it("a kill -9 at any moment of a build leaves a store that opens with every acknowledged write", async () => {
    const records = [...randomRecords(400, DIM, 1), ...randomRecords(400, DIM, 2, 401)];
    for (const delayMs of [0, 120, 400]) {
      dir.remove();
      dir = tempDir();
      await killWorkerAfterAck(dir.path, delayMs);
      const reopened = open();
      const store = reopened.organizations;
      expect(await store.count()).toBe(800);
      expect((await store.getMany(records.map((r) => r.organization.id))).length).toBe(800);
      await store.vectorIndexSettled();
      expect(store.vectorIndexStatus().current).toBe(true);
      // Each organization is its own nearest neighbour: the graph holds the stored vectors (HNSW may miss a few).
      let found = 0;
      for (const record of records) {
        const [hit] = await store.rank({ vector: record.profileVector, kind: "profile", filter: {}, offset: 0, size: 1 });
        if (hit?.id === record.organization.id) found++;
      }
      expect(found / records.length).toBeGreaterThanOrEqual(0.98);
      await reopened.close();
      opened.splice(0);
    }
  });
});

function killWorkerAfterAck(dataDir: string, delayMs: number): Promise<void> {
  const worker = join(import.meta.dirname, "fixtures", "upsert-worker.ts");
  const child = spawn(process.execPath, ["--import", "tsx", worker, dataDir, String(DIM)], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("acked")) setTimeout(() => child.kill("SIGKILL"), delayMs);
    });
    child.on("exit", (_code, signal) => (signal === "SIGKILL" ? resolve() : reject(new Error(`the worker exited (${signal ?? _code}) before it was killed`))));
  });
}
