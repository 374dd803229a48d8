/** An import writes three batches at once (writes-in-flight.ts), never two that hold the same id. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OrgsimError } from "@orgsim/core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ImportAbortedError, importFile, WRITES_IN_FLIGHT } from "../src/index";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "orgsim-importer-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mapping = { format: "ndjson", id: "id", fields: { name: "name" } };
const file = (rows: [number, string][]) => {
  const path = join(dir, "rows.ndjson");
  writeFileSync(path, rows.map(([id, name]) => JSON.stringify({ id, name })).join("\n"));
  return path;
};

/** An upsert that takes a while, logging when each batch starts and ends, and what is stored. */
function slowUpsert(fail?: (ids: number[]) => boolean) {
  const log: string[] = [];
  const stored = new Map<number, string>();
  let running = 0;
  let most = 0;
  const upsert = async (rows: { id: number; name: string }[]) => {
    const ids = rows.map((r) => r.id).join(",");
    log.push(`start ${ids}`);
    most = Math.max(most, ++running);
    await new Promise((resolve) => setTimeout(resolve, 50));
    running--;
    log.push(`end ${ids}`);
    if (fail?.(rows.map((r) => r.id))) throw new OrgsimError("BACKEND_UNAVAILABLE", "store is down");
    for (const row of rows) stored.set(row.id, row.name);
  };
  return { upsert, log, stored, most: () => most };
}

it("writes the next batches while one is in flight, three at most, and a batch repeating an id in flight after that write", async () => {
  const sink = slowUpsert();
  const rows: [number, string][] = [
    [1, "A"],
    [2, "B"],
    [2, "B again"],
    [3, "C"],
    [4, "D"],
    [5, "E"],
    [6, "F"],
    [7, "G"],
  ];
  const report = await importFile({ file: file(rows), mapping, upsert: sink.upsert, batchSize: 2 });
  expect(report).toMatchObject({ read: 8, imported: 7, duplicates: 1 });
  expect(sink.stored.get(2)).toBe("B again");
  expect(WRITES_IN_FLIGHT).toBe(3);
  expect(sink.most()).toBe(3);
  // 2 again waits for the batch holding 2; the batches after it overlap.
  expect(sink.log.slice(0, 3)).toEqual(["start 1,2", "end 1,2", "start 2,3"]);
  expect(sink.log.indexOf("start 4,5")).toBeLessThan(sink.log.indexOf("end 2,3"));
});

it("stops at a failed write once the writes in flight have ended, counting what they wrote", async () => {
  const sink = slowUpsert((ids) => ids.includes(3));
  const rows: [number, string][] = [
    [1, "A"],
    [2, "B"],
    [3, "C"],
    [4, "D"],
    [5, "E"],
    [6, "F"],
    [7, "G"],
    [8, "H"],
  ];
  const error = await importFile({ file: file(rows), mapping, upsert: sink.upsert, batchSize: 2 }).catch((e) => e);
  expect(error).toBeInstanceOf(ImportAbortedError);
  // The batches after the failed one were already in flight and were written; none started after the failure was known.
  expect(sink.log).toEqual(["start 1,2", "start 3,4", "start 5,6", "end 1,2", "start 7,8", "end 3,4", "end 5,6", "end 7,8"]);
  expect(error.message).toMatch(/stopped at line 3: store is down\. 6 organizations were written before/);
  expect(error.report.imported).toBe(6);
});
