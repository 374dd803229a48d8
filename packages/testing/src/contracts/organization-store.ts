/** The `OrganizationStore` contract: cases every backend must pass, run by each backend's tests with its own factory. */
import {
  FOUNDED_YEAR,
  lexicalTerms,
  lexicalTextsOf,
  termFrequency,
  MAX_AMOUNT_USD,
  MAX_COUNT,
  MAX_ORGANIZATION_ID,
  Organization,
  type OrganizationFilter,
  type OrganizationRecord,
  type OrganizationStore,
  type VectorKind,
} from "@orgsim/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dot, expected, expectedText, location } from "../expected";
import { organization, place, randomRecords, rng, unitVector } from "../synthetic";
import { describeCustomerBaseFiguresContract } from "./customer-base-figures";
import { describeCustomerSearchContract } from "./customer-search";
import { describeLookupContract } from "./organization-lookup";
import { describeOrganizationWordsContract } from "./organization-words";
import { describeStoredVectorContract } from "./stored-vector";

export const CONTRACT_DIM = 16;
export const CONTRACT_MODEL = { modelId: "test-model", dimension: CONTRACT_DIM };
const DIM = CONTRACT_DIM;
const MODEL = CONTRACT_MODEL;
/**
 * Digits to which a reported score equals the float64 cosine: an adapter may take the cosine its
 * engine computes in float32 (Elasticsearch: within 1e-6), as the service reports 6 decimals.
 */
const COSINE_DIGITS = 6;

/** A fresh, empty store, and how to dispose of it. */
export interface OpenedOrganizationStore {
  store: OrganizationStore;
  cleanup(): Promise<void>;
}

export interface OrganizationStoreContractOptions {
  /** The value of `store.backend`. */
  backend: OrganizationStore["backend"];
  /** Opens a fresh, empty store. */
  open(): Promise<OpenedOrganizationStore>;
}

