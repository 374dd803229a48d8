import type { Organization, OrganizationFilter, OrganizationRecord, VectorKind } from "@orgsim/core";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EmbeddedBackend, openEmbeddedBackend } from "../src/index";
import { organization, place, randomRecords, rng, unitVector } from "@orgsim/testing";
import { tempDir } from "./temp-dir";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };

/** The contract's filter semantics, written the obvious way, to check the store against. */
function matches(o: Organization, f: OrganizationFilter): boolean {
  const m = o.metrics;
  const last = m.funding?.last_round ?? null;
  if (f.location) {
    const { countries, subdivisions, hqOnly } = f.location;
    const places = (hqOnly ? [o.location.headquarters] : [o.location.headquarters, ...o.location.offices]).filter((p) => p !== null);
    const inside = places.some((p) => (p.country_code !== null && countries.includes(p.country_code)) || (p.subdivision_code !== null && subdivisions.includes(p.subdivision_code)));
    if (!inside) return false;
  }
  if (f.employeeRanges && !(m.employee_range && f.employeeRanges.includes(m.employee_range))) return false;
  if (f.employeesMin !== undefined && !(m.employee_count !== null && m.employee_count >= f.employeesMin)) return false;
  if (f.employeesMax !== undefined && !(m.employee_count !== null && m.employee_count <= f.employeesMax)) return false;
  if (f.foundedYearMin !== undefined && !(m.founded_year !== null && m.founded_year >= f.foundedYearMin)) return false;
  if (f.foundedYearMax !== undefined && !(m.founded_year !== null && m.founded_year <= f.foundedYearMax)) return false;
  if (f.categories && !o.categories.some((c) => f.categories?.includes(c))) return false;
  if (f.fundingStages && !(last?.stage && f.fundingStages.includes(last.stage))) return false;
  if (f.lastFundingFrom && !(last?.announced_on && last.announced_on >= f.lastFundingFrom)) return false;
  if (f.lastFundingTo && !(last?.announced_on && last.announced_on <= f.lastFundingTo)) return false;
  if (f.excludeIds?.includes(o.id)) return false;
  return true;
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

/** Brute-force expected hits: filter, score, order by score desc then id asc. */
function expected(records: OrganizationRecord[], vector: Float32Array, kind: VectorKind, filter: OrganizationFilter, minScore = -Infinity) {
  return records
    .flatMap((r) => {
      const v = kind === "profile" ? r.profileVector : r.customerVector;
      if (!v || !matches(r.organization, filter)) return [];
      const score = dot(vector, v);
      return score >= minScore ? [{ id: r.organization.id, score }] : [];
    })
    .sort((a, b) => b.score - a.score || a.id - b.id);
}

let dir: ReturnType<typeof tempDir>;
let backend: EmbeddedBackend;
const open = () => openEmbeddedBackend({ dataDir: dir.path });

beforeEach(() => {
  dir = tempDir();
  backend = open();
});
afterEach(async () => {
  await backend.close();
  dir.remove();
});

describe("writes, reads and the vector model", () => {
  it("has no model until vectors are stored, then the one they came with", async () => {
    const store = backend.organizations;
    expect(store.backend).toBe("embedded");
    expect(await store.vectorModel()).toBeNull();
    expect(await store.search({ vector: unitVector(DIM, rng(1)), kind: "profile", filter: {}, offset: 0, size: 10 })).toEqual([]);
    await store.upsert(randomRecords(3, DIM, 1), MODEL);
    expect(await store.vectorModel()).toEqual(MODEL);
    expect(await store.count()).toBe(3);
    expect(await store.ping()).toBe(true);
  });

  it("refuses vectors of another model or dimension, writing nothing", async () => {
    const store = backend.organizations;
    await store.upsert(randomRecords(3, DIM, 1), MODEL);
    const other = randomRecords(2, DIM, 2, 100);
    const raw = new Database(backend.file, { readonly: true });
    expect(raw.prepare("SELECT DISTINCT model_id FROM organization_vectors").pluck().all()).toEqual(["test-model"]);
    raw.close();
    await expect(store.upsert(other, { modelId: "other-model", dimension: DIM })).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringContaining("test-model") });
    await expect(store.upsert(randomRecords(2, 8, 2, 100), { modelId: "test-model", dimension: 8 })).rejects.toMatchObject({ code: "CONFLICT" });
    // A vector whose length contradicts the declared model.
    await expect(store.upsert(randomRecords(1, 8, 2, 100), MODEL)).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await store.count()).toBe(3);
    expect(await store.get(100)).toBeNull();
    await expect(store.search({ vector: unitVector(8, rng(1)), kind: "profile", filter: {}, offset: 0, size: 5 })).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("accepts a new model once the store is empty again", async () => {
    const store = backend.organizations;
    await store.upsert(randomRecords(2, DIM, 1), MODEL);
    await store.delete(1);
    await store.delete(2);
    expect(await store.vectorModel()).toBeNull();
    await store.upsert(randomRecords(2, 8, 3), { modelId: "small", dimension: 8 });
    expect(await store.vectorModel()).toEqual({ modelId: "small", dimension: 8 });
    expect(await store.search({ vector: unitVector(8, rng(4)), kind: "profile", filter: {}, offset: 0, size: 5 })).toHaveLength(2);
  });

  it("round-trips documents and vectors exactly, and replaces by id (idempotent)", async () => {
    const store = backend.organizations;
    const records = randomRecords(5, DIM, 7);
    await store.upsert(records, MODEL);
    await store.upsert(records, MODEL);
    expect(await store.count()).toBe(5);
    const first = records[0] as OrganizationRecord;
    expect(await store.get(1)).toEqual(first.organization);
    expect(await store.get(99)).toBeNull();
    expect(await store.getVector(1, "profile")).toEqual(first.profileVector);
    const noCustomer = records.find((r) => r.customerVector === null);
    if (noCustomer) expect(await store.getVector(noCustomer.organization.id, "customer")).toBeNull();
    const withCustomer = records.find((r) => r.customerVector !== null) as OrganizationRecord;
    expect(await store.getVector(withCustomer.organization.id, "customer")).toEqual(withCustomer.customerVector);
    expect((await store.getMany([3, 99, 1, 3])).map((o) => o.id)).toEqual([3, 1]);

    // Replacing moves the organization out of its old filter values and gives it the new vector.
    const moved = { organization: organization(1, { hq: place("NZ") }), profileVector: unitVector(DIM, rng(8)), customerVector: null };
    await store.upsert([moved], MODEL);
    const inNz = await store.search({ vector: moved.profileVector, kind: "profile", filter: { location: { countries: ["NZ"], subdivisions: [], hqOnly: true } }, offset: 0, size: 10 });
    expect(inNz.map((h) => [h.organization.id, h.score])).toEqual([[1, expect.closeTo(1, 6)]]);
    const customers = await store.search({ vector: moved.profileVector, kind: "customer", filter: {}, offset: 0, size: 10 });
    expect(customers.map((h) => h.organization.id)).not.toContain(1);
    expect(await store.count()).toBe(5);
  });

  it("deletes from SQLite and from the in-memory index", async () => {
    const store = backend.organizations;
    const records = randomRecords(50, DIM, 9);
    await store.upsert(records, MODEL);
    const query = (records[10] as OrganizationRecord).profileVector;
    expect(await store.delete(11)).toBe(true);
    expect(await store.delete(11)).toBe(false);
    expect(await store.get(11)).toBeNull();
    expect(await store.getVector(11, "profile")).toBeNull();
    const hits = await store.search({ vector: query, kind: "profile", filter: {}, offset: 0, size: 100 });
    expect(hits.map((h) => h.organization.id)).toEqual(expected(records.filter((r) => r.organization.id !== 11), query, "profile", {}).map((h) => h.id));
    expect(await store.count()).toBe(49);
  });
});

