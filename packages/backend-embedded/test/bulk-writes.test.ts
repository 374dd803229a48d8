/**
 * Bulk writes (more than BULK_WRITE organizations a call): their words are indexed in one pass after the
 * write and their name lookups written in one statement, yet every search and lookup right after
 * the write sees them exactly as if each had been written alone.
 */
import { nameWords, type OrganizationRecord, type VectorKind } from "@orgsim/core";
import { expectedText, randomRecords } from "@orgsim/testing";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type EmbeddedBackend, openEmbeddedBackend } from "../src/index";
import { BULK_WRITE } from "../src/sqlite-organization-store";
import { tempDir } from "./temp-dir";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };
const QUERIES = ["software platform", "robots warehouse automation", "payments for small businesses", "clinics", "data"];

/** The same records written in calls of at most BULK_WRITE: words indexed at once. */
async function writtenAlone(store: EmbeddedBackend["organizations"], records: OrganizationRecord[]): Promise<void> {
  for (let i = 0; i < records.length; i += BULK_WRITE) await store.upsert(records.slice(i, i + BULK_WRITE), MODEL);
}

const withDescription = (record: OrganizationRecord, description: string): OrganizationRecord => ({
  ...record,
  organization: { ...record.organization, description },
});

describe("embedded: bulk writes", () => {
  let dir: ReturnType<typeof tempDir>;
  let other: ReturnType<typeof tempDir>;
  let backend: EmbeddedBackend;
  let alone: EmbeddedBackend;

  beforeEach(() => {
    dir = tempDir();
    other = tempDir();
    backend = openEmbeddedBackend({ dataDir: dir.path });
    alone = openEmbeddedBackend({ dataDir: other.path });
  });
  afterEach(async () => {
    await backend.close();
    await alone.close();
    dir.remove();
    other.remove();
  });

  const searchBoth = async (text: string, kind: VectorKind) => {
    const query = { text, kind, filter: {}, size: 50 };
    return [await backend.organizations.searchText(query), await alone.organizations.searchText(query)];
  };

  it("leaves the words to a pass after the write, which a search by words runs first: results as if written a few at a time", async () => {
    const records = randomRecords(400, DIM, 3);
    await backend.organizations.upsert(records, MODEL);
    await writtenAlone(alone.organizations, records);
    expect(backend.organizations.wordIndexPending()).toBe(400);
    expect(alone.organizations.wordIndexPending()).toBe(0);
    for (const kind of ["profile", "customer"] as const) {
      for (const text of QUERIES) {
        const [bulk, single] = await searchBoth(text, kind);
        expect(bulk).toEqual(single);
        expect(bulk).toEqual(
          expectedText(records, text, kind, {})
            .slice(0, 50)
            .map((h) => h.id),
        );
      }
    }
    expect(backend.organizations.wordIndexPending()).toBe(0);
    const terms = ["software", "robots", "zzz"];
    expect(await backend.organizations.termStatistics(terms, "profile")).toEqual(await alone.organizations.termStatistics(terms, "profile"));
  });

  it("replaces the words of organizations written again, and forgets those deleted before their words were indexed", async () => {
    const records = randomRecords(200, DIM, 4);
    await backend.organizations.upsert(records, MODEL);
    await backend.organizations.wordIndexSettled();
    const rewritten = records.slice(0, 100).map((r, i) => (i < 10 ? withDescription(r, "zymurgy breweries and their yeast") : r));
    await backend.organizations.upsert(rewritten, MODEL);
    await backend.organizations.delete(5);
    const live = [...records.slice(10), ...rewritten.slice(0, 10)].filter((r) => r.organization.id !== 5);
    await writtenAlone(alone.organizations, live);
    for (const text of ["zymurgy", ...QUERIES]) {
      const [bulk, single] = await searchBoth(text, "profile");
      expect(bulk).toEqual(single);
    }
    const [zymurgy] = await searchBoth("zymurgy", "profile");
    expect([...(zymurgy ?? [])].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 6, 7, 8, 9, 10]);
  });

  it("indexes the pending words in the background once writes pause", async () => {
    await backend.organizations.upsert(randomRecords(100, DIM, 5), MODEL);
    expect(backend.organizations.wordIndexPending()).toBe(100);
    await vi.waitFor(() => expect(backend.organizations.wordIndexPending()).toBe(0), { timeout: 10_000, interval: 50 });
  });

  it("saves the words at close: a store opened again from the snapshot answers as before", async () => {
    const records = randomRecords(300, DIM, 6);
    await backend.organizations.upsert(records, MODEL);
    await writtenAlone(alone.organizations, records);
    await backend.close();
    backend = openEmbeddedBackend({ dataDir: dir.path });
    for (const text of QUERIES) {
      const [bulk, single] = await searchBoth(text, "customer");
      expect(bulk).toEqual(single);
    }
  });

  it("stores the rows one statement a row stored (many a statement now), repeated organizations included; a failed write leaves none behind", async () => {
    const records = randomRecords(300, DIM, 11);
    const again = { ...(records[5] as OrganizationRecord), organization: { ...(records[7] as OrganizationRecord).organization, id: 6 } };
    await backend.organizations.upsert([...records, again], MODEL);
    await writtenAlone(alone.organizations, [...records, again]);
    const rows = (file: string) => {
      const db = new Database(file, { readonly: true });
      const read = (sql: string) => db.prepare<[], unknown[]>(sql).raw().all();
      const tables = {
        // Every column but the row, which follows the order of writes (one organization written twice moves).
        organizations: read(
          "SELECT id, hq_country, hq_subdivision, employee_count, employee_range, founded_year, last_round_stage, last_round_date, doc, name_key, domain_key FROM organizations ORDER BY id",
        ),
        vectors: read("SELECT o.id, v.kind, v.model_id, v.vector FROM organization_vectors v JOIN organizations o ON o.row = v.org_row ORDER BY o.id, v.kind"),
      };
      db.close();
      return tables;
    };
    const stored = rows(backend.file);
    expect(stored.organizations).toHaveLength(300);
    expect(stored.vectors.length).toBeGreaterThan(300);
    expect(stored).toEqual(rows(alone.file));
    // A write failing after it took rows it had not written yet (a record it cannot read, past the first statements' rows): none of them reach the next write.
    const failing = randomRecords(100, DIM, 12, 1_001);
    const broken = failing[90] as OrganizationRecord;
    failing[90] = { ...broken, organization: { ...broken.organization, fictional: 1n as never } };
    await expect(backend.organizations.upsert(failing, MODEL)).rejects.toThrow();
    await backend.organizations.upsert(randomRecords(20, DIM, 13, 2_001), MODEL);
    const after = rows(backend.file);
    expect(after.organizations).toHaveLength(300 + 20);
    expect(after.vectors.filter(([id]) => (id as number) > 1_000 && (id as number) <= 2_000)).toEqual([]);
  });

  it("keeps the name lookup in step: new, renamed, repeated in one write, and deleted organizations", async () => {
    const records = randomRecords(100, DIM, 7);
    const named = (r: OrganizationRecord, name: string): OrganizationRecord => ({ ...r, organization: { ...r.organization, name } });
    await backend.organizations.upsert(
      records.map((r, i) => (i === 0 ? named(r, "Zephyr Payments") : r)),
      MODEL,
    );
    const lookUp = (name: string) => backend.organizations.lookUp({ words: nameWords(name), size: 20 });
    expect((await lookUp("zephyr")).allWords).toEqual([1]);
    // Renamed in a second bulk write, and written twice in it: the later one counts.
    await backend.organizations.upsert(
      [named(records[0] as OrganizationRecord, "Boreal Robotics"), ...records.slice(1), named(records[1] as OrganizationRecord, "Boreal Ledger")],
      MODEL,
    );
    expect((await lookUp("zephyr")).allWords).toEqual([]);
    expect((await lookUp("boreal")).allWords).toEqual([1, 2]);
    expect((await lookUp("boreal ledger")).namePrefix).toEqual([2]);
    await backend.organizations.delete(2);
    expect((await lookUp("boreal")).allWords).toEqual([1]);
    // Migration 5 dropped the triggers that wrote the name index: the store writes it itself.
    const raw = new Database(backend.file);
    expect(raw.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").pluck().get()).toBe(0);
    expect(raw.prepare("SELECT count(*) FROM organization_names").pluck().get()).toBe(99);
    // The name index, which holds no copy of the names (migration 6), matches them: renamed, repeated and deleted ones too.
    raw.exec("INSERT INTO organization_names (organization_names, rank) VALUES ('integrity-check', 1)");
    raw.close();
  });
});
