/**
 * Imports a file of organizations through a mapping: streams the records, maps
 * and validates each on its own, and writes the good ones in batches through
 * the injected `upsert` (OrganizationService.upsertMany in the product).
 */
import { basename } from "node:path";
import { MAX_BULK_ORGANIZATIONS, type OrganizationWithId, OrgsimError, type ValidationIssue } from "@orgsim/core";
import { isParsedMapping, type Mapping, parseMapping } from "./mapping";
import { mapRecord } from "./map-record";
import { type ByteCounter, positionUnit, readRecords } from "./sources";

export type Upsert = (rows: OrganizationWithId[]) => Promise<unknown>;

export interface ImportIssue {
  /** Line number (NDJSON, CSV: 1-based, the header is line 1) or array index (JSON: 0-based). */
  line: number;
  message: string;
}

export interface ImportProgress {
  read: number;
  imported: number;
  failed: number;
  bytesRead: number;
  totalBytes: number;
}

export interface ImportReport {
  file: string;
  format: Mapping["format"];
  /** What `line` in failures and warnings counts. */
  unit: "line" | "index";
  /** Records read from the file (blank lines not counted). */
  read: number;
  /** Organizations written (distinct ids). */
  imported: number;
  /** Rows that could not be imported, in file order (the first `maxIssues`). */
  failed: ImportIssue[];
  failedCount: number;
  /** Rows imported with a remark: a repeated id, a field left empty under on_invalid "null" (the first `maxIssues`). */
  warnings: ImportIssue[];
  warningCount: number;
  /** Valid rows superseded by a later row with the same id (the later row wins). */
  duplicates: number;
  durationMs: number;
}

export interface ImportOptions {
  file: string;
  /** A mapping as parsed by parseMapping/loadMapping, or the raw JSON object of a mapping file. */
  mapping: Mapping | unknown;
  upsert: Upsert;
  /** Rows per upsert call, 1…1000 (default 64). */
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
  /** How many failures and warnings the report keeps (counts stay exact); default 10,000. */
  maxIssues?: number;
}

/** The import stopped because a write failed for a reason other than the data (e.g. the backend is down). */
export class ImportAbortedError extends Error {
  override readonly name = "ImportAbortedError";
  constructor(
    message: string,
    readonly report: ImportReport,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

interface Pending {
  row: OrganizationWithId;
  line: number;
}

export async function importFile(options: ImportOptions): Promise<ImportReport> {
  const started = performance.now();
  const mapping = isParsedMapping(options.mapping) ? options.mapping : parseMapping(options.mapping);
  const batchSize = options.batchSize ?? 64;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BULK_ORGANIZATIONS) {
    throw new RangeError(`batchSize must be an integer from 1 to ${MAX_BULK_ORGANIZATIONS}; got ${batchSize}`);
  }
  const maxIssues = options.maxIssues ?? 10_000;
  const unit = positionUnit(mapping);
  const where = (line: number) => `${unit} ${line}`;

  const report: ImportReport = {
    file: options.file,
    format: mapping.format,
    unit,
    read: 0,
    imported: 0,
    failed: [],
    failedCount: 0,
    warnings: [],
    warningCount: 0,
    duplicates: 0,
    durationMs: 0,
  };
  const fail = (line: number, message: string) => {
    report.failedCount++;
    if (report.failed.length < maxIssues) report.failed.push({ line, message });
  };
  const warn = (line: number, message: string) => {
    report.warningCount++;
    if (report.warnings.length < maxIssues) report.warnings.push({ line, message });
  };

  const counter: ByteCounter = { bytesRead: 0, totalBytes: 0 };
  const written = new Set<number>();
  /** Every valid row's id: where it was last seen and, for hashed ids, its key. */
  const seen = new Map<number, { line: number; key: string | null }>();
  let pending = new Map<number, Pending>();

  const progress = () =>
    options.onProgress?.({
      read: report.read,
      imported: written.size,
      failed: report.failedCount,
      bytesRead: counter.bytesRead,
      totalBytes: counter.totalBytes,
    });

  const write = async (entries: Pending[]): Promise<void> => {
    if (entries.length === 0) return;
    try {
      await options.upsert(entries.map((e) => e.row));
      for (const entry of entries) written.add(entry.row.id);
      return;
    } catch (error) {
      // the same checks ran per row before, so this is rare; keep the rest of the batch
      if (error instanceof OrgsimError && error.code === "VALIDATION_FAILED") {
        if (entries.length === 1) {
          fail((entries[0] as Pending).line, error.message);
          return;
        }
        const failing = new Set((error.details.failing_indexes as number[] | undefined) ?? []);
        if (failing.size === 0) {
          for (const entry of entries) await write([entry]);
          return;
        }
        const issues = (error.details.issues as ValidationIssue[] | undefined) ?? [];
        entries.forEach((entry, index) => {
          if (!failing.has(index)) return;
          const own = issues.filter((i) => i.path[0] === index).map((i) => `${i.path.slice(1).join(".")}: ${i.message}`);
          fail(entry.line, own.length > 0 ? own.join("; ") : error.message);
        });
        await write(entries.filter((_, index) => !failing.has(index)));
        return;
      }
      report.imported = written.size;
      report.durationMs = Math.round(performance.now() - started);
      const message = error instanceof Error ? error.message : String(error);
      throw new ImportAbortedError(
        `Import of ${basename(options.file)} stopped at ${where((entries[0] as Pending).line)}: ${message}. ${written.size} organizations were written before; importing again is safe (ids are stable, writes are upserts).`,
        report,
        error,
      );
    }
  };

  const flush = async () => {
    const entries = [...pending.values()];
    pending = new Map();
    await write(entries);
    progress();
  };

  for await (const item of readRecords(options.file, mapping, counter)) {
    report.read++;
    if ("error" in item) {
      fail(item.position, item.error);
    } else {
      const result = mapRecord(item.record, mapping);
      if (!result.ok) {
        fail(item.position, result.message);
      } else {
        const id = result.row.id;
        for (const message of result.warnings) warn(item.position, message);
        const before = seen.get(id);
        if (before && result.idKey !== null && before.key !== null && before.key !== result.idKey) {
          fail(
            item.position,
            `id ${id} derived from key ${JSON.stringify(result.idKey.split("\u001f"))} collides with the different key ${JSON.stringify(before.key.split("\u001f"))} on ${where(before.line)}; add a key field to "hash"`,
          );
        } else {
          if (before) {
            report.duplicates++;
            warn(item.position, `id ${id} repeats ${where(before.line)}; this later row wins`);
          }
          seen.set(id, { line: item.position, key: result.idKey });
          // within one batch the later row replaces the earlier (a batch never holds an id twice)
          pending.delete(id);
          pending.set(id, { row: result.row, line: item.position });
          if (pending.size >= batchSize) await flush();
        }
      }
    }
    if (report.read % 256 === 0) progress();
  }
  await flush();

  report.imported = written.size;
  report.durationMs = Math.round(performance.now() - started);
  return report;
}
