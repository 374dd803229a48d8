import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { PAGE_BYTES } from "../src/database";
import { LOOKUP_SQL } from "../src/sqlite-organization-lookup";
import { MIGRATIONS, openDatabase, openEmbeddedBackend } from "../src/index";
import { nameWords, type OrganizationRecord } from "@orgsim/core";
import { expected, location, organization, randomRecords } from "@orgsim/testing";
import { tempDir } from "./temp-dir";

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

it("creates the data directory and a WAL database at the latest schema version", async () => {
  const dataDir = join(dir.path, "nested", "data");
  const backend = openEmbeddedBackend({ dataDir });
  expect(backend.file).toBe(join(dataDir, "orgsim.sqlite"));
  expect(existsSync(backend.file)).toBe(true);
  await backend.close();
  const db = new Database(backend.file);
  expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
  expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
  db.close();
});

it("makes a new file of 8 KiB pages, and keeps the page size of an existing one", () => {
  const fresh = join(dir.path, "fresh.sqlite");
  openDatabase(fresh).close();
  const older = join(dir.path, "older.sqlite");
  const raw = new Database(older);
  raw.pragma("page_size = 4096");
  raw.pragma("journal_mode = WAL");
  raw.exec("CREATE TABLE kept (value TEXT); INSERT INTO kept VALUES ('written with 4 KiB pages')");
  raw.close();
  for (const [file, pageSize] of [
    [fresh, PAGE_BYTES],
    [older, 4096],
  ] as const) {
    const db = openDatabase(file);
    expect(db.pragma("page_size", { simple: true })).toBe(pageSize);
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    db.close();
  }
  const db = openDatabase(older);
  expect(db.prepare("SELECT value FROM kept").pluck().get()).toBe("written with 4 KiB pages");
  db.close();
});

it("reopening an up-to-date file runs no migration again", () => {
  const file = join(dir.path, "a.sqlite");
  openDatabase(file).close();
  const db = openDatabase(file);
  expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
  db.close();
});

it("refuses a file written by a newer schema", () => {
  const file = join(dir.path, "b.sqlite");
  const raw = new Database(file);
  raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
  raw.close();
  expect(() => openDatabase(file)).toThrow(/newer than this orgsim/);
});

it("migration 4 gives the organizations stored before it their lookup keys", async () => {
  const file = join(dir.path, "orgsim.sqlite");
  const raw = new Database(file);
  for (const migration of MIGRATIONS.slice(0, 3)) raw.exec(migration as string);
  raw.pragma("user_version = 3");
  const insert = raw.prepare("INSERT INTO organizations (id, doc) VALUES (?, ?)");
  insert.run(1, JSON.stringify({ ...organization(1), name: "Über Payments GmbH", domain: "https://www.Uber-Payments.example/de" }));
  insert.run(2, JSON.stringify({ ...organization(2), name: "Payroll Co", domain: null }));
  raw.close();

  const backend = openEmbeddedBackend({ dataDir: dir.path });
  try {
    const store = backend.organizations;
    expect(await store.lookUp({ words: ["uber", "pay"], size: 10 })).toEqual({ namePrefix: [1], allWords: [], wordPrefixes: [1] });
    expect(await store.lookUp({ words: ["pay"], size: 10 })).toEqual({ namePrefix: [2], allWords: [], wordPrefixes: [1, 2] });
    expect(await store.lookUp({ words: [], domain: "uber-payments.example", size: 10 })).toEqual({ namePrefix: [], allWords: [], wordPrefixes: [1] });
  } finally {
    await backend.close();
  }
});

