import { statSync } from "node:fs";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openDatabase } from "../src/database";
import { WalCheckpointer } from "../src/wal-checkpointer";
import { tempDir } from "./temp-dir";

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.remove());

it("checkpoints bulk writes on its own thread, the WAL starting over at each (about one write long); every write stays", async () => {
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
  expect(largest).toBeLessThan(400 * 1024);
  await checkpointer.close();
  expect(errors).toEqual([]);
  db.close();
  const again = openDatabase(file);
  expect(again.prepare("SELECT count(*) FROM blobs").pluck().get()).toBe(1000);
  again.close();
});
