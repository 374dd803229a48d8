import { copyFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { type Embedder, SearchService, SimilarToDescriptionInput, SimilarToOrganizationInput } from "@orgsim/core";
import { randomRecords, rng, unitVector } from "@orgsim/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GRAPH_OPTIONS, VIEW_OPTIONS } from "../src/graph-shard";
import { type CpuTimes, GraphSearchThread, SpareCore } from "../src/graph-search-thread";
import { IdRows } from "../src/id-rows";
import { openEmbeddedBackend, SqliteOrganizationStore } from "../src/index";
import { VectorGraph } from "../src/vector-graph";
import { tempDir } from "./temp-dir";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };

/** A store of `records` written to `dataDir` and closed: its graphs saved, to be opened again as views. */
async function writeSavedGraphs(dataDir: string, records: ReturnType<typeof randomRecords>): Promise<void> {
  const writer = openEmbeddedBackend({ dataDir, vectorIndex: { exactBelow: 0 } });
  await writer.organizations.upsert(records, MODEL);
  await writer.organizations.vectorIndexSettled();
  await writer.close();
}

describe("graph searches on the graph search thread", () => {
  let dir: ReturnType<typeof tempDir>;
  let thread: GraphSearchThread;
  const records = randomRecords(1200, DIM, 51);
  const byId = new Map(records.map((r) => [r.organization.id, r.profileVector]));
  const vectors = { vectorOf: (id: number) => byId.get(id) ?? null, allIds: () => byId.keys() };
  const queries = Array.from({ length: 20 }, (_, i) => unitVector(DIM, rng(60 + i)));

  /** A graph of `records` in shards of `shardNodes`, saved and opened again: its shards are views. */
  const savedGraph = (shardNodes: number) => {
    const graph = new VectorGraph(DIM, vectors, GRAPH_OPTIONS.profile, shardNodes);
    graph.add([...byId.keys()], matrixOf(records.map((r) => r.profileVector)));
    const file = (shard: number) => join(dir.path, `graph.s${shard}.usearch`);
    const { shards, twins } = graph.save(file);
    const files = Array.from({ length: shards }, (_, shard) => file(shard));
    return { graph: VectorGraph.load(files, DIM, vectors, GRAPH_OPTIONS.profile, twins, shardNodes), files };
  };

  beforeEach(async () => {
    dir = tempDir();
    // Whatever the machine's load (tests run side by side).
    thread = new GraphSearchThread(DIM, VIEW_OPTIONS, false);
    await thread.ready();
  });
  afterEach(async () => {
    await thread.close();
    dir.remove();
  });

  it.each([
    ["one graph", 10_000],
    ["shards of 300", 300],
  ])("answers every shard's first search as the shard itself does (%s)", async (_, shardNodes) => {
    const { graph } = savedGraph(shardNodes);
    for (const query of queries) {
      const prefetched = await graph.prefetch(query, 60, 0, thread);
      expect(prefetched.size).toBe(Math.ceil(records.length / Math.min(shardNodes, records.length)));
      expect(graph.search(query, 60, 0, prefetched)).toEqual(graph.search(query, 60, 0));
    }
  });

  it("answers a shard's first walk with a filter as the shard itself does, and only the walk with that filter", async () => {
    const { graph } = savedGraph(10_000);
    const rows = new IdRows();
    records.forEach((r, row) => {
      rows.set(r.organization.id, row);
    });
    const allowed = new Uint8Array(new SharedArrayBuffer(records.length)).map((_, row) => (row % 3 === 0 ? 0 : 1));
    const filter = { idTable: rows.table.ids, rowTable: rows.table.rows, allowed, share: 2 / 3 };
    for (const query of queries) {
      const prefetched = await graph.prefetch(query, 60, 0, thread, filter);
      expect(prefetched.size).toBe(1);
      expect(graph.filteredSearch(query, 60, 0, filter, prefetched)).toEqual(graph.filteredSearch(query, 60, 0, filter));
    }
    // The thread's walk answers (its first 5 nodes alone come back as they are) for that filter only.
    const query = queries[0] as Float32Array;
    const prefetched = await graph.prefetch(query, 60, 0, thread, filter);
    const cut = new Map(
      [...prefetched].map(([shard, { search, matches }]) => [
        shard,
        { search, matches: { keys: matches.keys.slice(0, 5), distances: matches.distances.slice(0, 5) } },
      ]),
    );
    expect(graph.filteredSearch(query, 60, 0, filter, cut)).toHaveLength(5);
    expect(graph.filteredSearch(query, 60, 0, { ...filter, allowed: allowed.slice() }, cut)).toHaveLength(60);
    expect(graph.search(query, 60, 0, cut)).toEqual(graph.search(query, 60, 0));
  });

  it("leaves out nodes removed after its search, and answers nothing for a shard written to since", async () => {
    const { graph } = savedGraph(300);
    const query = queries[0] as Float32Array;
    const prefetched = await graph.prefetch(query, 60, 0, thread);
    const [nearest] = graph.search(query, 1);
    graph.remove(nearest?.id as number);
    // Added to the last shard, which is copied into memory: its prefetched search no longer answers for it.
    const added = { id: 5_000, vector: query };
    byId.set(added.id, added.vector);
    graph.add([added.id], matrixOf([added.vector]));
    const hits = graph.search(query, 60, 0, prefetched);
    expect(hits).toEqual(graph.search(query, 60, 0));
    expect(hits[0]?.id).toBe(added.id);
    expect(hits.map((h) => h.id)).not.toContain(nearest?.id);
    byId.delete(added.id);
  });

  it("refuses a file replaced under its name since the shard mapped it: the shard searches its own view", async () => {
    const { graph, files } = savedGraph(10_000);
    const other = new VectorGraph(DIM, vectors, GRAPH_OPTIONS.profile, 10_000);
    const half = records.slice(0, 600);
    other.add(
      half.map((r) => r.organization.id),
      matrixOf(half.map((r) => r.profileVector)),
    );
    other.save(() => join(dir.path, "other.usearch"));
    copyFileSync(join(dir.path, "other.usearch"), join(dir.path, "other.copy"));
    renameSync(join(dir.path, "other.copy"), files[0] as string);
    const query = queries[1] as Float32Array;
    expect((await graph.prefetch(query, 60, 0, thread)).size).toBe(0);
    expect(graph.search(query, 60, 0).length).toBe(60);
  });
});