describe("search", () => {
  const records = randomRecords(600, DIM, 42);
  const query = unitVector(DIM, rng(4242));
  const search = (filter: OrganizationFilter, more: { offset?: number; size?: number; minScore?: number; kind?: VectorKind } = {}) =>
    backend.organizations.search({ vector: query, kind: more.kind ?? "profile", filter, offset: more.offset ?? 0, size: more.size ?? 1000, ...(more.minScore !== undefined ? { minScore: more.minScore } : {}) });

  beforeEach(async () => {
    await backend.organizations.upsert(records, MODEL);
  });

  const location = (countries: string[], subdivisions: string[], hqOnly = true) => ({ location: { countries, subdivisions, hqOnly } });
  const filters: [string, OrganizationFilter][] = [
    ["no filter", {}],
    ["HQ country", location(["FR"], [])],
    ["HQ countries", location(["FR", "JP"], [])],
    ["HQ subdivision", location([], ["US-NY"])],
    ["HQ country or subdivision", location(["DE"], ["US-TX"])],
    ["any office country", location(["JP"], [], false)],
    ["any office subdivision", location([], ["FR-ARA"], false)],
    ["unknown country", location(["ZZ"], [])],
    ["employee ranges", { employeeRanges: ["11-50", "1001-5000"] }],
    ["employees min", { employeesMin: 500 }],
    ["employees max", { employeesMax: 120 }],
    ["employees min and max", { employeesMin: 0, employeesMax: 10_000 }],
    ["founded min", { foundedYearMin: 2000 }],
    ["founded max", { foundedYearMax: 1980 }],
    ["founded range", { foundedYearMin: 1990, foundedYearMax: 1995 }],
    ["categories", { categories: ["payments", "cybersecurity"] }],
    ["funding stages", { fundingStages: ["seed", "series_a"] }],
    ["last funding from", { lastFundingFrom: "2020-06-15" }],
    ["last funding to", { lastFundingTo: "2012-02-01" }],
    ["last funding range", { lastFundingFrom: "2015-01-01", lastFundingTo: "2016-12-31" }],
    ["exclude ids", { excludeIds: [1, 2, 3, 50, 77, 9999] }],
    [
      "everything at once",
      { ...location(["US", "DE"], ["FR-IDF"], false), employeesMin: 5, foundedYearMin: 1960, fundingStages: ["seed", "series_a", "series_b", "growth", "debt"], lastFundingFrom: "2012-01-01", excludeIds: [5] },
    ],
    ["range and stage", { employeeRanges: ["1-10", "11-50", "51-200"], fundingStages: ["pre_seed", "seed"] }],
    ["HQ country and categories", { ...location(["US"], []), categories: ["payments", "developer-tools", "banking"] }],
  ];

  it.each(filters)("filter: %s returns exactly the matching organizations, best first", async (name, filter) => {
    const want = expected(records, query, "profile", filter);
    const got = await search(filter);
    expect(got.map((h) => h.organization.id)).toEqual(want.map((h) => h.id));
    for (const [i, hit] of got.entries()) expect(hit.score).toBeCloseTo((want[i] as { score: number }).score, 10);
    if (name !== "unknown country") expect(want.length).toBeGreaterThan(0);
  });

  it("hq_only decides whether offices count for location", async () => {
    const store = backend.organizations;
    const vector = unitVector(DIM, rng(5));
    await store.upsert([{ organization: organization(5000, { hq: place("FR", "FR-IDF"), offices: [place("US", "US-TX"), place("GB")] }), profileVector: vector, customerVector: null }], MODEL);
    const ids = async (countries: string[], subdivisions: string[], hqOnly: boolean) =>
      (await store.search({ vector, kind: "profile", filter: location(countries, subdivisions, hqOnly), offset: 0, size: 1000 })).map((h) => h.organization.id);
    expect(await ids(["US"], [], true)).not.toContain(5000);
    expect(await ids(["US"], [], false)).toContain(5000);
    expect(await ids([], ["US-TX"], true)).not.toContain(5000);
    expect(await ids([], ["US-TX"], false)).toContain(5000);
    expect(await ids(["GB"], [], false)).toContain(5000);
    expect(await ids(["FR"], [], true)).toContain(5000);
    expect(await ids([], ["FR-IDF"], false)).toContain(5000);
  });

  it("null values never match a range, a range bucket, a stage or a date", async () => {
    const store = backend.organizations;
    const vector = unitVector(DIM, rng(6));
    await store.upsert([{ organization: organization(7000, { hq: null }), profileVector: vector, customerVector: null }], MODEL);
    for (const filter of [
      { employeesMin: 0 },
      { employeesMax: 1_000_000 },
      { foundedYearMin: 1600 },
      { foundedYearMax: 2100 },
      { employeeRanges: ["1-10"] },
      { fundingStages: ["seed"] },
      { lastFundingFrom: "1900-01-01" },
      { lastFundingTo: "2100-01-01" },
      { categories: ["payments"] },
      location(["US"], ["US-CA"], false),
    ] as OrganizationFilter[]) {
      const hits = await store.search({ vector, kind: "profile", filter, offset: 0, size: 1000 });
      expect(hits.map((h) => h.organization.id), JSON.stringify(filter)).not.toContain(7000);
    }
    const all = await store.search({ vector, kind: "profile", filter: {}, offset: 0, size: 1 });
    expect(all[0]?.organization.id).toBe(7000);
  });

  it("date bounds are inclusive", async () => {
    const store = backend.organizations;
    const vector = unitVector(DIM, rng(7));
    await store.upsert([{ organization: organization(8000, { stage: "seed", roundOn: "2021-03-04" }), profileVector: vector, customerVector: null }], MODEL);
    const ids = async (filter: OrganizationFilter) => (await store.search({ vector, kind: "profile", filter, offset: 0, size: 1000 })).map((h) => h.organization.id);
    expect(await ids({ lastFundingFrom: "2021-03-04", lastFundingTo: "2021-03-04" })).toContain(8000);
    expect(await ids({ lastFundingFrom: "2021-03-05" })).not.toContain(8000);
    expect(await ids({ lastFundingTo: "2021-03-03" })).not.toContain(8000);
  });

  it("searches customer vectors, leaving out organizations without one", async () => {
    const got = await search({}, { kind: "customer" });
    const want = expected(records, query, "customer", {});
    expect(got.map((h) => h.organization.id)).toEqual(want.map((h) => h.id));
    expect(want.length).toBeLessThan(records.length);
  });

  it("breaks score ties by id ascending", async () => {
    const store = backend.organizations;
    const vector = unitVector(DIM, rng(11));
    const twins = [9005, 9001, 9003, 9002].map((id) => ({ organization: organization(id, { hq: place("IS") }), profileVector: vector, customerVector: null }));
    await store.upsert(twins, MODEL);
    const hits = await store.search({ vector, kind: "profile", filter: location(["IS"], []), offset: 0, size: 10 });
    expect(hits.map((h) => h.organization.id)).toEqual([9001, 9002, 9003, 9005]);
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    const page = await store.search({ vector, kind: "profile", filter: location(["IS"], []), offset: 1, size: 2 });
    expect(page.map((h) => h.organization.id)).toEqual([9002, 9003]);
  });

  it("pages by offset: consecutive pages are the full ranking cut in pieces", async () => {
    const want = expected(records, query, "profile", {}).map((h) => h.id);
    const pages: number[] = [];
    for (let offset = 0; offset < 95; offset += 19) pages.push(...(await search({}, { offset, size: 19 })).map((h) => h.organization.id));
    expect(pages).toEqual(want.slice(0, 95));
    expect(await search({}, { offset: 599, size: 10 })).toHaveLength(1);
    expect(await search({}, { offset: 600, size: 10 })).toHaveLength(0);
  });

  it("applies min_score before paging", async () => {
    const want = expected(records, query, "profile", {}, 0.3);
    expect(want.length).toBeGreaterThan(5);
    expect((await search({}, { minScore: 0.3 })).map((h) => h.organization.id)).toEqual(want.map((h) => h.id));
    const tail = await search({}, { minScore: 0.3, offset: want.length - 2, size: 10 });
    expect(tail.map((h) => h.organization.id)).toEqual(want.slice(-2).map((h) => h.id));
    expect(await search({}, { minScore: 1.01 })).toEqual([]);
  });

  it("excluded ids do not use up a page", async () => {
    const top = expected(records, query, "profile", {}).map((h) => h.id);
    const hits = await search({ excludeIds: top.slice(0, 3) }, { size: 5 });
    expect(hits.map((h) => h.organization.id)).toEqual(top.slice(3, 8));
  });

  it("scores are the cosine similarity (unit vectors: the dot product)", async () => {
    const self = records[20] as OrganizationRecord;
    const hits = await backend.organizations.search({ vector: self.profileVector, kind: "profile", filter: {}, offset: 0, size: 3 });
    expect(hits[0]?.organization.id).toBe(self.organization.id);
    expect(hits[0]?.score).toBeCloseTo(1, 6);
    expect(hits[1]?.score).toBeCloseTo(dot(self.profileVector, records[(hits[1]?.organization.id as number) - 1]?.profileVector as Float32Array), 12);
  });
});

