/**
 * A growable row-major matrix of float32 vectors held in WebAssembly memory, and the dot products
 * of a query with any of its rows, computed there by a SIMD kernel (score-rows.wat), one call a
 * batch of rows.
 *
 * Why in WebAssembly: an exact scan of a restrictive filter's rows (at 1M, 26,000 scattered rows of
 * 384 floats) is bound by memory and by the cost of each call. In one scratch measurement on such
 * rows, simsimd called once a row took 16-18 ms, a kernel scoring one row at a time 11-14 ms and
 * this one (four rows at a time) 7 ms; on rows already in cache, simsimd took 6-7 ms against 2.
 *
 * Rows are split into segments, each a WebAssembly.Memory of at most 2 GiB (a wasm32 memory
 * addresses 4 GiB at most; the kernel computes offsets in i32). Growing a memory keeps its data in
 * place (no copy), but detaches every view of its old buffer: a `view` is valid until the next
 * `reserve`.
 */
/// <reference path="./webassembly.d.ts" />
import { SCORE_ROWS_WASM } from "./score-rows.wasm";

const PAGE_BYTES = 65_536;
/** Rows scored a kernel call: the room for row numbers and scores at the start of each memory. */
export const BATCH_ROWS = 4_096;
const MAX_SEGMENT_BYTES = 2 ** 31;

type ScoreRows = (query: number, matrix: number, dimension: number, rows: number, count: number, out: number) => void;

let compiled: WebAssembly.Module | null = null;
const kernelModule = () => {
  compiled ??= new WebAssembly.Module(Buffer.from(SCORE_ROWS_WASM, "base64"));
  return compiled;
};

const align64 = (bytes: number) => Math.ceil(bytes / 64) * 64;

/** One memory: the query, a batch's row numbers and scores, then the segment's rows. */
class Segment {
  private readonly memory: WebAssembly.Memory;
  private readonly kernel: ScoreRows;
  private readonly rowNumbersAt: number;
  private readonly scoresAt: number;
  /** Byte offset of row 0. */
  private readonly matrixAt: number;
  /** Views of the memory, made again whenever it grows. */
  floats!: Float32Array<ArrayBuffer>;
  rowNumbers!: Int32Array<ArrayBuffer>;
  scores!: Float32Array<ArrayBuffer>;
  /** Rows the memory has room for. */
  rows = 0;

  constructor(
    private readonly dimension: number,
    private readonly maxRows: number,
  ) {
    this.rowNumbersAt = align64(4 * dimension);
    this.scoresAt = this.rowNumbersAt + 4 * BATCH_ROWS;
    this.matrixAt = align64(this.scoresAt + 4 * BATCH_ROWS);
    const maximum = Math.ceil((this.matrixAt + 4 * dimension * maxRows) / PAGE_BYTES);
    this.memory = new WebAssembly.Memory({ initial: Math.ceil(this.matrixAt / PAGE_BYTES), maximum });
    const instance = new WebAssembly.Instance(kernelModule(), { env: { memory: this.memory } });
    this.kernel = instance.exports.scoreRows as ScoreRows;
    this.makeViews();
  }

  /** Where row `row`'s floats start in `floats`. */
  floatOffset(row: number): number {
    return this.matrixAt / 4 + row * this.dimension;
  }

  /** Room for `rows` rows. */
  reserve(rows: number): void {
    if (rows <= this.rows) return;
    const pages = Math.ceil((this.matrixAt + 4 * this.dimension * rows) / PAGE_BYTES);
    this.memory.grow(pages - this.memory.buffer.byteLength / PAGE_BYTES);
    this.makeViews();
  }

  /** Scores `query` against the first `count` rows of `rowNumbers`, into `scores`. */
  score(query: Float32Array, count: number): void {
    this.floats.set(query, 0);
    // The kernel takes rows four at a time: the last few are padded with the first (BATCH_ROWS is a multiple of 4).
    const padded = Math.ceil(count / 4) * 4;
    this.rowNumbers.fill(this.rowNumbers[0] as number, count, padded);
    this.kernel(0, this.matrixAt, this.dimension, this.rowNumbersAt, padded, this.scoresAt);
  }

