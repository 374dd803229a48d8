import { rng, unitVector } from "@orgsim/testing";
import { describe, expect, it } from "vitest";
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
