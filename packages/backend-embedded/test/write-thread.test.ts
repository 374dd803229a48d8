/**
 * Writes on the write thread (write-thread.ts): several in flight commit in the order asked, with
 * what a write on the store's own connection would store, and SQLite's errors keep their class.
 */
import { statSync } from "node:fs";
import type { OrganizationRecord } from "@orgsim/core";
import { randomRecords } from "@orgsim/testing";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openDatabase } from "../src/database";
import { type EmbeddedBackend, openEmbeddedBackend } from "../src/index";
import { WalCheckpointer, WRITES_PER_CHECKPOINT } from "../src/wal-checkpointer";
import { AUTOCHECKPOINT_PAGES } from "../src/write-steps";
import { WriteThread } from "../src/write-thread";
import { tempDir } from "./temp-dir";

const DIM = 8;
const MODEL = { modelId: "test-model", dimension: DIM };

let dir: ReturnType<typeof tempDir>;
let backend: EmbeddedBackend;
beforeEach(() => {
  dir = tempDir();
  backend = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { kind: "exact" } });
});
afterEach(async () => {
  await backend.close();
  dir.remove();
});

const renamed = (records: OrganizationRecord[], suffix: string) =>
  records.map((r) => ({ ...r, organization: { ...r.organization, name: `${r.organization.name} ${suffix}` } }));

/** A database of one table of blobs, its schema's WAL emptied, so the WAL measured is the writes'. */
function blobsDatabase(name: string) {
  const file = `${dir.path}/${name}.sqlite`;
  const db = openDatabase(file);
  db.exec("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");
  db.pragma("wal_checkpoint(TRUNCATE)");
  return { file, db };
}

/** Write number `write` as a bulk write's steps: 25 rows of 4,000 bytes (about 110 KiB in the WAL). */
const blobWrite = (write: number) => ({
  steps: Array.from({ length: 25 }, (_, i) => ({ sql: "INSERT INTO blobs (id, body) VALUES (?, ?)", params: [write * 25 + i, Buffer.alloc(4000, write)] })),
  transfer: [],
});

it("commits bulk writes in flight together in the order asked: an id in both keeps the later row, and the first write's model admits the second", async () => {
  const first = randomRecords(100, DIM, 1);
  const second = [...renamed(first.slice(50), "again"), ...randomRecords(100, DIM, 2, 1_000)];
  // Asked for together on a store with no model yet: the second's guard read no model, so it is made again.
  await Promise.all([backend.organizations.upsert(first, MODEL), backend.organizations.upsert(second, MODEL)]);
  expect(await backend.organizations.count()).toBe(200);
  expect((await backend.organizations.get(60))?.name).toBe(`${first[59]?.organization.name} again`);
  expect((await backend.organizations.get(10))?.name).toBe(first[9]?.organization.name);
  // A delete after them runs on the thread too, in turn.
  const [deleted, missing] = await Promise.all([backend.organizations.delete(1_050), backend.organizations.delete(5_000)]);
  expect([deleted, missing]).toEqual([true, false]);
  // What the memory index holds is what SQLite holds: a store opened on the file ranks alike.
  const query = { vector: first[3]?.profileVector as Float32Array, kind: "profile" as const, filter: {}, offset: 0, size: 20 };
  const ranked = await backend.organizations.rank(query);
  await backend.close();
  backend = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { kind: "exact" } });
  expect(await backend.organizations.rank(query)).toEqual(ranked);
  expect(await backend.organizations.getVector(1_001, "profile")).toEqual(second[51]?.profileVector);
  expect(await backend.organizations.get(1_050)).toBeNull();
});

it("refuses a write racing another connection's first write of another model with the model's conflict, and writes none of it", async () => {
  const other = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { kind: "exact" } });
  const otherModel = { modelId: "other-model", dimension: DIM };
  try {
    // Each store found no model; whichever commits second finds the other's in its guard.
    const results = await Promise.allSettled([
      backend.organizations.upsert(randomRecords(100, DIM, 4), MODEL),
      other.organizations.upsert(randomRecords(100, DIM, 5, 1_000), otherModel),
    ]);
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/^This store holds vectors of model/),
    });
    expect(await backend.organizations.count()).toBe(100);
  } finally {
    await other.close();
  }
});

it("closes after the writes in flight, their index updates included: reopened, the saved graphs hold them; a write after close is refused", async () => {
  const options = { vectorIndex: { exactBelow: 0 } };
  await backend.close();
  backend = openEmbeddedBackend({ dataDir: dir.path, ...options });
  const records = randomRecords(300, DIM, 3);
  await backend.organizations.upsert(records.slice(0, 100), MODEL);
  await backend.organizations.vectorIndexSettled();
  // Asked for, then closed at once: the write commits on the thread while close() waits.
  const write = backend.organizations.upsert(records.slice(100), MODEL);
  await backend.close();
  await write;
  await expect(backend.organizations.upsert(records.slice(0, 20), MODEL)).rejects.toMatchObject({ code: "BACKEND_UNAVAILABLE" });
  const progress: (string | undefined)[] = [];
  backend = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { ...options.vectorIndex, onProgress: (p) => progress.push(p.reason) } });
  expect(backend.organizations.vectorIndexStatus().current).toBe(true);
  expect(progress).toEqual([]);
  expect(await backend.organizations.count()).toBe(300);
});