it("a restrictive filter still fills the page (filter before ranking)", async () => {
  const records = randomRecords(5000, DIM, 77).map((r) => ({ ...r, organization: { ...r.organization, categories: [] as string[] } }));
  // 30 organizations, none of them close to the query, carry the one category filtered on.
  const query = unitVector(DIM, rng(78));
  const far = records.filter((r) => dot(query, r.profileVector) < 0).slice(0, 30);
  for (const r of far) r.organization.categories = ["legal-tech"];
  await backend.organizations.upsert(records, MODEL);
  const hits = await backend.organizations.search({ vector: query, kind: "profile", filter: { categories: ["legal-tech"] }, offset: 0, size: 20 });
  expect(hits).toHaveLength(20);
  expect(hits.every((h) => h.organization.categories.includes("legal-tech"))).toBe(true);
  const rest = await backend.organizations.search({ vector: query, kind: "profile", filter: { categories: ["legal-tech"] }, offset: 20, size: 20 });
  expect(rest).toHaveLength(10);
});

it("random upserts and deletes keep the in-memory index equal to a brute-force reference", async () => {
  const store = backend.organizations;
  const random = rng(31);
  let live = new Map(randomRecords(1500, DIM, 30).map((r) => [r.organization.id, r]));
  await store.upsert([...live.values()], MODEL);
  const ids = [...live.keys()];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 150; i++) {
      const id = ids[Math.floor(random() * ids.length)] as number;
      await store.delete(id);
      live.delete(id);
    }
    const replacements = randomRecords(100, DIM, 40 + round).map((r, i) => ({ ...r, organization: { ...r.organization, id: ids[(round * 100 + i * 7) % ids.length] as number } }));
    await store.upsert(replacements, MODEL);
    live = new Map([...live, ...replacements.map((r) => [r.organization.id, r] as const)]);
  }
  const query = unitVector(DIM, rng(32));
  const want = expected([...live.values()], query, "customer", {}).map((h) => h.id);
  const check = async (store = backend.organizations) => {
    expect(await store.count()).toBe(live.size);
    expect((await store.search({ vector: query, kind: "customer", filter: {}, offset: 0, size: 1001 })).map((h) => h.organization.id)).toEqual(want.slice(0, 1001));
    expect((await store.search({ vector: query, kind: "customer", filter: {}, offset: 500, size: 101 })).map((h) => h.organization.id)).toEqual(want.slice(500, 601));
  };
  await check();
  await backend.close();
  backend = open();
  await check();
});

