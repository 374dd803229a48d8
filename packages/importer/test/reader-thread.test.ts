/** A file read and mapped on a reader thread (mapped-records.ts) imports exactly as one read on the import's own thread. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ImportAbortedError, type ImportOptions, type ImportProgress, type ImportReport, importFile, loadMapping, type UpsertOptions } from "../src/index";
import { csvMapping, exampleMapping, fixture, givenVectorsMapping, inMemoryService, jsonMapping, recordingUpsert } from "./helpers";

const ycMapping = await loadMapping(exampleMapping("yc.json"));

/** The report without its duration, which differs from run to run. */
const comparable = ({ durationMs: _, ...report }: ImportReport) => report;

/** The import of `file` on the thread asked for: its report and every batch written, in order. */
async function imported(readerThread: boolean, options: Omit<ImportOptions, "upsert" | "readerThread">) {
  const sink = recordingUpsert();
  const report = await importFile({ ...options, upsert: sink.upsert, readerThread });
  return { report: comparable(report), calls: sink.calls };
}

describe("a reader thread", () => {
  const cases: [string, Omit<ImportOptions, "upsert" | "readerThread">][] = [
    ["NDJSON with bad rows and a repeated id", { file: fixture("yc-sample.ndjson"), mapping: ycMapping }],
    ["CSV", { file: fixture("companies.csv"), mapping: csvMapping }],
    ["JSON", { file: fixture("companies.json"), mapping: jsonMapping }],
    ["batches of one", { file: fixture("yc-sample.ndjson"), mapping: ycMapping, batchSize: 1 }],
  ];
  for (const [name, options] of cases) {
    it(`gives the same report and the same writes as the import's own thread: ${name}`, async () => {
      const onThread = await imported(true, options);
      expect(onThread.report.read).toBeGreaterThan(0);
      expect(onThread).toEqual(await imported(false, options));
    });
  }

  it("passes given vectors on as the same numbers, and the service's refusals by line", async () => {
    const run = async (readerThread: boolean) => {
      const { service, store, embedded } = inMemoryService();
      const upsert = (rows: unknown[], options?: UpsertOptions) => service.upsertMany(rows, options);
      const report = await importFile({ file: fixture("given-vectors.ndjson"), mapping: givenVectorsMapping, upsert, batchSize: 1, readerThread });
      const vectors = await Promise.all([1, 2, 3, 4, 5, 6, 7].map(async (id) => [await store.getVector(id, "profile"), await store.getVector(id, "customer")]));
      return { report: comparable(report), vectors, embedded };
    };
    const onThread = await run(true);
    expect(onThread.report.failedCount).toBe(3);
    expect(onThread).toEqual(await run(false));
  });

  it("reads a file larger than it may send ahead, in order, while the writes hold it back", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "orgsim-reader-")), "rows.ndjson");
    const rows = Array.from({ length: 5000 }, (_, i) => ({ source_id: i + 1, name: `Org ${i + 1}`, one_liner: "Tools for ports", team_size: i % 50 }));
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n"));
    const sink = recordingUpsert();
    const slowUpsert = async (batch: Parameters<typeof sink.upsert>[0]) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await sink.upsert(batch);
    };
    const progress: ImportProgress[] = [];
    const report = await importFile({ file, mapping: ycMapping, upsert: slowUpsert, readerThread: true, onProgress: (p) => progress.push(p) });
    expect(report).toMatchObject({ read: 5000, imported: 5000, failedCount: 0 });
    expect(sink.calls.flat().map((row) => row.id)).toEqual(rows.map((r) => r.source_id));
    const last = progress.at(-1) as ImportProgress;
    expect(last.bytesRead).toBe(last.totalBytes);
    expect(last.totalBytes).toBeGreaterThan(0);
  });

  it("reports a file it cannot read as the import's own thread does", async () => {
    const missing = join(tmpdir(), "orgsim-no-such-file.ndjson");
    const { upsert } = recordingUpsert();
    const error = await importFile({ file: missing, mapping: ycMapping, upsert, readerThread: false }).catch((e: unknown) => e);
    await expect(importFile({ file: missing, mapping: ycMapping, upsert, readerThread: true })).rejects.toMatchObject({
      name: "SourceError",
      message: (error as Error).message,
    });
    const notAnArray = { ...jsonMapping, records: "data.nope" };
    await expect(importFile({ file: fixture("companies.json"), mapping: notAnArray, upsert, readerThread: true })).rejects.toThrow(
      /"data.nope" is not an array of records/,
    );
  });

  it("stops with the import when a write fails", async () => {
    let calls = 0;
    const failing = async () => {
      if (++calls === 2) throw new Error("backend down");
    };
    const run = (readerThread: boolean) =>
      importFile({ file: fixture("yc-sample.ndjson"), mapping: ycMapping, upsert: failing, batchSize: 1, readerThread }).catch((e: unknown) => e);
    const onThread = await run(true);
    calls = 0;
    const inline = await run(false);
    expect(onThread).toBeInstanceOf(ImportAbortedError);
    expect((onThread as ImportAbortedError).message).toBe((inline as ImportAbortedError).message);
    expect(comparable((onThread as ImportAbortedError).report)).toEqual(comparable((inline as ImportAbortedError).report));
  });
});
