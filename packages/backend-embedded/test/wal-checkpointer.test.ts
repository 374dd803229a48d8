import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openDatabase } from "../src/database";
import { WalCheckpointer, WRITES_PER_CHECKPOINT } from "../src/wal-checkpointer";
import { tempDir } from "./temp-dir";

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

it("checkpoints bulk writes on its own thread a group at a time, the WAL starting over at each group (at most a group long); every write stays", async () => {
  const file = `${dir.path}/wal.sqlite`;
  const db = openDatabase(file);
  // A new file's schema, made by the migrations, leaves a WAL of its own: emptied first, so the WAL measured is the writes'.
  db.pragma("wal_checkpoint(TRUNCATE)");
  const errors: unknown[] = [];
  const checkpointer = new WalCheckpointer(db, (error) => errors.push(error));
  db.exec("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");
  const insert = db.prepare("INSERT INTO blobs (id, body) VALUES (?, ?)");
  let largest = 0;
  for (let write = 0; write < 40; write++) {
    // About 110 KiB a write: without checkpoints the WAL would reach 4 MiB.
    // As an import writes: one bulk write after another, never yielding to the event loop in between.
    await checkpointer.bulk((autocheckpoint) => {
      // The writing connection leaves the checkpoint to the thread (write-steps.ts sets this as given).
      expect(autocheckpoint).toBe(0);
      db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
      db.transaction(() => {
        for (let i = 0; i < 25; i++) insert.run(write * 25 + i, Buffer.alloc(4000, write));
      })();
    });
    largest = Math.max(largest, statSync(`${file}-wal`).size);
  }
  expect(largest).toBeLessThan((WRITES_PER_CHECKPOINT + 1) * 120 * 1024);
  await checkpointer.close();
  expect(errors).toEqual([]);
  db.close();
  const again = openDatabase(file);
  expect(again.prepare("SELECT count(*) FROM blobs").pluck().get()).toBe(1000);
  again.close();
});

it("asks for the checkpoint of a group cut short once no bulk write is left in flight: the database file then holds the writes", async () => {
  const file = `${dir.path}/short.sqlite`;
  // A file without the store's schema, whose migrations leave free pages that the writes would take.
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");
  db.pragma("wal_checkpoint(TRUNCATE)");
  const checkpointer = new WalCheckpointer(db);
  const insert = db.prepare("INSERT INTO blobs (id, body) VALUES (?, ?)");
  const before = statSync(file).size;
  // Two writes in flight, fewer than a group: the last to end asks.
  expect(WRITES_PER_CHECKPOINT).toBeGreaterThan(2);
  await Promise.all(
    [0, 1].map((write) =>
      checkpointer.bulk((autocheckpoint) => {
        db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
        db.transaction(() => {
          for (let i = 0; i < 25; i++) insert.run(write * 25 + i, Buffer.alloc(4000, write));
        })();
      }),
    ),
  );
  // Only a checkpoint grows the database file: 50 rows of 4,000 bytes.
  for (const until = Date.now() + 10_000; statSync(file).size - before < 200_000 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
  expect(statSync(file).size - before).toBeGreaterThanOrEqual(200_000);
  await checkpointer.close();
  db.close();
});
