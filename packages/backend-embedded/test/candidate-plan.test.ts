import { rng, unitVector } from "@orgsim/testing";
import { describe, expect, it, vi } from "vitest";
import { candidateRows, type PlanInput } from "../src/candidate-plan";
import { FilteredRows } from "../src/filtered-rows";
import { VectorGraphs } from "../src/vector-graphs";

const DIM = 8;
const N = 2_000;

/** Graphs of N random vectors (id = row) in shards of `shardNodes`. */
function graphsOf(shardNodes: number): { graphs: VectorGraphs; vectors: Float32Array[] } {
  const random = rng(11);
  const vectors = Array.from({ length: N }, () => unitVector(DIM, random));
  const graphs = new VectorGraphs(DIM, shardNodes, {
    vectorOf: (id, kind) => (kind === "profile" ? (vectors[id] ?? null) : null),
    allIds: () => vectors.keys(),
  });
  graphs.put(Array.from(vectors.keys()));
  graphs.finish();
  return { graphs, vectors };
}

const plan = (graphs: VectorGraphs, query: Float32Array, filtered: FilteredRows | null): PlanInput => ({
  graphs,
  exactBelow: 1,
  query,
  kind: "profile",
  k: 10,
  rowCount: N,
  filtered,
  excludedIds: new Set(),
  rowOf: (id) => id,
});

describe("the candidate plan weighs a graph search by the breadth its shards are searched", () => {
  it("asks one graph of all rows for candidates", () => {
    const { graphs, vectors } = graphsOf(N);
    const rows = candidateRows(plan(graphs, vectors[3] as Float32Array, null));
    expect(rows).not.toBeNull();
    expect(rows?.length).toBeLessThan(N);
    expect(Array.from(rows ?? [])).toContain(3);
  });

  it("scans instead when asking every one of many shards costs more than scanning the rows that pass", () => {
    const { graphs, vectors } = graphsOf(100);
    const query = vectors[3] as Float32Array;
    expect(candidateRows(plan(graphs, query, null))).toBeNull();
    const passing = new FilteredRows(
      Int32Array.from({ length: 300 }, (_, i) => i),
      N,
    );
    expect(candidateRows(plan(graphs, query, passing))).toBe(passing.rows);
  });
});

describe("the candidate plan asks the graph again when the filter passes too few of the query's neighbours", () => {
  it("asks for as many more as the rate that passed predicts, not a fixed multiple", () => {
    const { graphs, vectors } = graphsOf(N);
    const query = vectors[3] as Float32Array;
    // Half of all rows pass, but only every sixth of the query's 300 nearest.
    const byDistance = [...vectors.keys()].sort((a, b) => closeness(query, vectors[b]) - closeness(query, vectors[a]));
    const passes = byDistance.filter((_, i) => (i < 300 ? i % 6 === 0 : i % 2 === 0) || i >= 1_800);
    const filtered = new FilteredRows(Int32Array.from(passes.sort((a, b) => a - b)), N);
    expect(filtered.length).toBe(1_000);
    const search = vi.spyOn(graphs.graph("profile"), "search");
    const k = 30;
    const rows = candidateRows({ ...plan(graphs, query, filtered), k, exactBelow: 0 });
    const counts = search.mock.calls.map((call) => call[1]);
    expect(counts[0]).toBe(140); // (k 30 + 40) x 2,000 rows / 1,000 passing
    const passedFirst = ((search.mock.results[0]?.value ?? []) as { id: number }[]).filter((hit) => filtered.bitmap[hit.id]).length;
    expect(passedFirst).toBeLessThan(k);
    expect(counts[1]).toBe(Math.max(280, Math.ceil((140 * (k + 40)) / passedFirst)));
    expect(counts[1]).toBeLessThan(4 * 140);
    expect(rows?.length).toBeGreaterThanOrEqual(k);
  });
});

describe("the candidate plan keeps every hit a filtered search of several shards found", () => {
  it("takes the passing rows past the nearest `count` instead of asking the graph again", () => {
    // Four shards: each is asked for twice its share, so the search finds about twice `count`.
    const { graphs, vectors } = graphsOf(N / 4);
    const query = vectors[3] as Float32Array;
    // Half of all rows pass, but only every sixth of the query's 300 nearest.
    const byDistance = [...vectors.keys()].sort((a, b) => closeness(query, vectors[b]) - closeness(query, vectors[a]));
    const passes = byDistance.filter((_, i) => (i < 300 ? i % 6 === 0 : i % 2 === 0));
    const filtered = new FilteredRows(Int32Array.from(passes.sort((a, b) => a - b)), N);
    const k = 30;
    const count = Math.ceil(((k + 40) * N) / filtered.length);
    const graph = graphs.graph("profile");
    const passingAmongNearest = graph.search(query, count).filter((hit) => filtered.bitmap[hit.id]).length;
    expect(passingAmongNearest).toBeLessThan(k);
    const search = vi.spyOn(graph, "search");
    const rows = candidateRows({ ...plan(graphs, query, filtered), k, exactBelow: 0 });
    expect(search.mock.calls.map((call) => call[1])).toEqual([count]);
    expect(rows?.length).toBeGreaterThanOrEqual(k);
    expect(Array.from(rows ?? []).every((row) => filtered.bitmap[row])).toBe(true);
  });
});

describe("the candidate plan searches a query it knows to be off the data wide at once", () => {
  it("asks the graph once, wide, for a text's embedding, where an unknown query first looks where it lies", () => {
    const { graphs } = graphsOf(N);
    const query = unitVector(DIM, rng(99));
    const graph = graphs.graph("profile");
    const search = vi.spyOn(graph, "search");
    const askedFor = (storedVector: boolean | undefined) => {
      search.mockClear();
      expect(candidateRows({ ...plan(graphs, query, null), exactBelow: 0, storedVector })?.length).toBeGreaterThanOrEqual(10);
      return search.mock.calls.map((call) => [call[1], call[2]]);
    };
    expect(askedFor(false)).toEqual([[256, 256]]);
    expect(askedFor(undefined)).toEqual([
      [50, 0],
      [256, 256],
    ]);
  });
});

const closeness = (a: Float32Array, b: Float32Array | undefined) => a.reduce((sum, x, i) => sum + x * (b?.[i] ?? 0), 0);
