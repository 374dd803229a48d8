import type { OrganizationFilter, OrganizationRecord } from "@orgsim/core";
import { expected, organization, randomRecords, rng, unitVector } from "@orgsim/testing";
import { describeOrganizationStoreContract } from "@orgsim/testing/contracts";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type EmbeddedBackend, openEmbeddedBackend } from "../src/index";
import { KEPT_GENERATIONS } from "../src/organization-changes";
import { tempDir } from "./temp-dir";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };

describeOrganizationStoreContract("embedded", {
  backend: "embedded",
  async open() {
    const dir = tempDir();
    const backend = openEmbeddedBackend({ dataDir: dir.path });
    return {
      store: backend.organizations,
      async cleanup() {
        await backend.close();
        dir.remove();
      },
    };
  },
});

describe("embedded: SQLite and the in-memory index", () => {
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

  it("stores vectors with their model id in SQLite, and writes none of a refused model", async () => {
    const store = backend.organizations;
    await store.upsert(randomRecords(3, DIM, 1), MODEL);
    const modelIds = () => {
      const raw = new Database(backend.file, { readonly: true });
      const ids = raw.prepare("SELECT DISTINCT model_id FROM organization_vectors").pluck().all();
      raw.close();
      return ids;
    };
    expect(modelIds()).toEqual(["test-model"]);
    await expect(store.upsert(randomRecords(2, DIM, 2, 100), { modelId: "other-model", dimension: DIM })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(modelIds()).toEqual(["test-model"]);
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
      const replacements = randomRecords(100, DIM, 40 + round).map((r, i) => ({
        ...r,
        organization: { ...r.organization, id: ids[(round * 100 + i * 7) % ids.length] as number },
      }));
      await store.upsert(replacements, MODEL);
      live = new Map([...live, ...replacements.map((r) => [r.organization.id, r] as const)]);
    }
    const query = unitVector(DIM, rng(32));
    const want = expected([...live.values()], query, "customer", {}).map((h) => h.id);
    const check = async (store = backend.organizations) => {
      expect(await store.count()).toBe(live.size);
      expect((await store.search({ vector: query, kind: "customer", filter: {}, offset: 0, size: 1001 })).map((h) => h.organization.id)).toEqual(
        want.slice(0, 1001),
      );
      expect((await store.search({ vector: query, kind: "customer", filter: {}, offset: 500, size: 101 })).map((h) => h.organization.id)).toEqual(
        want.slice(500, 601),
      );
      // Rows moved by deletes keep their stated-customers flag (here: exactly the records with a customer vector).
      const figures = await store.customerBaseFigures(query, [...live.keys()]);
      expect([...live.values()].filter((r) => figures.get(r.organization.id)?.customerStated !== !!r.customerVector)).toEqual([]);
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

    it("catches up with another connection's writes from the change log, words included, and reloads only when it fell too far behind", async () => {
      const records = randomRecords(60, DIM, 7);
      await backend.organizations.upsert(records.slice(0, 30), MODEL);
      const other = open();
      const reloads = vi.spyOn(backend.organizations as unknown as { load(): void }, "load");
      const named = { ...(records[30] as OrganizationRecord) };
      named.organization = { ...named.organization, description: "zymurgy robots for breweries", customer_description: "Breweries" };
      await other.organizations.upsert([named, ...records.slice(31)], MODEL);
      await other.organizations.delete(3);
      const query = unitVector(DIM, rng(8));
      const hits = await backend.organizations.search({ vector: query, kind: "customer", filter: {}, offset: 0, size: 100 });
      const live = [...records.slice(0, 2), ...records.slice(3, 30), named, ...records.slice(31)];
      expect(hits.map((h) => h.organization.id)).toEqual(expected(live, query, "customer", {}).map((h) => h.id));
      expect(await backend.organizations.searchText({ text: "zymurgy", kind: "profile", filter: {}, size: 5 })).toEqual([named.organization.id]);
      expect((await backend.organizations.customerBaseFigures(query, [named.organization.id])).get(named.organization.id)?.customerStated).toBe(true);
      expect(reloads).not.toHaveBeenCalled();

      // Further behind than the log keeps: everything is read again, and still right.
      for (let i = 0; i < KEPT_GENERATIONS + 100; i++) await other.organizations.upsert([records[10 + (i % 10)] as OrganizationRecord], MODEL);
      await other.organizations.delete(4);
      const again = await backend.organizations.search({ vector: query, kind: "profile", filter: {}, offset: 0, size: 100 });
      expect(again.map((h) => h.organization.id)).toEqual(
        expected(
          live.filter((r) => r.organization.id !== 4),
          query,
          "profile",
          {},
        ).map((h) => h.id),
      );
      expect(reloads).toHaveBeenCalledTimes(1);
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
});
