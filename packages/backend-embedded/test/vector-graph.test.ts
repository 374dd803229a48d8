import { availableParallelism } from "node:os";
import { randomRecords } from "@orgsim/testing";
import { expect, it } from "vitest";
import { GRAPH_OPTIONS } from "../src/graph-shard";
import { type GraphHit, VectorGraph } from "../src/vector-graph";

const DIM = 16;

// usearch's concurrent add left a node no search reaches in about 2 of 3 such builds (unum-cloud/USearch#735): see GraphShard.relinkStranded.
it.runIf(availableParallelism() > 1)("finds every vector a build with every core added, as its own nearest (5 builds of 300)", () => {
  for (let build = 0; build < 5; build++) {
    const records = randomRecords(300, DIM, 40 + build);
    const byId = new Map(records.map((r) => [r.organization.id, r.profileVector]));
    const graph = new VectorGraph(DIM, { vectorOf: (id) => byId.get(id) ?? null, allIds: () => byId.keys() }, GRAPH_OPTIONS.profile);
    const matrix = new Float32Array(records.length * DIM);
    for (const [i, r] of records.entries()) matrix.set(r.profileVector, i * DIM);
    graph.add([...byId.keys()], matrix);
    const missed = records.filter((r) => graph.search(r.profileVector, 1)[0]?.id !== r.organization.id).map((r) => r.organization.id);
    expect(missed).toEqual([]);
  }
});

it("hands over the nodes its shards found past the nearest `count` apart, when asked for them, nearest first", () => {
  const records = randomRecords(400, DIM, 7);
  const byId = new Map(records.map((r) => [r.organization.id, r.profileVector]));
  // Four shards of 100: each is asked for twice its share of a search's count.
  const graph = new VectorGraph(DIM, { vectorOf: (id) => byId.get(id) ?? null, allIds: () => byId.keys() }, GRAPH_OPTIONS.profile, 100);
  const matrix = new Float32Array(records.length * DIM);
  for (const [i, r] of records.entries()) matrix.set(r.profileVector, i * DIM);
  graph.add([...byId.keys()], matrix);
  const query = records[5]?.profileVector as Float32Array;
  const beyond: GraphHit[] = [];
  const nearest = graph.search(query, 40, 0, undefined, beyond);
  expect(graph.search(query, 40)).toEqual(nearest);
  expect(nearest).toHaveLength(40);
  expect(beyond.length).toBeGreaterThan(0);
  const all = [...nearest, ...beyond];
  const distances = all.map((hit) => hit.distance);
  expect(distances).toEqual([...distances].sort((a, b) => a - b));
  expect(new Set(all.map((hit) => hit.id)).size).toBe(all.length);
});
