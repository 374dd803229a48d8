/**
 * Measures, on a real node, how close Elasticsearch's kNN comes to the exact float cosine ranking
 * of the embedded backend, per `index_options.type`:
 *   - score error of Elasticsearch's own `_score` (as 2 * _score - 1) against the float64 cosine,
 *     with and without `knn.rescore_vector`;
 *   - recall@10 of the store's search (defaults: num_candidates = max(500, 10 * (k + 10))) against
 *     brute force, unfiltered and with a ~3 % filter; the same with `exact: true`;
 *   - indexing and search times.
 *
 *   - recall@10 of a plain `knn` (k = 10) as num_candidates grows (the `sweep` columns).
 *
 *   ELASTICSEARCH_URL=http://127.0.0.1:9250 npx tsx scripts/measure-knn.ts [count=10000] [dims=384] [queries=100] [types=hnsw,int8_hnsw,flat,...] [merge]
 *
 * `merge` force-merges the index to one segment before searching: one large HNSW graph, as a
 * long-lived index tends to have, and no per-segment exhaustive fallback.
 */
import { Client } from "@elastic/elasticsearch";
import type { OrganizationFilter, OrganizationRecord } from "@orgsim/core";
import { type ElasticsearchBackend, indexNames, openElasticsearchBackend, type VectorIndexType } from "../src/index";
import { organization, rng, unitVector } from "@orgsim/testing";

const url = process.env.ELASTICSEARCH_URL ?? "http://127.0.0.1:9250";
const [count = 10_000, dims = 384, queries = 100] = process.argv.slice(2, 5).map(Number);
const types = (process.argv[5]?.split(",") ?? ["hnsw", "int8_hnsw", "int4_hnsw", "bbq_hnsw", "flat", "int8_flat"]) as VectorIndexType[];
const merge = process.argv[6] === "merge";
const SWEEP = [100, 200, 500, 1000];
const MODEL = { modelId: "measure", dimension: dims };

/** Two data sets: uniform directions (the hardest case for HNSW and quantization) and clustered ones, closer to real embeddings. */
function dataset(kind: "uniform" | "clustered", n: number, seed: number): Float32Array[] {
  const random = rng(seed);
  if (kind === "uniform") return Array.from({ length: n }, () => unitVector(dims, random));
  const centroids = Array.from({ length: 40 }, () => unitVector(dims, random));
  return Array.from({ length: n }, () => {
    const c = centroids[Math.floor(random() * centroids.length)] as Float32Array;
    const noise = unitVector(dims, random);
    const v = new Float32Array(dims);
    let norm = 0;
    for (let i = 0; i < dims; i++) {
      v[i] = (c[i] as number) + 0.9 * (noise[i] as number);
      norm += (v[i] as number) ** 2;
    }
    norm = Math.sqrt(norm);
    for (let i = 0; i < dims; i++) v[i] = (v[i] as number) / norm;
    return v;
  });
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
};
const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? Number.NaN;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const fmt = (x: number, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : "-");
const sci = (x: number) => (Number.isFinite(x) ? x.toExponential(1) : "-");

interface Row {
  data: string;
  type: string;
  indexSeconds: number;
  segments: number;
  rawError: { plain: [number, number]; rescored: [number, number] | null };
  recall: number;
  recallFiltered: number;
  recallExact: number;
  storeScoreError: number;
  p50: number;
  p95: number;
  sweep: number[];
}