it("answers a failed statement with SQLite's error, its class and code kept, and goes on with the next write", async () => {
  const file = `${dir.path}/thread.sqlite`;
  const db = openDatabase(file);
  const thread = new WriteThread(db);
  const checkpointer = new WalCheckpointer(db);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");
  const blob = new Uint8Array(new ArrayBuffer(16)).fill(7);
  const insert = (id: number, body: unknown) => ({ sql: "INSERT INTO t (id, body) VALUES (?, ?)", params: [id, body] });
  const write = thread.run({ steps: [insert(1, blob)], transfer: [blob.buffer] }, checkpointer);
  // Its blob's buffer moved to the thread: steps that view it cannot be sent.
  await expect(thread.run({ steps: [insert(3, blob)], transfer: [] }, checkpointer)).rejects.toThrow(/detached|clone/i);
  // A second write of the same id breaks the key: that write rolls back, whole.
  const failing = thread.run({ steps: [insert(2, Buffer.from([0])), insert(1, Buffer.from([1]))], transfer: [] }, checkpointer);
  expect(await write).toEqual([1]);
  const error = await failing.catch((e) => e);
  expect(error).toBeInstanceOf(Database.SqliteError);
  expect(error.code).toBe("SQLITE_CONSTRAINT_PRIMARYKEY");
  expect(await thread.run({ steps: [{ sql: "SELECT id, hex(body) AS body FROM t", params: [] }], transfer: [] }, null)).toEqual([
    [{ id: 1, body: "07".repeat(16) }],
  ]);
  await thread.close();
  await checkpointer.close();
  db.close();
});

it("writes on the store's connection and on the thread's with NORMAL sync and foreign keys; the thread's keeps statement journals in memory (WRITE_THREAD_PRAGMAS)", async () => {
  const db = openDatabase(`${dir.path}/pragmas.sqlite`);
  const thread = new WriteThread(db);
  const checkpointer = new WalCheckpointer(db);
  const settings = (bulk: boolean) =>
    thread.run(
      { steps: ["synchronous", "foreign_keys", "temp_store"].map((name) => ({ sql: `PRAGMA ${name}`, params: [] })), transfer: [] },
      bulk ? checkpointer : null,
    );
  // SQLite's numbers: synchronous NORMAL is 1, foreign keys on 1; temp_store DEFAULT 0 (a file here), MEMORY 2.
  expect(await settings(false)).toEqual([[{ synchronous: 1 }], [{ foreign_keys: 1 }], [{ temp_store: 0 }]]);
  expect(await settings(true)).toEqual([[{ synchronous: 1 }], [{ foreign_keys: 1 }], [{ temp_store: 2 }]]);
  await thread.close();
  await checkpointer.close();
  db.close();
});

it("makes bulk writes in flight while the calling thread never yields: the first of each group waits on the thread for the checkpoint the group before asked for, so the WAL stays at most a group long", async () => {
  const { file, db } = blobsDatabase("busy");
  const errors: unknown[] = [];
  const thread = new WriteThread(db, (error) => errors.push(error));
  const checkpointer = new WalCheckpointer(db, (error) => errors.push(error));
  // 40 writes of about 110 KiB: without checkpoints the WAL would reach 4 MiB.
  const writes = Array.from({ length: 40 }, (_, write) => thread.run(blobWrite(write), checkpointer));
  // As an import's thread validating the next batch: busy, never turning the event loop, while the
  // writes and their checkpoints go on. Only the files are looked at: a reader could keep the WAL
  // from starting over. Only checkpoints grow the database file, to about 4 MB for 1,000 rows.
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let largest = 0;
  for (const until = Date.now() + 20_000; statSync(file).size < 4_000_000 && Date.now() < until; ) {
    Atomics.wait(pause, 0, 0, 5);
    largest = Math.max(largest, statSync(`${file}-wal`).size);
  }
  expect(statSync(file).size).toBeGreaterThanOrEqual(4_000_000);
  expect(largest).toBeLessThan((WRITES_PER_CHECKPOINT + 1) * 120 * 1024);
  expect(await Promise.all(writes)).toEqual(Array.from({ length: 40 }, () => Array(25).fill(1)));
  await thread.close();
  await checkpointer.close();
  expect(db.prepare("SELECT count(*) FROM blobs").pluck().get()).toBe(1000);
  expect(errors).toEqual([]);
  db.close();
});

it("commits bulk writes with SQLite's own checkpoints once the checkpoint thread is gone (failed or closed): every write stays, the WAL bounded", async () => {
  const { file, db } = blobsDatabase("no-checkpointer");
  const errors: unknown[] = [];
  const thread = new WriteThread(db, (error) => errors.push(error));
  const checkpointer = new WalCheckpointer(db, (error) => errors.push(error));
  await thread.run({ steps: [{ sql: "INSERT INTO blobs (id, body) VALUES (?, ?)", params: [-1, Buffer.alloc(1)] }], transfer: [] }, checkpointer);
  // Its worker stopped, as when it fails: a bulk write must not leave the checkpoint to it.
  await checkpointer.close();
  // 160 writes of about 110 KiB: with the checkpoint left to nobody the WAL would pass 17 MB, against
  // at most SQLite's autocheckpoint (AUTOCHECKPOINT_PAGES) and a write.
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  let largest = 0;
  for (let write = 0; write < 160; write++) {
    await thread.run(blobWrite(write), checkpointer);
    largest = Math.max(largest, statSync(`${file}-wal`).size);
  }
  // A WAL frame is a page and its 24-byte header; the write that passes the autocheckpoint adds its own frames.
  expect(largest).toBeLessThan(AUTOCHECKPOINT_PAGES * (pageSize + 24) + 1024 * 1024);
  await thread.close();
  expect(db.prepare("SELECT count(*) FROM blobs").pluck().get()).toBe(4001);
  expect(errors).toEqual([]);
  db.close();
});
