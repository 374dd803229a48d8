/**
 * Imports a file of organizations through a mapping: streams the records, maps
 * and validates each on its own, and writes the good ones in batches through
 * the injected `upsert` (OrganizationService.upsertMany in the product).
 */
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { type GivenVectors, MAX_BULK_ORGANIZATIONS, type OrganizationWithId, OrgsimError, type ValidationIssue } from "@orgsim/core";
import { isParsedMapping, type Mapping, parseMapping, vectorsLeftToModel } from "./mapping";
import { type MappedItem, type MappedRow, mapRecords, mapRecordsOnThread, READER_THREAD_FROM_BYTES } from "./mapped-records";
import { sourceLabel } from "./map-record";
import { type ByteCounter, positionUnit } from "./sources";
import { WritesInFlight } from "./writes-in-flight";

/** Batches written at once (writes-in-flight.ts). */
export const WRITES_IN_FLIGHT = 3;

/** What comes with a batch: `givenVectors[i]` holds the vectors the mapping gave for `rows[i]` (absent when the mapping gives none). */
export interface UpsertOptions {
  givenVectors?: (GivenVectors | undefined)[];
}

/**
 * Writes a batch: `(rows, options) => organizationService.upsertMany(rows, options)`. Pass `options` on:
 * without it, rows of a mapping with `profile_vector` / `customer_vector` would be embedded by the model instead.
 */
export type Upsert = (rows: OrganizationWithId[], options?: UpsertOptions) => Promise<unknown>;

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
  /** Rows per upsert call, 1…1000 (default: defaultBatchSize of the mapping). */
  batchSize?: number;
  onProgress?: (progress: ImportProgress) => void;
  /** How many failures and warnings the report keeps (counts stay exact); default 10,000. */
  maxIssues?: number;
  /** Read and map the file on a thread of its own (mapped-records.ts); default: when it has READER_THREAD_FROM_BYTES or more. */
  readerThread?: boolean;
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
  vectors: GivenVectors | null;
}

/** A write that failed for a reason other than the data, at the batch that starts on `line`. */
class WriteFailure {
  constructor(
    readonly line: number,
    readonly cause: unknown,
  ) {}
}

/**
 * Rows a write takes unless told: 64 while the model may embed the rows' texts; the bulk limit
 * (1,000) when the mapping gives both vectors, as the model then embeds nothing but the rows whose
 * vector is empty. The store writes larger batches faster: 100,000 rows with their vectors in 21 to
 * 25 s, against 26 to 27 s at 64, with no reader thread yet (docs/benchmarks.md).
 */
function defaultBatchSize(mapping: Mapping): number {
  return vectorsLeftToModel(mapping).length === 0 ? MAX_BULK_ORGANIZATIONS : EMBEDDING_BATCH;
}

const EMBEDDING_BATCH = 64;

export async function importFile(options: ImportOptions): Promise<ImportReport> {
  const run = new FileImport(options);
  const onThread = options.readerThread ?? (await sizeOrZero(options.file)) >= READER_THREAD_FROM_BYTES;
  const items = (onThread ? mapRecordsOnThread : mapRecords)(options.file, run.mapping, run.counter);
  for await (const item of items) await run.take(item);
  return run.finish();
}

/** The file's size; 0 when it cannot be read, which the reading itself then reports. */
async function sizeOrZero(file: string): Promise<number> {
  return stat(file).then(
    (info) => info.size,
    () => 0,
  );
}

/** One import's state: the report so far, the rows waiting for their batch, and every id seen. */
class FileImport {
  readonly started = performance.now();
  readonly mapping: Mapping;
  readonly counter: ByteCounter = { bytesRead: 0, totalBytes: 0 };
  private readonly batchSize: number;
  private readonly maxIssues: number;
  private readonly unit: ImportReport["unit"];
  private readonly report: ImportReport;
  private readonly written = new Set<number>();
  /** Every valid row's id: where it was last seen and, for hashed ids, its key. */
  private readonly seen = new Map<number, { line: number; key: string | null }>();
  private pending = new Map<number, Pending>();
  private readonly writes = new WritesInFlight(WRITES_IN_FLIGHT);

