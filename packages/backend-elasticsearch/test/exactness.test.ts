/**
 * With the default index options (int8_hnsw, re-scored): scores equal the exact float cosine the
 * embedded backend reports, and recall@10 against brute force on 10,000 384-d vectors.
 * Prints what it measured (see README.md for the full matrix from scripts/measure-knn.ts).
 */
import { Client } from "@elastic/elasticsearch";
import type { OrganizationRecord } from "@orgsim/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ElasticsearchBackend } from "../src/index";
import { prefixes, url } from "./helpers";
import { organization, rng, unitVector } from "@orgsim/testing";

const COUNT = 10_000;
const DIM = 384;
const MODEL = { modelId: "exactness", dimension: DIM };
const indices = prefixes("exact");

/** Exact cosine of float32 unit vectors, summed in float64. */
const cosine = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
};

/** Clustered unit vectors (nearer to real embeddings than uniform directions, and harder to tell apart inside a cluster). */
const centroids = (() => {
  const random = rng(1000);
  return Array.from({ length: 40 }, () => unitVector(DIM, random));
})();
function vectors(n: number, seed: number): Float32Array[] {
  const random = rng(seed);
  return Array.from({ length: n }, () => {
    const c = centroids[Math.floor(random() * centroids.length)] as Float32Array;
    const noise = unitVector(DIM, random);
    const v = c.map((x, i) => x + 0.9 * (noise[i] as number));
    const norm = Math.sqrt(cosine(v, v));
    return v.map((x) => x / norm);
  });
}

describe(`${COUNT} vectors of ${DIM} dimensions, default index options`, () => {
  let backend: ElasticsearchBackend;
  let data: Float32Array[];
  const queries = vectors(50, 2);

  beforeAll(async () => {
    data = vectors(COUNT, 1);
    backend = await indices.open();
    const records: OrganizationRecord[] = data.map((v, i) => ({
      organization: organization(i + 1, { categories: i % 50 === 0 ? ["legal-tech"] : [] }),
      profileVector: v,
      customerVector: null,
    }));
    const started = performance.now();
    for (let i = 0; i < records.length; i += 1000) await backend.organizations.upsert(records.slice(i, i + 1000), MODEL);
    console.log(`indexed ${COUNT} x ${DIM}-d (int8_hnsw) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, 600_000);
  afterAll(async () => {
    await backend?.close();
    await indices.cleanup();
  });

  const truth = (q: Float32Array, keep: (i: number) => boolean = () => true) =>
    data
      .flatMap((v, i) => (keep(i) ? [{ id: i + 1, score: cosine(q, v) }] : []))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, 10);

  it("reports the float vectors' cosines (computed in float32: within 1e-6 of the float64 figure), and recall@10 >= 0.95", async () => {
    let found = 0;
    let worst = 0;
    const times: number[] = [];
    for (const q of queries) {
      const want = truth(q);
      const started = performance.now();
      const got = await backend.organizations.search({ vector: q, kind: "profile", filter: {}, offset: 0, size: 10 });
      times.push(performance.now() - started);
      expect(got).toHaveLength(10);
      for (const hit of got) {
        const exact = cosine(q, data[hit.organization.id - 1] as Float32Array);
        expect(hit.score).toBeCloseTo(exact, 4);
        worst = Math.max(worst, Math.abs(hit.score - exact));
      }
      const ids = new Set(want.map((h) => h.id));
      found += got.filter((h) => ids.has(h.organization.id)).length;
    }
    const recall = found / (10 * queries.length);
    times.sort((a, b) => a - b);
    console.log(`recall@10 = ${recall.toFixed(3)}, max |score - exact| = ${worst.toExponential(1)}, search p50 ${times[25]?.toFixed(1)} ms`);
    expect(worst).toBeLessThan(1e-6);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it("Elasticsearch's own scores, re-scored from the floats (rescore_vector), are the cosine to 4 decimals; without re-scoring they are not", async () => {
    const client = new Client({ node: url() });
    const alias = (await backend.organizations.describeIndex())?.index as string;
    let rescored = 0;
    let quantized = 0;
    for (const q of queries.slice(0, 20)) {
      for (const rescore of [true, false]) {
        const response = await client.search({
          index: alias,
          knn: { field: "profile_vector", query_vector: Array.from(q), k: 10, num_candidates: 100, ...(rescore ? { rescore_vector: { oversample: 3 } } : {}) },
          _source: false,
          size: 10,
        });
        for (const hit of response.hits.hits) {
          const error = Math.abs(2 * (hit._score as number) - 1 - cosine(q, data[Number(hit._id) - 1] as Float32Array));
          if (rescore) rescored = Math.max(rescored, error);
          else quantized = Math.max(quantized, error);
        }
      }
    }
    await client.close();
    console.log(`max |2 * _score - 1 - cosine|: ${rescored.toExponential(1)} re-scored, ${quantized.toExponential(1)} on int8 vectors`);
    expect(rescored).toBeLessThan(5e-5);
    expect(quantized).toBeGreaterThan(1e-4);
  });

  it("a restrictive filter (2 %) is searched exhaustively: exactly the brute-force top 10", async () => {
    for (const q of queries.slice(0, 20)) {
      const want = truth(q, (i) => i % 50 === 0).map((h) => h.id);
      const got = await backend.organizations.search({ vector: q, kind: "profile", filter: { categories: ["legal-tech"] }, offset: 0, size: 10 });
      expect(got.map((h) => h.organization.id)).toEqual(want);
    }
  });
});
