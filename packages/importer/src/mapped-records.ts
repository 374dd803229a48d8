/**
 * A file's records, read and mapped: on the import's own thread, or on a reader thread of their
 * own (reader-thread.ts) for a large file. With vectors given, reading a row's JSON and mapping
 * it took about 160 of the import thread's 280 µs a row; on the reader thread, 100,000 such rows
 * were written in 18.0 s instead of 21.7 (medians; docs/benchmarks.md). Either way the import gets
 * the same items in the same order.
 */
import { on } from "node:events";
import { Worker } from "node:worker_threads";
import type { GivenVectors, OrganizationWithId } from "@orgsim/core";
import { mapRecord } from "./map-record";
import type { Mapping } from "./mapping";
import { type ByteCounter, readRecords, SourceError, type SourceItem } from "./sources";

/** A record that failed (unreadable, or its mapping failed), or its row as the import writes it. */
export type MappedItem = { position: number; failure: string } | MappedRow;

export interface MappedRow {
  position: number;
  row: OrganizationWithId;
  /** Fields left empty under on_invalid "null". */
  warnings: string[];
  /** For hashed ids: the key the id was derived from. */
  idKey: string | null;
  vectors: GivenVectors | null;
}

/** What the reader thread starts with. */
export interface ReaderThreadData {
  file: string;
  mapping: Mapping;
}

/** What the reader thread sends: a chunk of items, the end of the file, or what stopped it. */
export type ReaderMessage =
  | { items: MappedItem[]; bytesRead: number; totalBytes: number }
  | { done: true; bytesRead: number; totalBytes: number }
  | { error: { name: string; message: string } };

/** Items a reader thread's message carries. */
export const READER_CHUNK = 256;
/** Chunks the reader thread may send ahead of the import (each taken lets it send one more): memory stays bounded when writing is slower. */
export const READER_CHUNKS_AHEAD = 8;
/** Files from this size are read on a thread of their own: smaller ones import before a thread would have started. */
export const READER_THREAD_FROM_BYTES = 8 * 1024 * 1024;

/** The file's records, read and mapped on this thread. */
export async function* mapRecords(file: string, mapping: Mapping, counter: ByteCounter): AsyncGenerator<MappedItem> {
  for await (const item of readRecords(file, mapping, counter)) yield mapItem(item, mapping);
}

function mapItem(item: SourceItem, mapping: Mapping): MappedItem {
  if ("error" in item) return { position: item.position, failure: item.error };
  const result = mapRecord(item.record, mapping);
  if (!result.ok) return { position: item.position, failure: result.message };
  return { position: item.position, row: result.row, warnings: result.warnings, idKey: result.idKey, vectors: result.vectors };
}

/**
 * The file's records, read and mapped on a reader thread. The thread ends when the file does,
 * when the caller stops taking items, or on the first error, which is thrown here as it would be
 * by mapRecords (a SourceError for the file as a whole).
 */
export async function* mapRecordsOnThread(file: string, mapping: Mapping, counter: ByteCounter): AsyncGenerator<MappedItem> {
  const worker = startReaderThread({ file, mapping });
  try {
    for await (const [message] of on(worker, "message", { close: ["exit"] }) as AsyncIterable<[ReaderMessage]>) {
      if ("error" in message) throw message.error.name === "SourceError" ? new SourceError(message.error.message) : new Error(message.error.message);
      counter.bytesRead = message.bytesRead;
      counter.totalBytes = message.totalBytes;
      if ("done" in message) return;
      worker.postMessage("more");
      yield* message.items;
    }
    throw new Error(`The reader thread of ${file} stopped before the end of the file`);
  } finally {
    await worker.terminate();
  }
}

/**
 * Bundled (the server's dist/), the thread's own bundle beside this one (apps/server/build.mjs);
 * from the sources, its TypeScript module, which a worker loads through tsx (it has no loader of
 * its own: the import's thread may run under tsx or vitest).
 */
function startReaderThread(workerData: ReaderThreadData): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./reader-thread.mjs", import.meta.url), { workerData });
  const entry = JSON.stringify(new URL("./reader-thread.ts", import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve(TSX_API));
  return new Worker(`import(${tsx}).then((tsx) => tsx.tsImport(${entry}, ${entry}))`, { eval: true, workerData });
}

/** A variable, so that a bundler leaves it alone: only the sources need it. */
const TSX_API = "tsx/esm/api";