  constructor(private readonly options: ImportOptions) {
    this.mapping = isParsedMapping(options.mapping) ? options.mapping : parseMapping(options.mapping);
    this.batchSize = options.batchSize ?? defaultBatchSize(this.mapping);
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1 || this.batchSize > MAX_BULK_ORGANIZATIONS) {
      throw new RangeError(`batchSize must be an integer from 1 to ${MAX_BULK_ORGANIZATIONS}; got ${this.batchSize}`);
    }
    this.maxIssues = options.maxIssues ?? 10_000;
    this.unit = positionUnit(this.mapping);
    this.report = {
      file: options.file,
      format: this.mapping.format,
      unit: this.unit,
      read: 0,
      imported: 0,
      failed: [],
      failedCount: 0,
      warnings: [],
      warningCount: 0,
      duplicates: 0,
      durationMs: 0,
    };
  }

  /** One record (or unreadable entry) from the file, mapped: checked against the ids seen, queued for its batch. */
  async take(item: MappedItem): Promise<void> {
    this.report.read++;
    if ("failure" in item) this.fail(item.position, item.failure);
    else await this.accept(item);
    if (this.report.read % 256 === 0) this.progress();
  }

  async finish(): Promise<ImportReport> {
    await this.flush();
    await this.writes.settled();
    await this.stopIfFailed();
    return this.settled();
  }

  private async accept(result: MappedRow): Promise<void> {
    const { position: line } = result;
    const id = result.row.id;
    for (const message of result.warnings) this.warn(line, message);
    const before = this.seen.get(id);
    if (before && result.idKey !== null && before.key !== null && before.key !== result.idKey) {
      this.fail(
        line,
        `id ${id} derived from key ${JSON.stringify(result.idKey.split("\u001f"))} collides with the different key ${JSON.stringify(before.key.split("\u001f"))} on ${this.where(before.line)}; add a key field to "hash"`,
      );
      return;
    }
    if (before) {
      this.report.duplicates++;
      this.warn(line, `id ${id} repeats ${this.where(before.line)}; this later row wins`);
    }
    this.seen.set(id, { line, key: result.idKey });
    // within one batch the later row replaces the earlier (a batch never holds an id twice)
    this.pending.delete(id);
    this.pending.set(id, { row: result.row, line, vectors: result.vectors });
    if (this.pending.size >= this.batchSize) await this.flush();
  }

  private async flush(): Promise<void> {
    const entries = [...this.pending.values()];
    this.pending = new Map();
    if (entries.length > 0) await this.writes.start(new Set(entries.map((e) => e.row.id)), () => this.write(entries));
    await this.stopIfFailed();
    this.progress();
  }

  /** Once a write failed (not for its data): the writes still in flight end, then the import stops with the report. */
  private async stopIfFailed(): Promise<void> {
    const failure = this.writes.failure?.error;
    if (failure === undefined) return;
    await this.writes.settled();
    const { line, cause } = failure instanceof WriteFailure ? failure : { line: null, cause: failure };
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new ImportAbortedError(
      `Import of ${basename(this.options.file)} stopped${line === null ? "" : ` at ${this.where(line)}`}: ${message}. ${this.written.size} organizations were written before; importing again is safe (ids are stable, writes are upserts).`,
      this.settled(),
      cause,
    );
  }

  private async write(entries: Pending[]): Promise<void> {
    if (entries.length === 0) return;
    try {
      await this.upsert(entries);
      for (const entry of entries) this.written.add(entry.row.id);
    } catch (error) {
      // the same checks ran per row before, so this is rare; keep the rest of the batch
      if (error instanceof OrgsimError && error.code === "VALIDATION_FAILED") return this.writeValid(entries, error);
      if (error instanceof WriteFailure) throw error;
      throw new WriteFailure((entries[0] as Pending).line, error);
    }
  }

  /** The entries' rows, with the vectors the mapping gave them when there are any. */
  private upsert(entries: Pending[]): Promise<unknown> {
    const rows = entries.map((e) => e.row);
    if (!entries.some((e) => e.vectors)) return this.options.upsert(rows);
    return this.options.upsert(rows, { givenVectors: entries.map((e) => e.vectors ?? undefined) });
  }

  /** A batch the writer refused as invalid: each failing row fails with its own issues, the others are written again. */
  private async writeValid(entries: Pending[], error: OrgsimError): Promise<void> {
    if (entries.length === 1) {
      this.fail((entries[0] as Pending).line, this.issuesOf(error, null));
      return;
    }
    const failing = new Set((error.details.failing_indexes as number[] | undefined) ?? []);
    if (failing.size === 0) {
      for (const entry of entries) await this.write([entry]);
      return;
    }
    entries.forEach((entry, index) => {
      if (failing.has(index)) this.fail(entry.line, this.issuesOf(error, index));
    });
    await this.write(entries.filter((_, index) => !failing.has(index)));
  }

  /**
   * The writer's issues with one row (the batch's `index`; null for a batch of one, whose paths have no index),
   * a given vector named with its source as the mapping says it; the error's message when it lists none.
   */
  private issuesOf(error: OrgsimError, index: number | null): string {
    const issues = (error.details.issues as ValidationIssue[] | undefined) ?? [];
    const own = index === null ? issues : issues.filter((i) => i.path[0] === index).map((i) => ({ ...i, path: i.path.slice(1) }));
    if (own.length === 0) return error.message;
    return own.map((i) => `${this.labelOf(i.path)}: ${i.message}`).join("; ");
  }

  private labelOf(path: readonly (string | number)[]): string {
    const rule = this.mapping.vectors.find((r) => path.length === 1 && r.key === path[0]);
    return rule ? `${rule.key}${sourceLabel(rule.from)}` : path.join(".") || "organization";
  }

  /** The report with the final count and duration. */
  private settled(): ImportReport {
    this.report.imported = this.written.size;
    this.report.durationMs = Math.round(performance.now() - this.started);
    return this.report;
  }

  private where(line: number): string {
    return `${this.unit} ${line}`;
  }

  private fail(line: number, message: string): void {
    this.report.failedCount++;
    if (this.report.failed.length < this.maxIssues) this.report.failed.push({ line, message });
  }

  private warn(line: number, message: string): void {
    this.report.warningCount++;
    if (this.report.warnings.length < this.maxIssues) this.report.warnings.push({ line, message });
  }

  private progress(): void {
    this.options.onProgress?.({
      read: this.report.read,
      imported: this.written.size,
      failed: this.report.failedCount,
      bytesRead: this.counter.bytesRead,
      totalBytes: this.counter.totalBytes,
    });
  }
}