  private makeViews(): void {
    const buffer = this.memory.buffer;
    this.floats = new Float32Array(buffer);
    this.rowNumbers = new Int32Array(buffer, this.rowNumbersAt, BATCH_ROWS);
    this.scores = new Float32Array(buffer, this.scoresAt, BATCH_ROWS);
    // Whole pages may hold a few rows more than the segment's share: those stay unused.
    this.rows = Math.min(this.maxRows, Math.floor((buffer.byteLength - this.matrixAt) / (4 * this.dimension)));
  }
}

/** Rows per segment: the largest power of two whose rows fit in MAX_SEGMENT_BYTES (1,048,576 at 384-d). */
export function rowsPerSegmentOf(dimension: number): number {
  return 2 ** Math.floor(Math.log2((MAX_SEGMENT_BYTES - PAGE_BYTES) / (4 * dimension)));
}

export class VectorMatrix {
  private readonly segments: Segment[] = [];
  /** Which input position each row number of a segment's batch came from. */
  private readonly positions = new Int32Array(BATCH_ROWS);

  constructor(
    readonly dimension: number,
    readonly rowsPerSegment = rowsPerSegmentOf(dimension),
  ) {}

  /** Rows there is room for. */
  get rows(): number {
    const last = this.segments.at(-1);
    return last ? (this.segments.length - 1) * this.rowsPerSegment + last.rows : 0;
  }

  /** Room for at least `rows` rows (never shrinks); views taken before are invalid after. */
  reserve(rows: number): void {
    for (let first = 0; first < rows; first += this.rowsPerSegment) {
      const s = first / this.rowsPerSegment;
      const segment = this.segments[s] ?? new Segment(this.dimension, this.rowsPerSegment);
      this.segments[s] = segment;
      segment.reserve(Math.min(this.rowsPerSegment, rows - first));
    }
  }

  set(row: number, vector: Float32Array): void {
    const [segment, at] = this.locate(row);
    segment.floats.set(vector, at);
  }

  /** Row `row` (a view, valid until the next reserve). */
  view(row: number): Float32Array<ArrayBuffer> {
    const [segment, at] = this.locate(row);
    return segment.floats.subarray(at, at + this.dimension);
  }

  copyRow(from: number, to: number): void {
    this.set(to, this.view(from));
  }

  /** The first `rows` rows, as one view per segment (for saving). */
  chunks(rows: number): Float32Array<ArrayBuffer>[] {
    const out: Float32Array<ArrayBuffer>[] = [];
    for (let first = 0; first < rows; first += this.rowsPerSegment) {
      const segment = this.segments[first / this.rowsPerSegment] as Segment;
      const start = segment.floatOffset(0);
      out.push(segment.floats.subarray(start, start + Math.min(this.rowsPerSegment, rows - first) * this.dimension));
    }
    return out;
  }

  /** `out[i]` = dot(query, row `rows[i]`) for i < count (count at most BATCH_ROWS). */
  score(query: Float32Array, rows: Int32Array, count: number, out: Float32Array): void {
    if (query.length !== this.dimension) throw new Error(`query vector has ${query.length} dimensions; the matrix holds ${this.dimension}`);
    if (count > BATCH_ROWS) throw new RangeError(`at most ${BATCH_ROWS} rows are scored a call, not ${count}`);
    let scored = 0;
    this.segments.forEach((segment, s) => {
      const first = s * this.rowsPerSegment;
      let n = 0;
      for (let i = 0; i < count; i++) {
        const local = (rows[i] as number) - first;
        if (local < 0 || local >= segment.rows) continue;
        segment.rowNumbers[n] = local;
        this.positions[n++] = i;
      }
      if (n === 0) return;
      segment.score(query, n);
      for (let j = 0; j < n; j++) out[this.positions[j] as number] = segment.scores[j] as number;
      scored += n;
    });
    if (scored !== count) throw new RangeError(`a row to score is outside the matrix's ${this.rows} rows`);
  }

  private locate(row: number): [Segment, number] {
    const segment = this.segments[Math.floor(row / this.rowsPerSegment)];
    const local = row % this.rowsPerSegment;
    if (!segment || local >= segment.rows || row < 0) throw new RangeError(`row ${row} is outside the matrix's ${this.rows} rows`);
    return [segment, segment.floatOffset(local)];
  }
}
