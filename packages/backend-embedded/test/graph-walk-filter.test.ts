import { join } from "node:path";
import { randomRecords, rng, unitVector } from "@orgsim/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GRAPH_OPTIONS } from "../src/graph-shard";
import { GraphSearchThread } from "../src/graph-search-thread";
import { IdRows } from "../src/id-rows";
import { openEmbeddedBackend } from "../src/index";
import { type GraphFilter, type GraphHit, VectorGraph } from "../src/vector-graph";
import { tempDir } from "./temp-dir";

const DIM = 16;
const N = 1_500;
// Ids above 2^32 and up to 2^53, as organization ids are: the native side must find them as IdRows does.
const ids = Array.from({ length: N }, (_, row) => (row % 3 === 0 ? 2 ** 52 + row * 7_919 : row % 3 === 1 ? 300_000_000_000_000 + row : row + 1));
const random = rng(5);
const vectors = new Map(ids.map((id) => [id, unitVector(DIM, random)]));
// Two twins: ids sharing the vector of another id (one graph node for the three).
const [twinNode, twinA, twinB] = [ids[10] as number, 9_000_000_001, 9_000_000_002];
vectors.set(twinA, vectors.get(twinNode) as Float32Array);
vectors.set(twinB, vectors.get(twinNode) as Float32Array);
const allIds = [...vectors.keys()];
const source = { vectorOf: (id: number) => vectors.get(id) ?? null, allIds: () => vectors.keys() };

function matrixOf(list: readonly number[]): Float32Array {
  const matrix = new Float32Array(list.length * DIM);
  list.forEach((id, i) => {
    matrix.set(vectors.get(id) as Float32Array, i * DIM);
  });
  return matrix;
}

/** The rows (the ids' places in allIds) passing: a seeded share of them, and what IdRows makes of the ids. */
function filterOf(share: number, seed: number, rows = new IdRows()): { filter: GraphFilter; passes: (id: number) => boolean } {
  const draw = rng(seed);
  allIds.forEach((id, row) => {
    rows.set(id, row);
  });
  const allowed = Uint8Array.from(allIds, () => (draw() < share ? 1 : 0));
  const { ids: idTable, rows: rowTable } = rows.table;
  const passes = (id: number) => allowed[rows.get(id) as number] === 1;
  return { filter: { idTable, rowTable, allowed, share: allowed.reduce((a, b) => a + b, 0) / allIds.length }, passes };
}

/** The exact `count` nearest ids passing, by the f32 cosine. */
function exactNearest(query: Float32Array, count: number, passes: (id: number) => boolean): number[] {
  const dot = (v: Float32Array) => v.reduce((sum, x, i) => sum + x * (query[i] as number), 0);
  return allIds
    .filter(passes)
    .map((id) => ({ id, score: dot(vectors.get(id) as Float32Array) }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, count)
    .map((hit) => hit.id);
}

describe("a graph search that tests the filter inside the walk (views of saved shards)", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  const savedGraph = (shardNodes: number) => {
    const graph = new VectorGraph(DIM, source, GRAPH_OPTIONS.profile, shardNodes);
    graph.add(allIds, matrixOf(allIds));
    const file = (shard: number) => join(dir.path, `graph.s${shard}.usearch`);
    const { shards, twins } = graph.save(file);
    return VectorGraph.load(
      Array.from({ length: shards }, (_, shard) => file(shard)),
      DIM,
      source,
      GRAPH_OPTIONS.profile,
      twins,
      shardNodes,
    );
  };

  it.each([
    ["one graph", 10_000],
    ["shards of 400", 400],
  ])("finds the nearest that pass, as an exact scan does (%s)", (_, shardNodes) => {
    const graph = savedGraph(shardNodes);
    expect(graph.filtersInWalk).toBe(true);
    for (const [share, seed] of [
      [0.5, 1],
      [0.2, 2],
    ] as const) {
      const { filter, passes } = filterOf(share, seed);
      let found = 0;
      for (let q = 0; q < 30; q++) {
        const query = unitVector(DIM, rng(100 + q));
        const hits = graph.filteredSearch(query, 20, 0, filter);
        const nodes = hits.filter((hit) => hit.id !== twinA && hit.id !== twinB);
        expect(nodes.every((hit) => passes(hit.id) || hit.id === twinNode)).toBe(true);
        expect(nodes.map((hit) => hit.distance)).toEqual(nodes.map((hit) => hit.distance).sort((a, b) => a - b));
        const exact = exactNearest(query, 10, passes);
        found += exact.filter((id) => hits.some((hit) => hit.id === id)).length;
      }
      expect(found / (30 * 10)).toBeGreaterThanOrEqual(0.98);
    }
  });

  it("passes a node whose twin passes though it fails, leaves out removed nodes, and stops once a shard is written to", () => {
    const graph = savedGraph(10_000);
    const rows = new IdRows();
    const { filter } = filterOf(0.5, 3, rows);
    filter.allowed[rows.get(twinNode) as number] = 0;
    filter.allowed[rows.get(twinB) as number] = 1;
    const query = vectors.get(twinNode) as Float32Array;
    const hits: GraphHit[] = graph.filteredSearch(query, 5, 0, filter);
    expect(hits.slice(0, 3).map((hit) => hit.id)).toEqual([twinNode, twinA, twinB]);

    const nearestPassing = hits.find((hit) => hit.id !== twinNode && hit.id !== twinA && hit.id !== twinB) as GraphHit;
    graph.remove(nearestPassing.id);
    const after = graph.filteredSearch(query, 5, 0, filter);
    expect(after.map((hit) => hit.id)).not.toContain(nearestPassing.id);
    expect(after.filter((hit) => hit.id !== twinA && hit.id !== twinB)).toHaveLength(5);

    // A new node copies the shard into memory, which only the search without the filter answers.
    const added = 7_777_777;
    vectors.set(added, unitVector(DIM, rng(9)));
    graph.add([added], matrixOf([added]));
    expect(graph.filtersInWalk).toBe(false);
    vectors.delete(added);
  });
});