it("migration 6 keeps every organization, vector and lookup of a store written before it, and its rows then follow the order of writes", async () => {
  const records = randomRecords(120, 8, 21, 2 ** 40);
  const model = { modelId: "test-model", dimension: 8 };
  // The rows the store wrote before migration 6: a store of today's schema writes them, and they are copied into a file of version 5.
  const reference = openEmbeddedBackend({ dataDir: join(dir.path, "reference") });
  await reference.organizations.upsert(records, model);
  await reference.close();
  const file = join(dir.path, "orgsim.sqlite");
  const raw = new Database(file);
  for (const migration of MIGRATIONS.slice(0, 5)) typeof migration === "string" ? raw.exec(migration) : migration(raw);
  raw.pragma("user_version = 5");
  raw.exec(`ATTACH '${join(dir.path, "reference", "orgsim.sqlite")}' AS ref`);
  raw.exec(`
    INSERT INTO meta SELECT * FROM ref.meta;
    INSERT INTO organizations (id, hq_country, hq_subdivision, employee_count, employee_range, founded_year, last_round_stage, last_round_date, doc, name_key, domain_key)
      SELECT id, hq_country, hq_subdivision, employee_count, employee_range, founded_year, last_round_stage, last_round_date, doc, name_key, domain_key FROM ref.organizations ORDER BY id DESC;
    INSERT INTO organization_vectors (org_id, kind, model_id, vector) SELECT o.id, v.kind, v.model_id, v.vector FROM ref.organization_vectors v JOIN ref.organizations o ON o.row = v.org_row;
    INSERT INTO organization_locations (org_id, is_hq, country_code, subdivision_code) SELECT id, 1, hq_country, hq_subdivision FROM ref.organizations WHERE hq_country IS NOT NULL;
    INSERT INTO organization_categories (org_id, slug) SELECT id, 'software' FROM ref.organizations WHERE id % 2 = 0;
    INSERT INTO organization_names (rowid, name_key) SELECT id, name_key FROM ref.organizations;
  `);
  raw.close();

  const backend = openEmbeddedBackend({ dataDir: dir.path });
  try {
    const store = backend.organizations;
    const [first, second] = records as [OrganizationRecord, OrganizationRecord];
    expect(await store.get(first.organization.id)).toEqual(first.organization);
    expect(await store.getVector(first.organization.id, "profile")).toEqual(first.profileVector);
    expect(await store.getVector(second.organization.id, "customer")).toEqual(second.customerVector);
    // The memory index is read from the migrated rows (no snapshot beside them): filters as before.
    const category = records.find((r) => r.organization.categories.length > 0)?.organization.categories[0] as string;
    for (const filter of [location(["FR"], ["US-CA"], false), location(["DE"], [], true), { categories: [category] }, {}]) {
      const hits = await store.search({ vector: first.profileVector, kind: "profile", filter, offset: 0, size: 120 });
      expect(hits.map((h) => h.organization.id)).toEqual(expected(records, first.profileVector, "profile", filter).map((h) => h.id));
    }
    expect((await store.lookUp({ words: nameWords(first.organization.name), size: 5 })).namePrefix).toContain(first.organization.id);
    // Written again, an organization moves to the last row; deleted, its vectors go with it.
    await store.upsert([first], model);
    await store.delete(second.organization.id);
  } finally {
    await backend.close();
  }
  const db = new Database(file);
  // The name index matches the organizations' names (FTS5 checks its index against its content table).
  db.exec("INSERT INTO organization_names (organization_names, rank) VALUES ('integrity-check', 1)");
  const rows = db.prepare<[], [number, number]>("SELECT id, row FROM organizations ORDER BY row").raw().all();
  expect(rows).toHaveLength(119);
  expect(rows.at(-1)).toEqual([records[0]?.organization.id, 121]);
  expect(db.prepare("SELECT count(*) FROM organization_vectors v LEFT JOIN organizations o ON o.row = v.org_row WHERE o.id IS NULL").pluck().get()).toBe(0);
  expect(db.prepare("SELECT name FROM sqlite_schema WHERE name IN ('organization_locations', 'organization_categories')").all()).toEqual([]);
  db.close();
});

it("migration 7 leaves the organizations without a domain out of the domain index; lookups by domain find the same and read it, and no lookup tier scans the table", async () => {
  const file = join(dir.path, "orgsim.sqlite");
  const raw = new Database(file);
  for (const migration of MIGRATIONS.slice(0, 6)) typeof migration === "string" ? raw.exec(migration) : migration(raw);
  raw.pragma("user_version = 6");
  const insert = raw.prepare("INSERT INTO organizations (id, doc, name_key, domain_key) VALUES (?, ?, ?, ?)");
  insert.run(3, JSON.stringify(organization(3)), "acme tools", "acme.example");
  insert.run(1, JSON.stringify(organization(1)), "acme labs", "acme.example");
  insert.run(2, JSON.stringify(organization(2)), "acme", null);
  raw.exec("INSERT INTO organization_names (organization_names) VALUES ('rebuild')");
  raw.close();

  const backend = openEmbeddedBackend({ dataDir: dir.path });
  try {
    const store = backend.organizations;
    expect(await store.lookUp({ words: [], domain: "acme.example", size: 10 })).toEqual({ namePrefix: [], allWords: [], wordPrefixes: [1, 3] });
    expect(await store.lookUp({ words: ["acme"], domain: "acme.example", size: 10 })).toEqual({ namePrefix: [1, 3], allWords: [1, 3], wordPrefixes: [1, 3] });
    expect(await store.lookUp({ words: ["acme"], size: 10 })).toEqual({ namePrefix: [2, 1, 3], allWords: [1, 2, 3], wordPrefixes: [1, 2, 3] });
  } finally {
    await backend.close();
  }
  const db = openDatabase(file);
  // A partial index answers only queries whose WHERE implies its own: read whole, it is refused.
  expect(() => db.prepare("SELECT id FROM organizations INDEXED BY organizations_by_domain_key").all()).toThrow(/no query solution/);
  for (const [tier, sql] of Object.entries(LOOKUP_SQL)) {
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ from: "a", to: "b", match: '"acme"', domain: "acme.example", size: 10 }) as { detail: string }[];
    const steps = plan.map((step) => step.detail);
    expect(
      steps.filter((step) => /^SCAN organizations\b/.test(step)),
      `${tier}: ${steps.join("; ")}`,
    ).toEqual([]);
    if (/domain/i.test(tier)) expect(steps.join("; "), tier).toMatch(/USING (COVERING )?INDEX organizations_by_domain_key \(domain_key=\?\)/);
  }
  db.close();
});
