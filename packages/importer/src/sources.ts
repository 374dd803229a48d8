/**
 * Reading source records: NDJSON line by line, CSV with csv-parse streaming,
 * JSON parsed whole. Each record comes with its position (line number; for
 * JSON the array index) so problems can be reported where they are.
 */
import { isAscii } from "node:buffer";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { parse as parseCsv } from "csv-parse";
import type { Mapping } from "./mapping";

export type SourceItem = { position: number; record: unknown } | { position: number; error: string };

export interface ByteCounter {
  bytesRead: number;
  totalBytes: number;
}

/** Thrown for problems with the file as a whole (missing, not JSON, no record array). */
export class SourceError extends Error {
  override readonly name = "SourceError";
}

export const positionUnit = (mapping: Mapping): "line" | "index" => (mapping.format === "json" ? "index" : "line");

async function sizeOf(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new SourceError(`${file} is not a file`);
    return info.size;
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

/**
 * Lines of a file, pulled chunk by chunk: the next chunk is read only when the
 * consumer asks for more, so a slow consumer (embedding, writing) holds back
 * reading instead of letting lines pile up in memory. Lines are cut from the
 * bytes (a newline byte is never inside a UTF-8 character) and each decoded
 * alone: an ASCII line as Latin-1, a plain copy, and as a one-byte string, which
 * JSON.parse reads faster. Decoding whole chunks was a fifth of an import with
 * vectors given, and one non-ASCII character made all of a chunk's lines two-byte.
 */
async function* linesOf(file: string, counter: ByteCounter): AsyncGenerator<string> {
  let rest: Buffer | null = null;
  for await (const read of createReadStream(file, { highWaterMark: 256 * 1024 })) {
    counter.bytesRead += (read as Buffer).length;
    const chunk: Buffer = rest ? Buffer.concat([rest, read as Buffer]) : (read as Buffer);
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE_BYTE); end >= 0; end = chunk.indexOf(NEWLINE_BYTE, start)) {
      yield decodeLine(chunk.subarray(start, end));
      start = end + 1;
    }
    rest = start < chunk.length ? chunk.subarray(start) : null;
  }
  if (rest) yield decodeLine(rest);
}

const NEWLINE_BYTE = 0x0a;
const CARRIAGE_RETURN_BYTE = 0x0d;

/** A line's text without its CR (of a CRLF file); invalid UTF-8 becomes U+FFFD, as a stream decoder makes it. */
function decodeLine(bytes: Buffer): string {
  const line = bytes.at(-1) === CARRIAGE_RETURN_BYTE ? bytes.subarray(0, -1) : bytes;
  return line.toString(isAscii(line) ? "latin1" : "utf8");
}

async function* ndjson(file: string, counter: ByteCounter): AsyncGenerator<SourceItem> {
  let line = 0;
  for await (const raw of linesOf(file, counter)) {
    line++;
    const text = line === 1 ? raw.replace(/^\uFEFF/, "") : raw;
    if (text.trim() === "") continue;
    try {
      yield { position: line, record: JSON.parse(text) };
    } catch (error) {
      yield { position: line, error: `not valid JSON: ${(error as Error).message}` };
    }
  }
}

const NEWLINE = /\r\n|\n|\r/g;
const countNewlines = (text: string) => text.match(NEWLINE)?.length ?? 0;

async function* csv(file: string, mapping: Mapping, counter: ByteCounter): AsyncGenerator<SourceItem> {
  // Positions are counted from each record's raw text (in parse order): csv-parse's own
  // line count drifts on CRLF files with empty lines or quoted line breaks.
  let linesBefore = 1; // the header line
  const startOf = (raw: string | undefined) => {
    const text = raw ?? "";
    const start = linesBefore + 1 + countNewlines(/^[\r\n]*/.exec(text)?.[0] ?? "");
    linesBefore += Math.max(1, countNewlines(text));
    return start;
  };
  const skipped: SourceItem[] = [];
  const parser = createReadStream(file).pipe(
    parseCsv({
      columns: true,
      bom: true,
      raw: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      encoding: mapping.csv.encoding ?? "utf8",
      ...(mapping.csv.delimiter ? { delimiter: mapping.csv.delimiter } : {}),
      ...(mapping.csv.quote ? { quote: mapping.csv.quote } : {}),
      on_record: (output: unknown, context: { raw?: string; bytes?: number }) => {
        counter.bytesRead = context.bytes ?? counter.bytesRead;
        const record = (output as { record?: unknown }).record ?? output;
        return { position: startOf(context.raw), record };
      },
      on_skip: (error: { message: string } | undefined, raw: string | undefined) => {
        skipped.push({ position: startOf(raw), error: `not a valid CSV record: ${error?.message ?? "unreadable"}` });
        return undefined;
      },
    }),
  );
  // skips are seen at parse time, records when consumed: yield both in file order
  for await (const item of parser as AsyncIterable<{ position: number; record: unknown }>) {
    while (skipped.length > 0 && (skipped[0] as SourceItem).position < item.position) yield skipped.shift() as SourceItem;
    yield item;
  }
  while (skipped.length > 0) yield skipped.shift() as SourceItem;
  counter.bytesRead = counter.totalBytes;
}

async function* json(file: string, mapping: Mapping, counter: ByteCounter): AsyncGenerator<SourceItem> {
  let parsed: unknown;
  try {
    const text = await readFile(file, "utf8");
    counter.bytesRead = counter.totalBytes;
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new SourceError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  let records: unknown = parsed;
  if (mapping.records) {
    for (const key of mapping.records.split(".")) {
      records = records !== null && typeof records === "object" ? (records as Record<string, unknown>)[key] : undefined;
    }
    if (!Array.isArray(records)) throw new SourceError(`${file}: "${mapping.records}" is not an array of records (see "records" in the mapping)`);
  } else if (!Array.isArray(records)) {
    const arrays = arrayPaths(parsed, "", 3);
    throw new SourceError(
      `${file} is not a JSON array${arrays.length > 0 ? `; set "records" in the mapping to the field that holds the records (${arrays.map((a) => `"${a}"`).join(", ")})` : ""}`,
    );
  }
  for (const [index, record] of (records as unknown[]).entries()) yield { position: index, record };
}

/** Dot paths of the arrays inside a JSON value, a few levels deep. */
function arrayPaths(value: unknown, prefix: string, depth: number): string[] {
  if (depth === 0 || value === null || typeof value !== "object" || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return Array.isArray(v) ? [path] : arrayPaths(v, path, depth - 1);
  });
}

/** The records of a file in the mapping's format, with their positions. */
export async function* readRecords(file: string, mapping: Mapping, counter: ByteCounter = { bytesRead: 0, totalBytes: 0 }): AsyncGenerator<SourceItem> {
  counter.totalBytes = await sizeOf(file);
  if (mapping.format === "ndjson") yield* ndjson(file, counter);
  else if (mapping.format === "csv") yield* csv(file, mapping, counter);
  else yield* json(file, mapping, counter);
}