async function measure(kind: "uniform" | "clustered", type: VectorIndexType): Promise<Row> {
  const vectors = dataset(kind, count, 1);
  // ~3 % of the organizations carry the category filtered on.
  const records: OrganizationRecord[] = vectors.map((v, i) => ({
    organization: organization(i + 1, { categories: i % 33 === 0 ? ["legal-tech"] : [] }),
    profileVector: v,
    customerVector: null,
  }));
  const prefix = `measure-${kind}-${type.replace(/_/g, "-")}`;
  const client = new Client({ node: url });
  await client.indices.delete({ index: Object.values(indexNames(prefix)).map((n) => n.index), ignore_unavailable: true });
  const open = (exact: boolean): Promise<ElasticsearchBackend> => openElasticsearchBackend({ url, indexPrefix: prefix, quantization: type, exact });
  const backend = await open(false);
  const started = performance.now();
  for (let i = 0; i < records.length; i += 500) await backend.organizations.upsert(records.slice(i, i + 500), MODEL);
  const indexSeconds = (performance.now() - started) / 1000;
  if (merge) await client.indices.forcemerge({ index: `${prefix}-organizations`, max_num_segments: 1 });
  const shard = (await client.indices.segments({ index: `${prefix}-organizations` })).indices?.[`${prefix}-organizations-v1`]?.shards?.["0"];
  const segments = (Array.isArray(shard) ? shard[0] : shard)?.num_search_segments ?? 0;

  const queryVectors = dataset(kind, queries, 2);
  const truth = (q: Float32Array, filter: (i: number) => boolean) =>
    vectors
      .flatMap((v, i) => (filter(i) ? [{ id: i + 1, score: dot(q, v) }] : []))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, 10);

  const recalls: number[] = [];
  const filteredRecalls: number[] = [];
  const storeErrors: number[] = [];
  const times: number[] = [];
  const plainErrors: number[] = [];
  const rescoredErrors: number[] = [];
  const quantized = !(type === "hnsw" || type === "flat");
  const legal: OrganizationFilter = { categories: ["legal-tech"] };
  const sweepFound = SWEEP.map(() => 0);

  for (const q of queryVectors) {
    const want = truth(q, () => true);
    const t0 = performance.now();
    const got = await backend.organizations.search({ vector: q, kind: "profile", filter: {}, offset: 0, size: 10 });
    times.push(performance.now() - t0);
    const wantIds = new Set(want.map((h) => h.id));
    recalls.push(got.filter((h) => wantIds.has(h.organization.id)).length / want.length);
    for (const hit of got) storeErrors.push(Math.abs(hit.score - dot(q, vectors[hit.organization.id - 1] as Float32Array)));

    const wantFiltered = new Set(truth(q, (i) => i % 33 === 0).map((h) => h.id));
    const gotFiltered = await backend.organizations.search({ vector: q, kind: "profile", filter: legal, offset: 0, size: 10 });
    filteredRecalls.push(gotFiltered.filter((h) => wantFiltered.has(h.organization.id)).length / wantFiltered.size);

    for (const [j, numCandidates] of SWEEP.entries()) {
      const response = await client.search({
        index: `${prefix}-organizations`,
        knn: {
          field: "profile_vector",
          query_vector: Array.from(q),
          k: 10,
          num_candidates: numCandidates,
          ...(quantized ? { rescore_vector: { oversample: 3 } } : {}),
        },
        _source: false,
        size: 10,
      });
      sweepFound[j] = (sweepFound[j] as number) + response.hits.hits.filter((h) => wantIds.has(Number(h._id))).length;
    }

    // Elasticsearch's own scores, without our exact re-scoring.
    for (const rescore of quantized ? [false, true] : [false]) {
      const response = await client.search({
        index: `${prefix}-organizations`,
        knn: { field: "profile_vector", query_vector: Array.from(q), k: 10, num_candidates: 100, ...(rescore ? { rescore_vector: { oversample: 3 } } : {}) },
        _source: false,
        size: 10,
      });
      for (const hit of response.hits.hits) {
        const exact = dot(q, vectors[Number(hit._id) - 1] as Float32Array);
        (rescore ? rescoredErrors : plainErrors).push(Math.abs(2 * (hit._score as number) - 1 - exact));
      }
    }
  }
  await backend.close();

  const exactBackend = await open(true);
  const exactRecalls: number[] = [];
  for (const q of queryVectors.slice(0, 30)) {
    const want = new Set(truth(q, () => true).map((h) => h.id));
    const got = await exactBackend.organizations.search({ vector: q, kind: "profile", filter: {}, offset: 0, size: 10 });
    exactRecalls.push(got.filter((h) => want.has(h.organization.id)).length / want.size);
  }
  await exactBackend.close();
  await client.indices.delete({ index: Object.values(indexNames(prefix)).map((n) => n.index), ignore_unavailable: true });
  await client.close();
  return {
    data: kind,
    type,
    indexSeconds,
    segments,
    rawError: { plain: [mean(plainErrors), Math.max(...plainErrors)], rescored: quantized ? [mean(rescoredErrors), Math.max(...rescoredErrors)] : null },
    recall: mean(recalls),
    recallFiltered: mean(filteredRecalls),
    recallExact: mean(exactRecalls),
    storeScoreError: Math.max(...storeErrors),
    p50: pct(times, 0.5),
    p95: pct(times, 0.95),
    sweep: sweepFound.map((f) => f / (10 * queryVectors.length)),
  };
}

console.log(`${count} vectors of ${dims} dims, ${queries} queries, Elasticsearch at ${url}${merge ? ", force-merged to one segment" : ""}\n`);
console.log(
  `| data | index_options.type | index s | segments | ES score err mean / max | with rescore_vector(3) mean / max | store score max err | recall@10 | recall@10, 3 % filter | recall@10, exact: true | search p50 / p95 ms | ${SWEEP.map((n) => `knn k=10 nc=${n}`).join(" | ")} |`,
);
console.log(`|---|---|---|---|---|---|---|---|---|---|---|${SWEEP.map(() => "---|").join("")}`);
for (const kind of ["uniform", "clustered"] as const) {
  for (const type of types) {
    const r = await measure(kind, type);
    console.log(
      `| ${r.data} | ${r.type} | ${fmt(r.indexSeconds, 1)} | ${r.segments} | ${sci(r.rawError.plain[0])} / ${sci(r.rawError.plain[1])} | ${r.rawError.rescored ? `${sci(r.rawError.rescored[0])} / ${sci(r.rawError.rescored[1])}` : "n/a"} | ${sci(r.storeScoreError)} | ${fmt(r.recall)} | ${fmt(r.recallFiltered)} | ${fmt(r.recallExact)} | ${fmt(r.p50, 1)} / ${fmt(r.p95, 1)} | ${r.sweep.map((x) => fmt(x)).join(" | ")} |`,
    );
  }
}