export function describeOrganizationStoreContract(name: string, options: OrganizationStoreContractOptions): void {
  describe(`${name}: OrganizationStore contract`, () => {
    describeLookupContract(options, MODEL);
    describeCustomerSearchContract(options);
    describeOrganizationWordsContract(options);
    describeStoredVectorContract(options, MODEL);
    describeCustomerBaseFiguresContract(options, MODEL);
    describe("writes, reads and the vector model", () => {
      let opened: OpenedOrganizationStore | undefined;
      const fresh = async () => {
        opened = await options.open();
        return opened.store;
      };
      afterEach(async () => {
        await opened?.cleanup();
        opened = undefined;
      });

      it("has no model until vectors are stored, then the one they came with", async () => {
        const store = await fresh();
        expect(store.backend).toBe(options.backend);
        expect(await store.vectorModel()).toBeNull();
        expect(await store.count()).toBe(0);
        expect(await store.get(1)).toBeNull();
        expect(await store.getMany([1, 2])).toEqual([]);
        expect(await store.getVector(1, "profile")).toBeNull();
        expect(await store.delete(1)).toBe(false);
        expect(await store.search({ vector: unitVector(DIM, rng(1)), kind: "profile", filter: {}, offset: 0, size: 10 })).toEqual([]);
        await store.upsert(randomRecords(3, DIM, 1), MODEL);
        expect(await store.vectorModel()).toEqual(MODEL);
        expect(await store.count()).toBe(3);
        expect(await store.ping()).toBe(true);
      });

      it("refuses vectors of another model or dimension, writing nothing", async () => {
        const store = await fresh();
        await store.upsert(randomRecords(3, DIM, 1), MODEL);
        const other = randomRecords(2, DIM, 2, 100);
        await expect(store.upsert(other, { modelId: "other-model", dimension: DIM })).rejects.toMatchObject({
          code: "CONFLICT",
          message: expect.stringContaining("test-model"),
        });
        await expect(store.upsert(randomRecords(2, 8, 2, 100), { modelId: "test-model", dimension: 8 })).rejects.toMatchObject({ code: "CONFLICT" });
        await expect(store.upsert(randomRecords(2, 8, 2, 100), { modelId: "small", dimension: 8 })).rejects.toMatchObject({ code: "CONFLICT" });
        // A vector whose length contradicts the declared model.
        await expect(store.upsert(randomRecords(1, 8, 2, 100), MODEL)).rejects.toMatchObject({ code: "CONFLICT" });
        expect(await store.count()).toBe(3);
        expect(await store.get(100)).toBeNull();
        expect(await store.vectorModel()).toEqual(MODEL);
        await expect(store.search({ vector: unitVector(8, rng(1)), kind: "profile", filter: {}, offset: 0, size: 5 })).rejects.toMatchObject({
          code: "CONFLICT",
        });
      });

      it("accepts a new model once the store is empty again", async () => {
        const store = await fresh();
        await store.upsert(randomRecords(2, DIM, 1), MODEL);
        await store.delete(1);
        await store.delete(2);
        expect(await store.vectorModel()).toBeNull();
        await store.upsert(randomRecords(2, 8, 3), { modelId: "small", dimension: 8 });
        expect(await store.vectorModel()).toEqual({ modelId: "small", dimension: 8 });
        expect(await store.search({ vector: unitVector(8, rng(4)), kind: "profile", filter: {}, offset: 0, size: 5 })).toHaveLength(2);
        // Same dimension, another model.
        await store.delete(1);
        await store.delete(2);
        await store.upsert(randomRecords(2, 8, 5), { modelId: "small-2", dimension: 8 });
        expect(await store.vectorModel()).toEqual({ modelId: "small-2", dimension: 8 });
      });

      it("round-trips documents and vectors exactly, and replaces by id (idempotent)", async () => {
        const store = await fresh();
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
        const inNz = await store.search({ vector: moved.profileVector, kind: "profile", filter: location(["NZ"], []), offset: 0, size: 10 });
        expect(inNz.map((h) => [h.organization.id, h.score])).toEqual([[1, expect.closeTo(1, 6)]]);
        const customers = await store.search({ vector: moved.profileVector, kind: "customer", filter: {}, offset: 0, size: 10 });
        expect(customers.map((h) => h.organization.id)).not.toContain(1);
        expect(await store.count()).toBe(5);
      });

      it("stores, reads back and filters every number at the schema's bounds", async () => {
        const store = await fresh();
        const base = organization(MAX_ORGANIZATION_ID, { employees: MAX_COUNT, founded: FOUNDED_YEAR.max });
        const largest: Organization = {
          ...base,
          metrics: {
            ...base.metrics,
            founded_on: `${FOUNDED_YEAR.max}-12-31`,
            funding: { total_raised_usd: MAX_AMOUNT_USD, rounds_count: MAX_COUNT, last_round: { stage: null, announced_on: null, amount_usd: MAX_AMOUNT_USD } },
          },
        };
        const smallest = organization(1, { employees: 0, founded: FOUNDED_YEAR.min });
        const records = [largest, smallest].map((o, i) => ({ organization: o, profileVector: unitVector(DIM, rng(20 + i)), customerVector: null }));
        await store.upsert(records, MODEL);
        // The bounds are those of the read schema: what the store returns parses.
        for (const o of [largest, smallest]) expect(Organization.parse(await store.get(o.id))).toEqual(o);
        const idsWhere = async (filter: OrganizationFilter) =>
          (await store.search({ vector: unitVector(DIM, rng(22)), kind: "profile", filter, offset: 0, size: 10 }))
            .map((h) => h.organization.id)
            .sort((a, b) => a - b);
        expect(await idsWhere({ employeesMin: MAX_COUNT, foundedYearMin: FOUNDED_YEAR.max })).toEqual([MAX_ORGANIZATION_ID]);
        expect(await idsWhere({ employeesMax: 0, foundedYearMax: FOUNDED_YEAR.min })).toEqual([1]);
        expect(await idsWhere({ excludeIds: [MAX_ORGANIZATION_ID] })).toEqual([1]);
      });

      it("deletes, from reads and from search", async () => {
        const store = await fresh();
        const records = randomRecords(50, DIM, 9);
        await store.upsert(records, MODEL);
        const query = (records[10] as OrganizationRecord).profileVector;
        expect(await store.delete(11)).toBe(true);
        expect(await store.delete(11)).toBe(false);
        expect(await store.get(11)).toBeNull();
        expect(await store.getVector(11, "profile")).toBeNull();
        const hits = await store.search({ vector: query, kind: "profile", filter: {}, offset: 0, size: 100 });
        expect(hits.map((h) => h.organization.id)).toEqual(
          expected(
            records.filter((r) => r.organization.id !== 11),
            query,
            "profile",
            {},
          ).map((h) => h.id),
        );
        expect(await store.count()).toBe(49);
      });
    });

    describe("search", () => {
      let opened: OpenedOrganizationStore;
      const records = randomRecords(600, DIM, 42);
      const query = unitVector(DIM, rng(4242));
      const search = (filter: OrganizationFilter, more: { offset?: number; size?: number; minScore?: number; kind?: VectorKind } = {}) =>
        opened.store.search({
          vector: query,
          kind: more.kind ?? "profile",
          filter,
          offset: more.offset ?? 0,
          size: more.size ?? 1000,
          ...(more.minScore !== undefined ? { minScore: more.minScore } : {}),
        });

      beforeAll(async () => {
        opened = await options.open();
        await opened.store.upsert(records, MODEL);
      });
      afterAll(() => opened.cleanup());

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
          {
            ...location(["US", "DE"], ["FR-IDF"], false),
            employeesMin: 5,
            foundedYearMin: 1960,
            fundingStages: ["seed", "series_a", "series_b", "growth", "debt"],
            lastFundingFrom: "2012-01-01",
            excludeIds: [5],
          },
        ],
        ["range and stage", { employeeRanges: ["1-10", "11-50", "51-200"], fundingStages: ["pre_seed", "seed"] }],
        ["HQ country and categories", { ...location(["US"], []), categories: ["payments", "developer-tools", "banking"] }],
      ];

      it.each(filters)("filter: %s returns exactly the matching organizations, best first", async (name, filter) => {
        const want = expected(records, query, "profile", filter);
        const got = await search(filter);
        expect(got.map((h) => h.organization.id)).toEqual(want.map((h) => h.id));
        for (const [i, hit] of got.entries()) expect(hit.score).toBeCloseTo((want[i] as { score: number }).score, COSINE_DIGITS);
        if (name !== "unknown country") expect(want.length).toBeGreaterThan(0);
        // A first page of 10 is the head of the same ranking.
        expect((await search(filter, { size: 10 })).map((h) => h.organization.id)).toEqual(want.slice(0, 10).map((h) => h.id));
      });

      it("searches customer vectors, leaving out organizations without one", async () => {
        const got = await search({}, { kind: "customer" });
        const want = expected(records, query, "customer", {});
        expect(got.map((h) => h.organization.id)).toEqual(want.map((h) => h.id));
        expect(want.length).toBeLessThan(records.length);
        const withFilter = await search(location(["FR"], [], false), { kind: "customer" });
        expect(withFilter.map((h) => h.organization.id)).toEqual(expected(records, query, "customer", location(["FR"], [], false)).map((h) => h.id));
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
        // A floor exactly on a score the store reported keeps that hit.
        const edge = (await search({}, { minScore: 0.3 }))[3] as { score: number };
        const atEdge = await search({}, { minScore: edge.score });
        expect(atEdge.map((h) => h.organization.id)).toEqual(want.slice(0, 4).map((h) => h.id));
        // Negative floors work too (the floor is the raw cosine).
        expect((await search({}, { minScore: -0.2 })).map((h) => h.organization.id)).toEqual(expected(records, query, "profile", {}, -0.2).map((h) => h.id));
      });

      it("rank() is search() without the documents: the same ids, the same scores to float32 precision", async () => {
        for (const [filter, more] of [
          [{}, { size: 50 }],
          [location(["FR"], [], false), { kind: "customer" as VectorKind, offset: 3, size: 20 }],
          [{ employeesMin: 100 }, { minScore: 0.2 }],
        ] as const) {
          const q = {
            vector: query,
            kind: "kind" in more ? more.kind : ("profile" as VectorKind),
            filter,
            offset: "offset" in more ? more.offset : 0,
            size: "size" in more ? more.size : 1000,
            ...("minScore" in more ? { minScore: more.minScore } : {}),
          };
          const full = await opened.store.search(q);
          expect(full.length).toBeGreaterThan(0);
          const ranked = await opened.store.rank(q);
          expect(ranked.map((h) => h.id)).toEqual(full.map((h) => h.organization.id));
          for (const [i, h] of ranked.entries()) expect(Math.abs(h.score - (full[i] as { score: number }).score)).toBeLessThan(1e-6);
        }
      });

      it("excluded ids do not use up a page", async () => {
        const top = expected(records, query, "profile", {}).map((h) => h.id);
        const hits = await search({ excludeIds: top.slice(0, 3) }, { size: 5 });
        expect(hits.map((h) => h.organization.id)).toEqual(top.slice(3, 8));
      });

      it("scores are the cosine similarity (unit vectors: the dot product)", async () => {
        const self = records[20] as OrganizationRecord;
        const hits = await opened.store.search({ vector: self.profileVector, kind: "profile", filter: {}, offset: 0, size: 3 });
        expect(hits[0]?.organization.id).toBe(self.organization.id);
        expect(hits[0]?.score).toBeCloseTo(1, 6);
        expect(hits[1]?.score).toBeCloseTo(
          dot(self.profileVector, records[(hits[1]?.organization.id as number) - 1]?.profileVector as Float32Array),
          COSINE_DIGITS,
        );
      });
    });

    describe("word search and similarities", () => {
      let opened: OpenedOrganizationStore;
      // Short texts from a small vocabulary: many organizations share words, none reaches 24 terms.
      const VOCABULARY =
        "payments fraud robots warehouse logistics solar battery clinic patients dental insurance freight shipping retail grocery analytics cloud security payroll hiring tutoring school farm drones mapping legal contracts energy grid lending".split(
          " ",
        );
      const random = rng(9);
      const words = (n: number) => Array.from({ length: n }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]).join(" ");
      const records = randomRecords(300, DIM, 91).map((r) => {
        const withWords = { ...r.organization, description: `${words(2 + Math.floor(random() * 8))}.`, categories: [] as string[] };
        if (withWords.customer_description) withWords.customer_description = words(1 + Math.floor(random() * 5));
        return { ...r, organization: withWords };
      });
      const searchText = (text: string, filter: OrganizationFilter = {}, more: { kind?: VectorKind; size?: number } = {}) =>
        opened.store.searchText({ text, kind: more.kind ?? "profile", filter, size: more.size ?? 1000 });
      const ranked = (text: string, filter: OrganizationFilter = {}, kind: VectorKind = "profile") =>
        expectedText(records, text, kind, filter).map((h) => h.id);

      beforeAll(async () => {
        opened = await options.open();
        await opened.store.upsert(records, MODEL);
      });
      afterAll(() => opened.cleanup());

      it.each([
        ["one word", "robots", {}],
        ["two words", "payments fraud", {}],
        ["a repeated word counts once", "solar solar solar battery", {}],
        ["a sentence with stop words and punctuation", "We build ROBOTS for the warehouse, and drones!", {}],
        ["filtered by HQ country", "freight shipping logistics", location(["FR", "JP"], [])],
        ["filtered by stage and range", "clinic patients dental", { fundingStages: ["seed", "series_a", "growth"], employeesMin: 10 }],
        ["excluded ids", "cloud security", { excludeIds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }],
        ["filtered, with excluded ids", "freight shipping clinic lending", { employeesMin: 10, excludeIds: Array.from({ length: 60 }, (_, i) => 2 * i + 1) }],
      ] as [string, string, OrganizationFilter][])("ranks by BM25 as Lucene does: %s", async (_name, text, filter) => {
        const want = ranked(text, filter);
        expect(want.length).toBeGreaterThan(3);
        expect(await searchText(text, filter)).toEqual(want);
        expect(await searchText(text, filter, { size: 3 })).toEqual(want.slice(0, 3));
      });

      it("searches customer texts only of organizations with a customer vector", async () => {
        const want = ranked("hiring payroll tutoring", {}, "customer");
        expect(want.length).toBeGreaterThan(3);
        const got = await searchText("hiring payroll tutoring", {}, { kind: "customer" });
        expect(got).toEqual(want);
        const withCustomer = new Set(records.filter((r) => r.customerVector).map((r) => r.organization.id));
        expect(got.every((id) => withCustomer.has(id))).toBe(true);
      });

      it("term statistics count the live texts of each kind holding each term", async () => {
        const terms = ["payments", "robots", "zeppelin", "tutoring"];
        for (const kind of ["profile", "customer"] as VectorKind[]) {
          const texts = records
            .filter((r) => kind === "profile" || r.customerVector)
            .map((r) => new Set(lexicalTerms(lexicalTextsOf(r.organization)[kind] ?? "")))
            .filter((t) => t.size > 0);
          const stats = await opened.store.termStatistics(terms, kind);
          expect(stats.documents).toBe(texts.length);
          for (const term of terms) expect(stats.docFrequency.get(term)).toBe(texts.filter((t) => t.has(term)).length);
          // No terms (a text of symbols only): the count, and no frequencies.
          const none = await opened.store.termStatistics([], kind);
          expect([none.documents, none.docFrequency.size]).toEqual([texts.length, 0]);
        }
      });

      it("an organization's term statistics are its text's terms, each with its count, and their termStatistics", async () => {
        const withCustomer = records.find((r) => r.customerVector && lexicalTextsOf(r.organization).customer) as OrganizationRecord;
        const withoutCustomer = records.find((r) => !r.customerVector) as OrganizationRecord;
        for (const record of [withCustomer, withoutCustomer]) {
          for (const kind of ["profile", "customer"] as VectorKind[]) {
            const got = await opened.store.organizationTermStatistics(record.organization.id, kind);
            const text = kind === "profile" || record.customerVector ? lexicalTextsOf(record.organization)[kind] : null;
            if (!text) {
              expect(got).toBeNull();
              continue;
            }
            const frequency = termFrequency(lexicalTerms(text));
            expect(got?.frequency).toEqual(frequency);
            expect(got?.statistics).toEqual(await opened.store.termStatistics([...frequency.keys()], kind));
          }
        }
        expect(await opened.store.organizationTermStatistics(9999, "profile")).toBeNull();
      });

      it("finds nothing for words no organization has, or for stop words only", async () => {
        expect(await searchText("zeppelin")).toEqual([]);
        expect(await searchText("the of and a")).toEqual([]);
        expect(await searchText("robots", location(["ZZ"], []))).toEqual([]);
      });

      it("similarities are the cosines search() reports, for the ids with such a vector", async () => {
        const query = unitVector(DIM, rng(3));
        const hits = await opened.store.search({ vector: query, kind: "customer", filter: {}, offset: 0, size: 20 });
        const withoutCustomer = records.find((r) => !r.customerVector)?.organization.id as number;
        const got = await opened.store.similarities(query, "customer", [...hits.map((h) => h.organization.id), withoutCustomer, 99_999]);
        expect(got.size).toBe(hits.length);
        for (const h of hits) expect(got.get(h.organization.id)).toBeCloseTo(h.score, 12);
        const profile = await opened.store.similarities(query, "profile", [withoutCustomer]);
        expect(profile.get(withoutCustomer)).toBeCloseTo(dot(query, records[withoutCustomer - 1]?.profileVector as Float32Array), COSINE_DIGITS);
      });
    });

    describe("word search after writes", () => {
      let opened: OpenedOrganizationStore | undefined;
      afterEach(async () => {
        await opened?.cleanup();
        opened = undefined;
      });

      it("finds a replaced organization by its new words only, and a deleted one not at all", async () => {
        opened = await options.open();
        const { store } = opened;
        const records = randomRecords(20, DIM, 5).map((r) => ({
          ...r,
          organization: { ...r.organization, description: `Plain company number ${r.organization.id}` },
        }));
        await store.upsert(records, MODEL);
        const seven = records[6] as OrganizationRecord;
        await store.upsert([{ ...seven, organization: { ...seven.organization, description: "Orbital satellite imagery" } }], MODEL);
        expect(await store.searchText({ text: "satellite", kind: "profile", filter: {}, size: 10 })).toEqual([7]);
        expect(await store.searchText({ text: "plain company", kind: "profile", filter: {}, size: 50 })).not.toContain(7);
        await store.delete(7);
        expect(await store.searchText({ text: "satellite", kind: "profile", filter: {}, size: 10 })).toEqual([]);
        expect(await store.similarities(seven.profileVector, "profile", [7])).toEqual(new Map());
        // Counted over the live texts only: not the replaced one, nor the deleted one.
        const three = await store.organizationTermStatistics(3, "profile");
        expect(three?.statistics.documents).toBe(19);
        expect(three?.statistics.docFrequency.get("plain")).toBe(19);
        expect(three?.frequency).toEqual(termFrequency(lexicalTerms(lexicalTextsOf((records[2] as OrganizationRecord).organization).profile ?? "")));
        expect(await store.organizationTermStatistics(7, "profile")).toBeNull();
      });
    });

    describe("search edge cases", () => {
      let opened: OpenedOrganizationStore | undefined;
      const fresh = async () => {
        opened = await options.open();
        return opened.store;
      };
      afterEach(async () => {
        await opened?.cleanup();
        opened = undefined;
      });

      it("hq_only decides whether offices count for location", async () => {
        const store = await fresh();
        const vector = unitVector(DIM, rng(5));
        await store.upsert(randomRecords(20, DIM, 5), MODEL);
        await store.upsert(
          [
            {
              organization: organization(5000, { hq: place("FR", "FR-IDF"), offices: [place("US", "US-TX"), place("GB")] }),
              profileVector: vector,
              customerVector: null,
            },
          ],
          MODEL,
        );
        const ids = async (countries: string[], subdivisions: string[], hqOnly: boolean) =>
          (await store.search({ vector, kind: "profile", filter: location(countries, subdivisions, hqOnly), offset: 0, size: 1000 })).map(
            (h) => h.organization.id,
          );
        expect(await ids(["US"], [], true)).not.toContain(5000);
        expect(await ids(["US"], [], false)).toContain(5000);
        expect(await ids([], ["US-TX"], true)).not.toContain(5000);
        expect(await ids([], ["US-TX"], false)).toContain(5000);
        expect(await ids(["GB"], [], false)).toContain(5000);
        expect(await ids(["FR"], [], true)).toContain(5000);
        expect(await ids([], ["FR-IDF"], false)).toContain(5000);
        expect(await ids([], [], false)).toEqual([]);
      });

      it("null values never match a range, a range bucket, a stage or a date", async () => {
        const store = await fresh();
        const vector = unitVector(DIM, rng(6));
        await store.upsert(randomRecords(20, DIM, 6), MODEL);
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
          expect(
            hits.map((h) => h.organization.id),
            JSON.stringify(filter),
          ).not.toContain(7000);
        }
        const all = await store.search({ vector, kind: "profile", filter: {}, offset: 0, size: 1 });
        expect(all[0]?.organization.id).toBe(7000);
      });

      it("date bounds are inclusive", async () => {
        const store = await fresh();
        const vector = unitVector(DIM, rng(7));
        await store.upsert(
          [{ organization: organization(8000, { stage: "seed", roundOn: "2021-03-04" }), profileVector: vector, customerVector: null }],
          MODEL,
        );
        const ids = async (filter: OrganizationFilter) =>
          (await store.search({ vector, kind: "profile", filter, offset: 0, size: 1000 })).map((h) => h.organization.id);
        expect(await ids({ lastFundingFrom: "2021-03-04", lastFundingTo: "2021-03-04" })).toContain(8000);
        expect(await ids({ lastFundingFrom: "2021-03-05" })).not.toContain(8000);
        expect(await ids({ lastFundingTo: "2021-03-03" })).not.toContain(8000);
      });

      it("breaks score ties by id ascending, also across a long run of ties written highest id first", async () => {
        const store = await fresh();
        const vector = unitVector(DIM, rng(11));
        const twins = [9005, 9001, 9003, 9002].map((id) => ({
          organization: organization(id, { hq: place("IS") }),
          profileVector: vector,
          customerVector: null,
        }));
        await store.upsert(twins, MODEL);
        const hits = await store.search({ vector, kind: "profile", filter: location(["IS"], []), offset: 0, size: 10 });
        expect(hits.map((h) => h.organization.id)).toEqual([9001, 9002, 9003, 9005]);
        expect(new Set(hits.map((h) => h.score)).size).toBe(1);
        const page = await store.search({ vector, kind: "profile", filter: location(["IS"], []), offset: 1, size: 2 });
        expect(page.map((h) => h.organization.id)).toEqual([9002, 9003]);

        // 60 twins written highest id first (for Elasticsearch: its own order among equal scores is the reverse of ours).
        const many = Array.from({ length: 60 }, (_, i) => ({
          organization: organization(2000 - i, { hq: place("NO") }),
          profileVector: vector,
          customerVector: null,
        }));
        for (let i = 0; i < many.length; i += 10) await store.upsert(many.slice(i, i + 10), MODEL);
        await store.upsert(randomRecords(200, DIM, 12), MODEL);
        const ids = Array.from({ length: 60 }, (_, i) => 1941 + i);
        for (const [offset, size] of [
          [0, 5],
          [7, 3],
          [40, 30],
        ] as const) {
          const got = await store.search({ vector, kind: "profile", filter: location(["NO"], []), offset, size });
          expect(got.map((h) => h.organization.id)).toEqual(ids.slice(offset, offset + size));
        }
        const unfiltered = await store.search({ vector, kind: "profile", filter: {}, offset: 0, size: 70 });
        expect(unfiltered.map((h) => h.organization.id).slice(0, 60)).toEqual(ids);
      });

      it("a restrictive filter still fills the page (filter before ranking)", async () => {
        const store = await fresh();
        const records = randomRecords(5000, DIM, 77).map((r) => ({ ...r, organization: { ...r.organization, categories: [] as string[] } }));
        // 30 organizations, none of them close to the query, carry the one category filtered on.
        const query = unitVector(DIM, rng(78));
        const far = records.filter((r) => dot(query, r.profileVector) < 0).slice(0, 30);
        for (const r of far) r.organization.categories = ["legal-tech"];
        for (let i = 0; i < records.length; i += 1000) await store.upsert(records.slice(i, i + 1000), MODEL);
        const hits = await store.search({ vector: query, kind: "profile", filter: { categories: ["legal-tech"] }, offset: 0, size: 20 });
        expect(hits).toHaveLength(20);
        expect(hits.every((h) => h.organization.categories.includes("legal-tech"))).toBe(true);
        expect(hits.map((h) => h.organization.id)).toEqual(
          expected(records, query, "profile", { categories: ["legal-tech"] })
            .slice(0, 20)
            .map((h) => h.id),
        );
        const rest = await store.search({ vector: query, kind: "profile", filter: { categories: ["legal-tech"] }, offset: 20, size: 20 });
        expect(rest).toHaveLength(10);
      });
    });
  });
}
