import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { PAGE_BYTES } from "../src/database";
import { MIGRATIONS, openDatabase, openEmbeddedBackend } from "../src/index";
import { organization } from "@orgsim/testing";
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