describe("a filtered vector ranking of a store opened on its saved graphs", () => {
  it("tests the filter inside the walk when no search was made beforehand, and ranks as an exact scan does (on and off the data)", async () => {
    const dir = tempDir();
    const model = { modelId: "test-model", dimension: DIM };
    const records = randomRecords(3_000, DIM, 21);
    const writer = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0 } });
    await writer.organizations.upsert(records, model);
    await writer.organizations.vectorIndexSettled();
    await writer.close();
    const walked = vi.spyOn(VectorGraph.prototype, "filteredSearch");
    const graphs = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, searchThread: false } });
    const exact = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: Number.POSITIVE_INFINITY, searchThread: false } });
    let found = 0;
    let asked = 0;
    for (const filter of [{ employeesMin: 50 }, { foundedYearMin: 2000 }, { employeesMin: 20 }]) {
      for (let seed = 0; seed < 10; seed++) {
        // A text's embedding (off the data), and an organization's own vector, itself excluded; 100
        // wanted, as a hybrid ranking asks (for a page of 10 the search without the filter is cheaper).
        const own = records[seed * 97] as (typeof records)[number];
        for (const query of [
          { vector: unitVector(DIM, rng(300 + seed)), kind: "profile" as const, filter, offset: 0, size: 100, storedVector: false },
          {
            vector: own.profileVector,
            kind: "profile" as const,
            filter: { ...filter, excludeIds: [own.organization.id] },
            offset: 0,
            size: 100,
            storedVector: true,
          },
        ]) {
          const want = (await exact.organizations.rank(query)).map((hit) => hit.id);
          const got = (await graphs.organizations.rank(query)).map((hit) => hit.id);
          expect(got).toHaveLength(want.length);
          found += want.filter((id) => got.includes(id)).length;
          asked += want.length;
        }
      }
    }
    // Every search on the data walked; off it, those whose filter passes few rows (searched 256 wide anyway, walkIsCheaper).
    expect(walked.mock.calls.length).toBeGreaterThanOrEqual(30);
    expect(found / asked).toBeGreaterThanOrEqual(0.98);
    walked.mockRestore();
    await graphs.close();
    await exact.close();
    dir.remove();
  });

  describe("with the graph search thread, the 1,200 nearest to an organization failing the filter", () => {
    const records = randomRecords(3_000, DIM, 23);
    const own = records[11] as (typeof records)[number];
    // The 1,200 nearest to `own` fail the filter (employees at least 50), the 1,800 others pass: a
    // search without the filter, 128 to 240 wide, finds none that pass.
    const cosine = (v: Float32Array) => v.reduce((sum, x, i) => sum + x * (own.profileVector[i] as number), 0);
    const byNearness = [...records].sort((a, b) => cosine(b.profileVector) - cosine(a.profileVector));
    byNearness.forEach((record, place) => {
      record.organization.metrics.employee_count = place < 1_200 ? 10 : 100;
    });
    const filter = { employeesMin: 50, excludeIds: [own.organization.id] };
    const queryOf = (size: number) => ({ vector: own.profileVector, kind: "profile" as const, filter, offset: 0, size, storedVector: true });
    let dir: ReturnType<typeof tempDir>;
    let stores: Record<"threaded" | "unthreaded" | "exact", ReturnType<typeof openEmbeddedBackend>>;
    beforeEach(async () => {
      dir = tempDir();
      const writer = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0 } });
      await writer.organizations.upsert(records, { modelId: "test-model", dimension: DIM });
      await writer.organizations.vectorIndexSettled();
      await writer.close();
      stores = {
        threaded: openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, searchThread: "always" } }),
        unthreaded: openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, searchThread: false } }),
        exact: openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: Number.POSITIVE_INFINITY, searchThread: false } }),
      };
      // The graph search thread started and ready, as after an import.
      await stores.threaded.organizations.vectorIndexSettled();
    });
    afterEach(async () => {
      vi.restoreAllMocks();
      for (const store of Object.values(stores)) await store.close();
      dir.remove();
    });

    it("walks on the thread when the walk comes first (100 wanted), answering as the walk on the caller's thread", async () => {
      const prefetched = vi.spyOn(VectorGraph.prototype, "prefetch");
      const searched = vi.spyOn(VectorGraph.prototype, "search");
      const onThread = vi.spyOn(GraphSearchThread.prototype, "search");
      // As a hybrid ranking asks while its word ranking runs.
      const got = await stores.threaded.organizations.rank({ ...queryOf(100), concurrent: true });
      expect(prefetched).toHaveBeenCalledTimes(1);
      expect(prefetched.mock.calls[0]?.[4]).toBeDefined();
      expect(onThread.mock.calls[0]?.[1].map((view) => view.walk?.breadth)).toEqual([141]);
      expect(await onThread.mock.results[0]?.value).toEqual([expect.objectContaining({ keys: expect.any(Float64Array) })]);
      expect(searched).not.toHaveBeenCalled();
      expect(got).toEqual(await stores.unthreaded.organizations.rank(queryOf(100)));
      const want = (await stores.exact.organizations.rank(queryOf(100))).map((hit) => hit.id);
      expect(want.filter((id) => got.some((hit) => hit.id === id)).length).toBeGreaterThanOrEqual(98);
    });

    it("walks for the rest when a search without the filter, made on the thread (a page of 10), found too few that pass", async () => {
      const prefetched = vi.spyOn(VectorGraph.prototype, "prefetch");
      const walked = vi.spyOn(VectorGraph.prototype, "filteredSearch");
      const searched = vi.spyOn(VectorGraph.prototype, "search");
      const got = (await stores.threaded.organizations.rank({ ...queryOf(10), concurrent: true })).map((hit) => hit.id);
      expect(prefetched).toHaveBeenCalledTimes(1);
      expect(prefetched.mock.calls[0]?.[4]).toBeUndefined();
      expect(searched).toHaveBeenCalledTimes(1);
      expect(walked).toHaveBeenCalledTimes(1);
      const want = (await stores.exact.organizations.rank(queryOf(10))).map((hit) => hit.id);
      expect(got).toHaveLength(10);
      expect(want.filter((id) => got.includes(id)).length).toBeGreaterThanOrEqual(9);
    });
  });

  it("walks only where searching without the filter would search wider than the graph is searched anyway, over one graph", async () => {
    const model = { modelId: "test-model", dimension: DIM };
    const records = randomRecords(3_000, DIM, 22);
    const walks = async (shardNodes: number, size: number) => {
      const dir = tempDir();
      const writer = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, shardNodes } });
      await writer.organizations.upsert(records, model);
      await writer.organizations.vectorIndexSettled();
      await writer.close();
      const reader = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0, searchThread: false, shardNodes } });
      const walked = vi.spyOn(VectorGraph.prototype, "filteredSearch");
      const own = records[7] as (typeof records)[number];
      // About 73 % of the rows pass (employees at least 50).
      const filter = { employeesMin: 50, excludeIds: [own.organization.id] };
      await reader.organizations.rank({ vector: own.profileVector, kind: "profile", filter, offset: 0, size, storedVector: true });
      const calls = walked.mock.calls.length;
      walked.mockRestore();
      await reader.close();
      dir.remove();
      return calls;
    };
    // 100 wanted: 141 candidates that pass, about 190 asked without the filter, wider than the 128 searched anyway.
    expect(await walks(100_000, 100)).toBe(1);
    // A page of 10: about 70 asked without the filter, within the 128.
    expect(await walks(100_000, 10)).toBe(0);
    // Three graphs of 1,000.
    expect(await walks(1_000, 100)).toBe(0);
  });
});