describe("the embedded store's graph search thread", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    vi.restoreAllMocks();
    dir.remove();
  });

  it("ranks a hybrid ranking's vectors on the thread, exactly as without it, filtered and not, after writes too", async () => {
    const records = randomRecords(3000, DIM, 71);
    const writer = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, shardNodes: 1000 } });
    await writer.organizations.upsert(records, MODEL);
    await writer.organizations.vectorIndexSettled();
    await writer.close();
    const answered = vi.spyOn(GraphSearchThread.prototype, "search");
    const withThread = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, searchThread: "always" } });
    const without = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, searchThread: false } });
    await withThread.organizations.vectorIndexSettled();
    const expectSame = async (seed: number) => {
      for (const filter of [{}, { employeesMin: 50 }, { excludeIds: [1, 2, 3] }]) {
        const query = { vector: unitVector(DIM, rng(seed)), kind: "profile" as const, filter, offset: 0, size: 100, concurrent: true };
        expect(await withThread.organizations.rank(query)).toEqual(await without.organizations.rank(query));
      }
    };
    for (let seed = 80; seed < 90; seed++) await expectSame(seed);
    const results = await Promise.all(answered.mock.results.map((r) => r.value));
    expect(results.length).toBeGreaterThanOrEqual(30);
    expect(results.every((r) => Array.isArray(r) && r.length === 3 && r.every((m) => m !== null))).toBe(true);
    // A write copies the last shard into memory; a delete leaves a node out of a view.
    await withThread.organizations.upsert(randomRecords(5, DIM, 72, 10_000), MODEL);
    await withThread.organizations.delete(17);
    for (let seed = 90; seed < 95; seed++) await expectSame(seed);
    await withThread.close();
    await without.close();
  });
});

describe("the walk with the filter on the graph search thread (a store of one graph)", () => {
  it("ranks as without the thread, also when this thread writes while the walk runs", async () => {
    const dir = tempDir();
    const records = randomRecords(3000, DIM, 73);
    await writeSavedGraphs(dir.path, records);
    const withThread = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, searchThread: "always" } });
    const without = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, searchThread: false } });
    await withThread.organizations.vectorIndexSettled();
    const walks = vi.spyOn(GraphSearchThread.prototype, "search");
    const filter = { employeesMin: 50 };
    const queryOf = (seed: number, storedVector: boolean) => ({
      vector: unitVector(DIM, rng(seed)),
      kind: "profile" as const,
      filter,
      offset: 0,
      size: 100,
      storedVector,
      concurrent: true,
    });
    const expectSame = async (seeds: number[]) => {
      for (const seed of seeds)
        for (const query of [queryOf(seed, false), queryOf(seed, true)])
          expect(await withThread.organizations.rank(query)).toEqual(await without.organizations.rank(query));
    };
    await expectSame([100, 101, 102]);
    // Stored vectors walk (141 that pass, where a search without the filter would ask about 193);
    // a text's embedding is searched 256 wide anyway, without the filter.
    expect(walks.mock.calls.map(([, views]) => views.map((view) => view.walk !== undefined))).toEqual(
      Array(3)
        .fill([[false], [true]])
        .flat(),
    );
    expect((await Promise.all(walks.mock.results.map((r) => r.value))).every((r) => r?.[0] !== null)).toBe(true);
    // A ranking whose walk may still run while 2,000 organizations are written (IdRows grows into new tables) and one deleted.
    const more = randomRecords(2000, DIM, 74, 10_000);
    const employees = new Map([...records, ...more].map((r) => [r.organization.id, r.organization.metrics.employee_count ?? 0]));
    const ranking = withThread.organizations.rank(queryOf(103, true));
    await Promise.all([withThread.organizations.upsert(more, MODEL), withThread.organizations.delete(records[5]?.organization.id as number)]);
    const hits = await ranking;
    expect(hits).toHaveLength(100);
    expect(hits.every((hit) => (employees.get(hit.id) as number) >= 50)).toBe(true);
    await withThread.organizations.vectorIndexSettled();
    await expectSame([104, 105]);
    await withThread.close();
    await without.close();
    dir.remove();
  });
});

