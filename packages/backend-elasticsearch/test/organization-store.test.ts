import type { OrganizationRecord } from "@orgsim/core";
import { expected, randomRecords, rng, unitVector } from "@orgsim/testing";
import { describeOrganizationStoreContract } from "@orgsim/testing/contracts";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ElasticsearchBackend, ElasticsearchBackendOptions } from "../src/index";
import { prefixes, rawClient, url } from "./helpers";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };
const indices = prefixes("orgs");

afterAll(() => indices.cleanup());

describeOrganizationStoreContract("elasticsearch", {
  backend: "elasticsearch",
  async open() {
    const backend = await indices.open();
    return { store: backend.organizations, cleanup: () => backend.close() };
  },
});

describe("elasticsearch: the index, its mapping and kNN", () => {
  let backend: ElasticsearchBackend;
  afterEach(() => backend.close());

  it("writes without a refresh per bulk when asked (an import), and refresh() makes every write searchable", async () => {
    const prefix = indices.next();
    backend = await indices.open({ refresh: false }, prefix);
    await backend.organizations.refresh(); // no index yet: nothing to do
    await backend.organizations.upsert(randomRecords(1, DIM, 1), MODEL);
    await backend.organizations.refresh();
    // No periodic refresh either, so only refresh() can make the next writes visible.
    const client = rawClient();
    await client.indices.putSettings({ index: `${prefix}-organizations`, settings: { refresh_interval: "-1" } });
    const records = randomRecords(50, DIM, 2, 100);
    await backend.organizations.upsert(records, MODEL);
    const query = { vector: (records[0] as OrganizationRecord).profileVector, kind: "profile" as const, filter: {}, offset: 0, size: 100 };
    expect((await backend.organizations.search(query)).map((h) => h.organization.id)).not.toContain(100);
    expect(await backend.organizations.get(100)).not.toBeNull(); // reads by id are real-time
    await backend.organizations.refresh();
    expect(await backend.organizations.search(query)).toHaveLength(51);
    await client.close();
  });

  it("creates a versioned index behind an alias, with the model in _meta and every filter field mapped", async () => {
    const prefix = `${indices.next()}`;
    backend = await indices.open({}, prefix);
    await backend.organizations.upsert(randomRecords(2, DIM, 1), MODEL);
    const client = rawClient();
    const alias = `${prefix}-organizations`;
    const aliases = await client.indices.getAlias({ name: alias });
    expect(Object.keys(aliases)).toEqual([`${alias}-v1`]);
    const mapping = (await client.indices.getMapping({ index: alias }))[`${alias}-v1`]?.mappings;
    expect(mapping?._meta).toEqual({ orgsim_schema: 4, model_id: "test-model", dimension: DIM });
    expect(mapping?.properties?.profile_vector).toMatchObject({
      type: "dense_vector",
      dims: DIM,
      similarity: "cosine",
      index: true,
      index_options: { type: "int8_hnsw", m: 32, ef_construction: 200 },
    });
    expect(mapping?.properties?.customer_vector).toMatchObject({ type: "dense_vector", dims: DIM, similarity: "cosine" });
    for (const field of ["hq_country", "hq_subdivision", "location_countries", "location_subdivisions", "employee_range", "categories", "last_round_stage"]) {
      expect(mapping?.properties?.[field], field).toEqual({ type: "keyword" });
    }
    expect(mapping?.properties?.doc).toEqual({ type: "object", enabled: false });
    const settings = await client.indices.getSettings({ index: alias });
    expect(settings[`${alias}-v1`]?.settings?.index?.number_of_replicas).toBe("0");
    await client.close();
  });

  it("builds its graphs as configured, and gives flat (brute-force) fields no graph options", async () => {
    const client = rawClient();
    // Opens a backend (the test's last one stays open for afterEach to close) and reads its two vector fields' index_options.
    const vectorOptions = async (options: Partial<ElasticsearchBackendOptions>) => {
      const prefix = indices.next();
      backend = await indices.open({ ...options, dimension: DIM }, prefix);
      const alias = `${prefix}-organizations`;
      const mapping = (await client.indices.getMapping({ index: alias }))[`${alias}-v1`]?.mappings;
      return [mapping?.properties?.profile_vector, mapping?.properties?.customer_vector].map((field) => (field as { index_options?: unknown }).index_options);
    };
    expect(await vectorOptions({ quantization: "hnsw", hnswM: 24, hnswEfConstruction: 64 })).toEqual([
      { type: "hnsw", m: 24, ef_construction: 64 },
      { type: "hnsw", m: 24, ef_construction: 64 },
    ]);
    await backend.close();
    const flat = await vectorOptions({ quantization: "int8_flat" });
    expect(flat).toEqual([expect.objectContaining({ type: "int8_flat" }), expect.objectContaining({ type: "int8_flat" })]);
    expect(flat.flatMap((options) => Object.keys(options as object)).filter((key) => key === "m" || key === "ef_construction")).toEqual([]);
    await client.close();
  });

  it("refuses an existing index whose vector mapping does not fit the model, with a clear error", async () => {
    const prefix = indices.next();
    const client = rawClient();
    // An index made by hand, with vectors of another size and no model in _meta.
    await client.indices.create({
      index: `${prefix}-organizations-v1`,
      aliases: { [`${prefix}-organizations`]: {} },
      settings: { number_of_replicas: 0 },
      mappings: {
        properties: {
          id: { type: "long" },
          profile_vector: { type: "dense_vector", dims: 4, similarity: "cosine" },
          customer_vector: { type: "dense_vector", dims: 4, similarity: "cosine" },
          doc: { type: "object", enabled: false },
        },
      },
    });
    await client.index({ index: `${prefix}-organizations`, id: "1", document: { id: 1, profile_vector: [1, 0, 0, 0], doc: {} }, refresh: true });
    backend = await indices.open({}, prefix);
    await expect(backend.organizations.upsert(randomRecords(1, DIM, 3), MODEL)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/maps its vector fields with 4 dimensions.*16-d/),
    });
    await client.close();
  });

  it("creates the index at open when the dimension is configured", async () => {
    backend = await indices.open({ dimension: 24, quantization: "hnsw" });
    const info = await backend.organizations.describeIndex();
    expect(info).toMatchObject({ dimension: 24, type: "hnsw", meta: { model_id: null, dimension: 24 } });
    expect(await backend.organizations.vectorModel()).toBeNull();
    await backend.organizations.upsert(randomRecords(2, 24, 1), { modelId: "m24", dimension: 24 });
    expect(await backend.organizations.vectorModel()).toEqual({ modelId: "m24", dimension: 24 });
  });

  it("names the index's dimension when refusing vectors of another dimension", async () => {
    backend = await indices.open();
    await backend.organizations.upsert(randomRecords(3, DIM, 1), MODEL);
    await expect(backend.organizations.upsert(randomRecords(2, 8, 2, 100), { modelId: "test-model", dimension: 8 })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/16 dimensions/),
    });
  });

  it("refuses zero vectors before writing anything", async () => {
    backend = await indices.open();
    const store = backend.organizations;
    const records = randomRecords(2, DIM, 9);
    (records[1] as OrganizationRecord).profileVector = new Float32Array(DIM);
    await expect(store.upsert(records, MODEL)).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    expect(await store.count()).toBe(0);
  });

  it("a batch Elasticsearch refuses in part writes nothing: replaced documents come back, new ones go", async () => {
    backend = await indices.open();
    const store = backend.organizations;
    const [kept, replaced, added, refused] = randomRecords(4, DIM, 31) as OrganizationRecord[];
    await store.upsert([kept as OrganizationRecord, replaced as OrganizationRecord], MODEL);
    const before = await store.getMany([1, 2]);
    const renamed = {
      ...(replaced as OrganizationRecord),
      organization: { ...(replaced as OrganizationRecord).organization, name: "Renamed" },
      profileVector: unitVector(DIM, rng(32)),
    };
    // A keyword term of over 32,766 bytes: Lucene refuses that document alone (the read schema
    // does not bound subdivision codes; the write schema only accepts ISO codes).
    const headquarters = { ...(refused as OrganizationRecord).organization.location.headquarters, subdivision_code: "X".repeat(40_000) } as never;
    const immense = {
      ...(refused as OrganizationRecord),
      organization: { ...(refused as OrganizationRecord).organization, location: { headquarters, offices: [] } },
    };
    const batch = [renamed, added as OrganizationRecord, immense];
    const error = await store.upsert(batch, MODEL).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INTERNAL", message: expect.stringContaining("nothing was written"), details: { failed_ids: [4] } });
    // Elasticsearch's reasons go to the log, not to the caller.
    expect((error as Error).message).not.toMatch(/immense|exception/);
    expect(await store.getMany([1, 2, 3, 4])).toEqual(before);
    expect(await store.getVector(2, "profile")).toEqual((replaced as OrganizationRecord).profileVector);
    expect(await store.count()).toBe(2);
    const hits = await store.search({ vector: renamed.profileVector, kind: "profile", filter: {}, offset: 0, size: 10 });
    expect(hits.map((h) => h.organization.name).sort()).toEqual(before.map((o) => o.name).sort());
  });

  it("a big batch goes out as several bulk requests at once, still all or nothing, the last write of an id winning", async () => {
    backend = await indices.open();
    const store = backend.organizations;
    const records = randomRecords(600, DIM, 33);
    await store.upsert(records, MODEL);
    const renamed = (r: OrganizationRecord, name: string) => ({ ...r, organization: { ...r.organization, name } });
    // One document Lucene refuses (see above) among 600 sent in parallel parts: the other parts' writes are undone.
    const immense = (r: OrganizationRecord) => ({
      ...r,
      organization: {
        ...r.organization,
        location: { headquarters: { ...r.organization.location.headquarters, subdivision_code: "X".repeat(40_000) } as never, offices: [] },
      },
    });
    const refused = records.map((r, i) => (i === 6 ? immense(r) : renamed(r, `Renamed ${i}`)));
    await expect(store.upsert(refused, MODEL)).rejects.toMatchObject({ code: "INTERNAL", details: { failed_ids: [7] } });
    expect((await store.getMany(records.map((r) => r.organization.id))).map((o) => o.name)).toEqual(records.map((r) => r.organization.name));
    // An id written twice in one batch keeps its last write.
    const twice = [renamed(records[4] as OrganizationRecord, "First"), ...records.slice(100, 500), renamed(records[4] as OrganizationRecord, "Second")];
    await store.upsert(twice, MODEL);
    expect((await store.get(5))?.name).toBe("Second");
    expect(await store.count()).toBe(600);
  });

  it("a kNN on customer_vector without any filter of ours skips the documents that lack the field", async () => {
    backend = await indices.open();
    const records: OrganizationRecord[] = randomRecords(600, DIM, 42);
    const query = unitVector(DIM, rng(4242));
    await backend.organizations.upsert(records, MODEL);
    const want = expected(records, query, "customer", {});
    expect(want.length).toBeLessThan(records.length);
    const client = rawClient();
    const index = (await backend.organizations.describeIndex())?.index as string;
    const raw = await client.search({
      index,
      knn: { field: "customer_vector", query_vector: Array.from(query), k: 1000, num_candidates: 1000 },
      size: 1000,
      _source: false,
    });
    expect(raw.hits.hits.map((h) => Number(h._id)).sort((a, b) => a - b)).toEqual(want.map((h) => h.id).sort((a, b) => a - b));
    await client.close();
  });
});

