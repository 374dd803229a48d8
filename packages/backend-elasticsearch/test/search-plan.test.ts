/**
 * What a page of a vector search asks of Elasticsearch: `num_candidates` is 4 per hit kept (the
 * page, its offset and 10 more), at least the configured floor (twice it for a profile query off
 * the data), at most 10,000. Recall at 100k and 1M was measured with these (config.ts,
 * search-plan.ts), so any change to them must show here.
 */
import type { VectorQuery } from "@orgsim/core";
import { describe, expect, it } from "vitest";
import { resolveConfig, type VectorIndexType } from "../src/config";
import { knnSearchBody } from "../src/organization-search";
import { MAX_CANDIDATES, pagePlan, widerPlan } from "../src/search-plan";

const config = resolveConfig({ url: "http://127.0.0.1:9200" });
/** A page of a search by a stored organization's vector (similar to an organization). */
const page = (offset: number, size: number): VectorQuery => ({
  vector: new Float32Array([1, 0]),
  kind: "profile",
  filter: {},
  offset,
  size,
  storedVector: true,
});
/** The `knn.num_candidates` the adapter sends for the first request of a page. */
const sentCandidates = (query: VectorQuery, options = config) => knnSearchBody(query, pagePlan(options, query, "int8_hnsw"), false).knn.num_candidates;

describe("elasticsearch: num_candidates of a page", () => {
  it("is the configured floor (500) for pages of up to 115 hits kept", () => {
    expect(config.numCandidates).toBe(500);
    expect(sentCandidates(page(0, 10))).toBe(500);
    expect(sentCandidates(page(0, 100))).toBe(500); // the hybrid ranking's vector side: 110 kept
  });

  it("is 4 per hit kept above the floor", () => {
    expect(sentCandidates(page(0, 200))).toBe(840); // 210 kept
    expect(sentCandidates(page(1000, 100))).toBe(4440); // 1110 kept
    expect(sentCandidates(page(0, 10), resolveConfig({ url: "http://127.0.0.1:9200", numCandidates: 10 }))).toBe(80); // 20 kept
  });

  it("stops at Elasticsearch's ceiling, and is the ceiling when asked to be exact", () => {
    expect(sentCandidates(page(2400, 100))).toBe(MAX_CANDIDATES); // 2510 kept would be 10,040
    expect(sentCandidates(page(0, 10), resolveConfig({ url: "http://127.0.0.1:9200", exact: true }))).toBe(MAX_CANDIDATES);
  });

  it("is twice the floor for a profile query off the data, and the floor for a customer-vector one", () => {
    const { storedVector: _, ...described } = page(0, 10);
    expect(sentCandidates(described)).toBe(1000);
    expect(sentCandidates({ ...described, size: 100 })).toBe(1000); // the hybrid ranking's vector side: 110 kept
    expect(sentCandidates({ ...described, size: 300 })).toBe(1240); // 310 kept: 4 each
    expect(sentCandidates({ ...described, kind: "customer" })).toBe(500);
    expect(sentCandidates(described, resolveConfig({ url: "http://127.0.0.1:9200", numCandidates: 6000 }))).toBe(MAX_CANDIDATES);
  });

  it("keeps 4 times more hits, with 4 candidates each, when a tie runs to the last hit kept", () => {
    const query = page(0, 200);
    const wider = widerPlan(config, query, "int8_hnsw", pagePlan(config, query, "int8_hnsw"));
    expect(knnSearchBody(query, wider, false).knn).toMatchObject({ k: 840, num_candidates: 3360 });
  });
});

describe("elasticsearch: re-scoring of a page", () => {
  const rescoreOf = (type: VectorIndexType, options = config) => knnSearchBody(page(0, 10), pagePlan(options, page(0, 10), type), false).knn;

  it("re-scores int8 hits once each and int4 and bbq three times over, unless configured", () => {
    expect(rescoreOf("int8_hnsw")).toMatchObject({ rescore_vector: { oversample: 1 } });
    expect(rescoreOf("int4_hnsw")).toMatchObject({ rescore_vector: { oversample: 3 } });
    expect(rescoreOf("bbq_flat")).toMatchObject({ rescore_vector: { oversample: 3 } });
    expect(rescoreOf("int8_hnsw", resolveConfig({ url: "http://127.0.0.1:9200", oversample: 2 }))).toMatchObject({ rescore_vector: { oversample: 2 } });
  });

  it("re-scores customer vectors three times over whatever the type's default, unless configured", () => {
    const customers = { ...page(0, 10), kind: "customer" as const };
    const rescore = (options = config) => knnSearchBody(customers, pagePlan(options, customers, "int8_hnsw"), false).knn;
    expect(rescore()).toMatchObject({ rescore_vector: { oversample: 3 } });
    expect(rescore(resolveConfig({ url: "http://127.0.0.1:9200", oversample: 1 }))).toMatchObject({ rescore_vector: { oversample: 1 } });
  });

  it("leaves float indexes and a configured 0 without re-scoring", () => {
    expect(rescoreOf("hnsw")).not.toHaveProperty("rescore_vector");
    expect(rescoreOf("int8_hnsw", resolveConfig({ url: "http://127.0.0.1:9200", oversample: 0 }))).not.toHaveProperty("rescore_vector");
  });
});

describe("elasticsearch: what a page's hits carry", () => {
  const plan = pagePlan(config, page(0, 10), "int8_hnsw");

  it("a ranking's hits: ids from doc values, no stored field read (a stored field decompresses the whole _source)", () => {
    expect(knnSearchBody(page(0, 10), plan, false)).toMatchObject({ _source: false, stored_fields: "_none_", docvalue_fields: ["id"] });
  });

  it("a page's hits: the organizations, and the vectors only where the scores must be computed here", () => {
    expect(knnSearchBody(page(0, 10), plan, { vectors: false })).toMatchObject({ _source: { includes: ["doc"] } });
    expect(knnSearchBody(page(0, 10), plan, { vectors: true })).toMatchObject({ _source: { includes: ["doc", "profile_vector"] } });
    expect(knnSearchBody(page(0, 10), plan, { vectors: true })).not.toHaveProperty("stored_fields");
  });
});