describe("the hybrid ranking's vector ranking, beside its word ranking", () => {
  it("is asked for beside the words when it starts before they end (similar to an organization), not when a description is embedded after", async () => {
    const dir = tempDir();
    const backend = openEmbeddedBackend({ dataDir: dir.path });
    await backend.organizations.upsert(randomRecords(300, DIM, 91), MODEL);
    // A real delay, as a model's: the description's words are ranked meanwhile.
    const embedder: Embedder = {
      ...MODEL,
      embed: async (texts) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return texts.map(() => unitVector(DIM, rng(92)));
      },
      close: async () => {},
    };
    const search = new SearchService(backend.organizations, embedder);
    const ranked = vi.spyOn(SqliteOrganizationStore.prototype, "rank");
    const worded = vi.spyOn(SqliteOrganizationStore.prototype, "searchText");
    await search.similarToOrganization(SimilarToOrganizationInput.parse({ organization_id: "7" }));
    expect(ranked.mock.calls.map(([query]) => query.concurrent)).toEqual([true]);
    // Both halves were known at once: the vectors went to the other thread before the words took this one.
    expect(ranked.mock.invocationCallOrder[0]).toBeLessThan(worded.mock.invocationCallOrder[0] as number);
    ranked.mockClear();
    worded.mockRestore();
    await search.similarToDescription(SimilarToDescriptionInput.parse({ description: "payments for small shops" }));
    expect(ranked.mock.calls.map(([query]) => query.concurrent)).toEqual([false]);
    ranked.mockRestore();
    await backend.close();
    dir.remove();
  });
});

describe("a search the graph search thread takes", () => {
  it("is one asked before the thread starts (which starts it) or while it runs, none once it is closed", async () => {
    const thread = new GraphSearchThread(DIM, VIEW_OPTIONS, false);
    expect(thread.takesSearches()).toBe(true);
    await thread.ready();
    expect(thread.takesSearches()).toBe(true);
    await thread.close();
    expect(thread.takesSearches()).toBe(false);
  });

  it("is not planned by a ranking while the thread takes none (no core to spare): the ranking answers the same", async () => {
    const dir = tempDir();
    await writeSavedGraphs(dir.path, randomRecords(3000, DIM, 75));
    const store = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, searchThread: "always" } });
    await store.organizations.vectorIndexSettled();
    const query = {
      vector: unitVector(DIM, rng(76)),
      kind: "profile" as const,
      filter: { employeesMin: 50 },
      offset: 0,
      size: 100,
      storedVector: true,
      concurrent: true,
    };
    const prefetched = vi.spyOn(VectorGraph.prototype, "prefetch");
    const planned = await store.organizations.rank(query);
    expect(prefetched).toHaveBeenCalledTimes(1);
    vi.spyOn(GraphSearchThread.prototype, "takesSearches").mockReturnValue(false);
    expect(await store.organizations.rank(query)).toEqual(planned);
    expect(prefetched).toHaveBeenCalledTimes(1);
    vi.restoreAllMocks();
    await store.close();
    dir.remove();
  });
});

describe("a spare core", () => {
  it("is there while the CPUs were at least half a core idle over the last tenth of a second, and is read at most that often", () => {
    const readings: CpuTimes[] = [];
    let at = performance.now() - 1_000;
    // Two cores: `idleMs` of idle time out of `totalMs` of CPU time since the reading before.
    const next = (idleMs: number, totalMs: number) => {
      const last = readings.at(-1) ?? { idle: 0, total: 0, cores: 2, at };
      at += 200;
      readings.push({ idle: last.idle + idleMs, total: last.total + totalMs, cores: 2, at });
    };
    next(0, 0);
    let read = 0;
    const spare = new SpareCore(() => readings[read++] as CpuTimes);
    next(100, 400); // half a core idle
    expect(spare.available()).toBe(true);
    next(40, 400); // a fifth of a core idle
    expect(spare.available()).toBe(false);
    next(300, 400); // 1.5 cores idle
    expect(spare.available()).toBe(true);
    next(0, 400);
    // Read a moment ago (its last reading is "now"): the answer stands, nothing more is read.
    (readings[read - 1] as CpuTimes).at = performance.now();
    expect(spare.available()).toBe(true);
    expect(read).toBe(4);
  });
});

function matrixOf(vectors: Float32Array[]): Float32Array {
  const matrix = new Float32Array(vectors.length * DIM);
  vectors.forEach((v, i) => {
    matrix.set(v, i * DIM);
  });
  return matrix;
}