describe("opening", () => {
  it("names the URL when Elasticsearch cannot be reached", async () => {
    await expect(indices.open({ url: "http://127.0.0.1:1", maxRetries: 0 })).rejects.toMatchObject({
      code: "BACKEND_UNAVAILABLE",
      message: expect.stringContaining("cannot reach Elasticsearch at http://127.0.0.1:1"),
    });
  });

  it("refuses a server of another major version", async () => {
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      res.setHeader("x-elastic-product", "Elasticsearch");
      if (req.url?.startsWith("/_cluster/health")) res.end(JSON.stringify({ cluster_name: "fake", status: "green" }));
      else if (req.url?.startsWith("/_nodes")) res.end(JSON.stringify({ nodes: { a: { version: "9.1.0" } } }));
      else res.writeHead(404).end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    await expect(indices.open({ url: `http://127.0.0.1:${port}` })).rejects.toMatchObject({
      message: expect.stringMatching(/127\.0\.0\.1:\d+ runs 9\.1\.0; this backend needs an 8\.x/),
    });
    server.close();
  });

  it("reports the version and answers ping; ping is false once closed", async () => {
    const backend = await indices.open();
    expect(backend.version).toMatch(/^8\./);
    expect(backend.url).toBe(url().replace(/\/$/, ""));
    expect(await backend.organizations.ping()).toBe(true);
    await backend.organizations.close();
    await backend.organizations.close();
    expect(await backend.organizations.ping()).toBe(false);
    // The shared client stays open for the collection store until it closes too.
    expect(await backend.collections.list("t", { limit: 5 })).toEqual({ data: [], next_cursor: null });
    await backend.close();
  });
});
