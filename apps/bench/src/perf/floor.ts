/**
 * The floor of the embedded backend's similar-to-organization latency: the vector library's own
 * search (usearch, the saved profile graph loaded in this process) for the same organizations'
 * vectors, top 10, one query at a time. What the server adds on top is routing, validation,
 * filtering, exact re-scoring, document fetch and HTTP.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, VectorGraph } from "@orgsim/backend-embedded";
import { summarize } from "./stats";

export interface FloorResult {
  queries: number;
  latency_ms: { p50: number; p99: number; mean: number };
}

export function rawGraphSearch(dataDir: string, ids: number[], dimension: number): FloorResult {
  const meta = JSON.parse(readFileSync(join(dataDir, "orgsim.vectors.json"), "utf8")) as { files: { profile: string } };
  // The library's search alone: no twins expanded, no vectors read (a search never reads them).
  const noVectors = { vectorOf: () => null, allIds: () => [] };
  const graph = VectorGraph.load(join(dataDir, meta.files.profile), dimension, noVectors, []);
  const db = openDatabase(join(dataDir, "orgsim.sqlite"));
  const vectorOf = db.prepare<[number], Buffer>("SELECT vector FROM organization_vectors WHERE org_id = ? AND kind = 'profile'").pluck();
  const vectors = ids.flatMap((id) => {
    const blob = vectorOf.get(id);
    return blob ? [new Float32Array(new Uint8Array(blob).buffer)] : [];
  });
  db.close();
  for (const v of vectors) graph.search(v, 10); // warm-up: pages and caches
  const times = vectors.map((v) => {
    const started = performance.now();
    graph.search(v, 10);
    return performance.now() - started;
  });
  const s = summarize(times);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { queries: times.length, latency_ms: { p50: r(s.p50), p99: r(s.p99), mean: r(s.mean) } };
}
