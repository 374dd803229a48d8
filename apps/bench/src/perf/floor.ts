/**
 * The floors of similar-to-organization latency, one query at a time for the same organizations'
 * vectors: the embedded backend's vector library's own search (usearch, the saved profile graph's
 * shards loaded in this process, each searched and the hits merged), and Elasticsearch's own kNN `_search` over plain HTTP. What the server
 * adds on top is routing, validation, filtering, exact re-scoring, document fetch and HTTP.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GRAPH_OPTIONS, openDatabase, STORED_VECTOR_SQL, VectorGraph } from "@orgsim/backend-embedded";
import { DEFAULT_OVERSAMPLE, ID_ONLY } from "@orgsim/backend-elasticsearch";
import { summarize } from "./stats";

export interface FloorResult {
  queries: number;
  latency_ms: { p50: number; p99: number; mean: number };
}

/** The stored profile vectors of `ids` (those that have one), from the embedded data directory. */
function profileVectors(dataDir: string, ids: number[]): { id: number; vector: Float32Array }[] {
  const db = openDatabase(join(dataDir, "orgsim.sqlite"));
  const vectorOf = db.prepare<[number, string], Buffer>(STORED_VECTOR_SQL).pluck();
  const vectors = ids.flatMap((id) => {
    const blob = vectorOf.get(id, "profile");
    return blob ? [{ id, vector: new Float32Array(new Uint8Array(blob).buffer) }] : [];
  });
  db.close();
  return vectors;
}

/** p50 / p99 / mean of the times, in ms to three decimals. */
export function floorOf(times: number[]): FloorResult {
  const s = summarize(times);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { queries: times.length, latency_ms: { p50: r(s.p50), p99: r(s.p99), mean: r(s.mean) } };
}

/**
 * Elasticsearch's kNN `_search` as an expert would send it for "similar to this organization, top
 * 10" (the vector given, the organization itself excluded, the server's defaults: k 20, 500
 * candidates, int8 re-scoring with its default oversample, ties by id), ids only (from doc values), over a kept-alive connection.
 */
export async function rawKnnSearch(esUrl: string, prefix: string, dataDir: string, ids: number[]): Promise<FloorResult> {
  const search = async ({ id, vector }: { id: number; vector: Float32Array }) => {
    const body = {
      knn: {
        field: "profile_vector",
        query_vector: Array.from(vector),
        k: 20,
        num_candidates: 500,
        filter: { bool: { must_not: [{ ids: { values: [String(id)] } }] } },
        rescore_vector: { oversample: DEFAULT_OVERSAMPLE.int8_hnsw },
      },
      sort: [{ _score: { order: "desc" } }, { id: { order: "asc" } }],
      size: 10,
      // Ids only, from doc values as the server takes them (reading `_id` decompresses each hit's `_source`).
      ...ID_ONLY,
      track_total_hits: false,
    };
    const response = await fetch(`${esUrl}/${prefix}-organizations/_search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`raw _search answered ${response.status}: ${await response.text()}`);
    await response.json();
  };
  const vectors = profileVectors(dataDir, ids);
  for (const v of vectors) await search(v); // warm-up
  const times: number[] = [];
  for (const v of vectors) {
    const started = performance.now();
    await search(v);
    times.push(performance.now() - started);
  }
  return floorOf(times);
}

export function rawGraphSearch(dataDir: string, ids: number[], dimension: number): FloorResult {
  const meta = JSON.parse(readFileSync(join(dataDir, "orgsim.vectors.json"), "utf8")) as { files: { profile: string[] } };
  // The library's search alone (each shard's, merged): no twins expanded, no vectors read (a search never reads them).
  const noVectors = { vectorOf: () => null, allIds: () => [] };
  const graph = VectorGraph.load(
    meta.files.profile.map((file) => join(dataDir, file)),
    dimension,
    noVectors,
    GRAPH_OPTIONS.profile,
    [],
  );
  const vectors = profileVectors(dataDir, ids).map((v) => v.vector);
  for (const v of vectors) graph.search(v, 10); // warm-up: pages and caches
  const times = vectors.map((v) => {
    const started = performance.now();
    graph.search(v, 10);
    return performance.now() - started;
  });
  return floorOf(times);
}