describe("durability and other connections", () => {
  it("keeps everything across close and reopen, with the same search results", async () => {
    const records = randomRecords(300, DIM, 99);
    await backend.organizations.upsert(records, MODEL);
    await backend.organizations.delete(7);
    const query = unitVector(DIM, rng(100));
    const filter: OrganizationFilter = { location: { countries: ["US", "FR"], subdivisions: [], hqOnly: false }, employeesMin: 10 };
    const before = await backend.organizations.search({ vector: query, kind: "customer", filter, offset: 3, size: 40 });
    const beforeAll = await backend.organizations.search({ vector: query, kind: "profile", filter: {}, offset: 0, size: 300 });
    await backend.close();

    backend = open();
    expect(await backend.organizations.count()).toBe(299);
    expect(await backend.organizations.vectorModel()).toEqual(MODEL);
    expect(await backend.organizations.get(8)).toEqual(records[7]?.organization);
    expect(await backend.organizations.search({ vector: query, kind: "customer", filter, offset: 3, size: 40 })).toEqual(before);
    expect(await backend.organizations.search({ vector: query, kind: "profile", filter: {}, offset: 0, size: 300 })).toEqual(beforeAll);
  });

  it("sees organizations written or deleted through another connection (e.g. the importer)", async () => {
    const records = randomRecords(100, DIM, 5);
    await backend.organizations.upsert(records.slice(0, 50), MODEL);
    const query = unitVector(DIM, rng(6));
    expect(await backend.organizations.search({ vector: query, kind: "profile", filter: {}, offset: 0, size: 200 })).toHaveLength(50);

    const other = open();
    await other.organizations.upsert(records.slice(50), MODEL);
    await other.organizations.delete(1);
    // Collection writes elsewhere must not matter to the organization index.
    await other.collections.create("t", { name: "x", description: null, entity_type: null });
    const hits = await backend.organizations.search({ vector: query, kind: "profile", filter: {}, offset: 0, size: 200 });
    expect(hits.map((h) => h.organization.id)).toEqual(expected(records.slice(1), query, "profile", {}).map((h) => h.id));

    // Our own write after theirs keeps both.
    await backend.organizations.upsert([{ ...(records[0] as OrganizationRecord) }], MODEL);
    await other.organizations.delete(2);
    await backend.organizations.upsert([{ organization: organization(500), profileVector: query, customerVector: null }], MODEL);
    const after = await backend.organizations.search({ vector: query, kind: "profile", filter: {}, offset: 0, size: 200 });
    expect(after).toHaveLength(100);
    expect(after[0]?.organization.id).toBe(500);
    expect(after.map((h) => h.organization.id)).not.toContain(2);
    await other.close();
  });

  it("answers ping false once closed; closing twice is harmless", async () => {
    const store = backend.organizations;
    await store.close();
    await store.close();
    expect(await store.ping()).toBe(false);
    // The shared connection stays open for the collection store until it closes too.
    expect(await backend.collections.list("t", { limit: 5 })).toEqual({ data: [], next_cursor: null });
  });
});
