/**
 * A growable row-major matrix of float32 vectors, in chunks of a fixed number of rows, and the dot
 * products of a query with any of its rows, computed by the native kernel (@orgsim/native-kernel),
 * one call a chunk and batch.
 *
 * Chunks: a chunk starts at 1,024 rows (a small store's), then is made at its full size at once. Its
 * rows not yet written take no memory (fresh pages are the kernel's until first written), while
 * doubling up to a full chunk made 189 MiB of arrays and copied 95 MiB of rows at 384-d, a cost
 * seen in bulk writes. A full chunk never moves. A chunk may also be a view of the memory snapshot
 * mapped from its file (`adopt`): its rows are then the page cache's, one copy for every server
 * process, and a row written to it is copied for this process alone (copy on write).
 *
 * Why native: an exact scan of a restrictive filter's rows (at 1M, 26,000 scattered rows of 384
 * floats) is bound by memory and by the cost of each call, so the kernel takes a batch of rows a
 * call, four at a time; and a mapped file can be read by native code only.
 */
import { scoreRows } from "@orgsim/native-kernel";

/** Rows scored a call at most. */
export const BATCH_ROWS = 4_096;
/** Rows per chunk: 96 MiB at 384-d. */
export const ROWS_PER_CHUNK = 65_536;
/** A new chunk's rows while no more are wanted. */
const FIRST_ROWS = 1_024;

export class VectorMatrix {
  /** Each chunk's rows, one after another; a chunk's room is its length / dimension. */
  private chunkList: Float32Array<ArrayBuffer>[] = [];
  /** A batch being scored, sorted by chunk: rows within their chunk, and where each came from. */
  private readonly local = new Int32Array(BATCH_ROWS);
  private readonly positions = new Int32Array(BATCH_ROWS);
  private readonly scores = new Float32Array(BATCH_ROWS);

  constructor(
    readonly dimension: number,
    readonly rowsPerChunk = ROWS_PER_CHUNK,
  ) {}

  /** Rows there is room for. */
  get rows(): number {
    const last = this.chunkList.at(-1);
    return last ? (this.chunkList.length - 1) * this.rowsPerChunk + last.length / this.dimension : 0;
  }

  /** Room for at least `rows` rows (never shrinks); views taken before are invalid after. */
  reserve(rows: number): void {
    for (let c = 0; c * this.rowsPerChunk < rows; c++) {
      const wanted = Math.min(this.rowsPerChunk, rows - c * this.rowsPerChunk);
      const chunk = this.chunkList[c];
      const room = chunk ? chunk.length / this.dimension : 0;
      if (room >= wanted) continue;
      const grown = new Float32Array((!chunk && wanted <= FIRST_ROWS ? Math.min(FIRST_ROWS, this.rowsPerChunk) : this.rowsPerChunk) * this.dimension);
      if (chunk) grown.set(chunk);
      this.chunkList[c] = grown;
    }
  }

  /** Takes `parts` (e.g. a snapshot's matrix, mapped) as its rows: each part but the last holds exactly `rowsPerChunk` rows. */
  adopt(parts: Float32Array<ArrayBuffer>[]): void {
    const full = this.rowsPerChunk * this.dimension;
    parts.forEach((part, i) => {
      if (part.length % this.dimension !== 0 || part.length > full || (i < parts.length - 1 && part.length !== full)) {
        throw new RangeError(`part ${i} of ${parts.length} holds ${part.length} floats: not whole ${this.dimension}-d rows in chunks of ${this.rowsPerChunk}`);
      }
    });
    this.chunkList = parts.filter((part) => part.length > 0);
  }

  set(row: number, vector: Float32Array): void {
    const [chunk, at] = this.locate(row);
    chunk.set(vector, at);
  }

  /** Row `row` (a view, valid until the next reserve). */
  view(row: number): Float32Array<ArrayBuffer> {
    const [chunk, at] = this.locate(row);
    return chunk.subarray(at, at + this.dimension);
  }

  copyRow(from: number, to: number): void {
    this.set(to, this.view(from));
  }

  /** The first `rows` rows, as one view per chunk (for saving). */
  chunks(rows: number): Float32Array<ArrayBuffer>[] {
    const out: Float32Array<ArrayBuffer>[] = [];
    for (let first = 0, c = 0; first < rows; first += this.rowsPerChunk, c++) {
      out.push((this.chunkList[c] as Float32Array<ArrayBuffer>).subarray(0, Math.min(this.rowsPerChunk, rows - first) * this.dimension));
    }
    return out;
  }

  /** `out[i]` = dot(query, row `rows[i]`) for i < count (count at most BATCH_ROWS). */
  score(query: Float32Array, rows: Int32Array, count: number, out: Float32Array): void {
    if (query.length !== this.dimension) throw new Error(`query vector has ${query.length} dimensions; the matrix holds ${this.dimension}`);
    if (count > BATCH_ROWS) throw new RangeError(`at most ${BATCH_ROWS} rows are scored a call, not ${count}`);
    const chunks = this.chunkList.length;
    if (chunks === 1) {
      scoreRows(this.chunkList[0] as Float32Array, this.dimension, query, rows, count, out);
      return;
    }
    // Counting sort by chunk, then one kernel call a chunk.
    const starts = new Int32Array(chunks + 1);
    for (let i = 0; i < count; i++) {
      const chunk = Math.floor((rows[i] as number) / this.rowsPerChunk);
      if ((rows[i] as number) < 0 || chunk >= chunks) throw new RangeError(`row ${rows[i]} is outside the matrix's ${this.rows} rows`);
      (starts[chunk + 1] as number)++;
    }
    for (let c = 0; c < chunks; c++) (starts[c + 1] as number) += starts[c] as number;
    const next = starts.slice(0, chunks);
    for (let i = 0; i < count; i++) {
      const row = rows[i] as number;
      const chunk = Math.floor(row / this.rowsPerChunk);
      const at = (next[chunk] as number)++;
      this.local[at] = row - chunk * this.rowsPerChunk;
      this.positions[at] = i;
    }
    for (let c = 0; c < chunks; c++) {
      const from = starts[c] as number;
      const to = starts[c + 1] as number;
      if (from === to) continue;
      scoreRows(this.chunkList[c] as Float32Array, this.dimension, query, this.local.subarray(from, to), to - from, this.scores.subarray(from, to));
    }
    for (let at = 0; at < count; at++) out[this.positions[at] as number] = this.scores[at] as number;
  }

  private locate(row: number): [Float32Array<ArrayBuffer>, number] {
    const c = Math.floor(row / this.rowsPerChunk);
    const chunk = this.chunkList[c];
    const at = (row - c * this.rowsPerChunk) * this.dimension;
    if (!chunk || row < 0 || at >= chunk.length) throw new RangeError(`row ${row} is outside the matrix's ${this.rows} rows`);
    return [chunk, at];
  }
}
