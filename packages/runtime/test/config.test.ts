import { describe, expect, it } from "vitest";
import { availableParallelism } from "node:os";
import { loadConfig, MAX_AUTO_WORKERS } from "../src/index";

const elasticsearch = { ORGSIM_BACKEND: "elasticsearch", ELASTICSEARCH_URL: "http://127.0.0.1:9200" };

describe("loadConfig", () => {
  it("types the Elasticsearch vector index it is given", () => {
    expect(loadConfig({ ...elasticsearch, ORGSIM_ES_VECTOR_INDEX: "bbq_hnsw" }).elasticsearch?.quantization).toBe("bbq_hnsw");
    expect(loadConfig(elasticsearch).elasticsearch?.quantization).toBeUndefined();
  });

  it("refuses an unknown vector index when the configuration is loaded, naming ORGSIM_ES_VECTOR_INDEX", () => {
    expect(() => loadConfig({ ...elasticsearch, ORGSIM_ES_VECTOR_INDEX: "int3_hnsw" })).toThrow(
      /^ORGSIM_ES_VECTOR_INDEX must be one of hnsw, int8_hnsw, .*; got "int3_hnsw"$/,
    );
  });

  it("reads every setting from the environment it is given", () => {
    expect(loadConfig({ ...elasticsearch, ORGSIM_ES_TYPE_CLAIM_MS: "250" }).elasticsearch?.typeClaimMs).toBe(250);
    expect(loadConfig({ ...elasticsearch, ORGSIM_ES_SHARDS: "3", ORGSIM_ES_REPLICAS: "1" }).elasticsearch).toMatchObject({ shards: 3, replicas: 1 });
    expect(loadConfig(elasticsearch).elasticsearch).toMatchObject({ shards: 1, replicas: 0 });
    expect(() => loadConfig({ ...elasticsearch, ORGSIM_ES_SHARDS: "0" })).toThrow(/^ORGSIM_ES_SHARDS must be an integer from 1 to 1024; got "0"$/);
    expect(() => loadConfig({ ...elasticsearch, ORGSIM_ES_REPLICAS: "one" })).toThrow(/^ORGSIM_ES_REPLICAS must be an integer/);
    expect(loadConfig({ ...elasticsearch, ORGSIM_ES_HNSW_M: "16", ORGSIM_ES_HNSW_EF_CONSTRUCTION: "100" }).elasticsearch).toMatchObject({
      hnswM: 16,
      hnswEfConstruction: 100,
    });
    expect(loadConfig(elasticsearch).elasticsearch).toMatchObject({ hnswM: 32, hnswEfConstruction: 200 });
    expect(() => loadConfig({ ...elasticsearch, ORGSIM_ES_HNSW_M: "600" })).toThrow(/^ORGSIM_ES_HNSW_M must be an integer from 1 to 512; got "600"$/);
  });

  it("reads the Elasticsearch search settings, leaving oversample to the index type unless set", () => {
    expect(loadConfig(elasticsearch).elasticsearch).toMatchObject({ numCandidates: 500, oversample: undefined });
    expect(loadConfig({ ...elasticsearch, ORGSIM_ES_NUM_CANDIDATES: "200", ORGSIM_ES_OVERSAMPLE: "1.5" }).elasticsearch).toMatchObject({
      numCandidates: 200,
      oversample: 1.5,
    });
    expect(loadConfig({ ...elasticsearch, ORGSIM_ES_OVERSAMPLE: "0" }).elasticsearch?.oversample).toBe(0);
    expect(() => loadConfig({ ...elasticsearch, ORGSIM_ES_NUM_CANDIDATES: "20000" })).toThrow(
      /^ORGSIM_ES_NUM_CANDIDATES must be an integer from 10 to 10000; got "20000"$/,
    );
    expect(() => loadConfig({ ...elasticsearch, ORGSIM_ES_OVERSAMPLE: "0.5" })).toThrow(/^ORGSIM_ES_OVERSAMPLE must be 0 or a number from 1 to 10; got "0.5"$/);
    expect(() => loadConfig({ ...elasticsearch, ORGSIM_ES_OVERSAMPLE: "three" })).toThrow(
      /^ORGSIM_ES_OVERSAMPLE must be 0 or a number from 1 to 10; got "three"$/,
    );
  });

  it("reads the embedded vector index settings, refusing unknown ones by name", () => {
    expect(loadConfig({}).embedded).toEqual({ vectorIndex: "hnsw", exactBelow: 5_000 });
    expect(loadConfig({ ORGSIM_VECTOR_INDEX: "exact", ORGSIM_EXACT_BELOW: "0" }).embedded).toEqual({ vectorIndex: "exact", exactBelow: 0 });
    expect(() => loadConfig({ ORGSIM_VECTOR_INDEX: "ivf" })).toThrow(/^ORGSIM_VECTOR_INDEX must be "hnsw" or "exact"; got "ivf"$/);
    expect(() => loadConfig({ ORGSIM_EXACT_BELOW: "-1" })).toThrow(/ORGSIM_EXACT_BELOW/);
  });

  it("runs one worker a core by default, at most MAX_AUTO_WORKERS, or the number asked", () => {
    expect(loadConfig({}).workers).toBe(Math.min(availableParallelism(), MAX_AUTO_WORKERS));
    expect(loadConfig({ ORGSIM_WORKERS: "auto" }).workers).toBe(Math.min(availableParallelism(), MAX_AUTO_WORKERS));
    expect(loadConfig({ ORGSIM_WORKERS: "3" }).workers).toBe(3);
    expect(() => loadConfig({ ORGSIM_WORKERS: "0" })).toThrow(/^ORGSIM_WORKERS must be "auto" or an integer from 1 to 64; got "0"$/);
    expect(() => loadConfig({ ORGSIM_WORKERS: "all" })).toThrow(/ORGSIM_WORKERS/);
  });
});
