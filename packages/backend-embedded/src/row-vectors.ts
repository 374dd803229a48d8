/**
 * The vectors of one kind of the memory index, by row, in a matrix (vector-matrix.ts) that scores a
 * query against many of them a call.
 * Dense (profile vectors: every organization has one): row r's vector is matrix row r.
 * Slotted (customer vectors: a minority have one): a row with a vector owns a slot of the matrix
 * and rows without one own nothing, so memory follows the vectors, not the rows (at 1M bench
 * organizations 39 % had one: 0.9 GiB less per server process than a dense matrix).
 */
import type { SnapshotArray, SnapshotReader } from "./snapshot-file";
import { BATCH_ROWS, VectorMatrix } from "./vector-matrix";

const NONE = -1;

export class RowVectors {
  /** Dense: row r's vector is matrix row r; slotted: its slot's. */
  readonly matrix: VectorMatrix;
  /** Slotted: each row's slot, NONE without a vector. */
  private slots: Int32Array<ArrayBuffer> | null;
  /** Slotted: slots in use or freed so far (the matrix's filled part), and the freed ones. */
  private used = 0;
  private free: number[] = [];
  /** A batch of rows being scored: rows, their matrix rows, their scores. */
  private readonly batchRows = new Int32Array(BATCH_ROWS);
  private readonly batchSlots = new Int32Array(BATCH_ROWS);
  private readonly batchScores = new Float32Array(BATCH_ROWS);

  constructor(
    readonly dimension: number,
    slotted: boolean,
    rowsPerChunk?: number,
  ) {
    this.slots = slotted ? new Int32Array(0) : null;
    this.matrix = new VectorMatrix(dimension, rowsPerChunk);
  }

  /** Row's matrix row; NONE when it has no vector. */
  private slotOf(row: number): number {
    return this.slots ? (this.slots[row] as number) : row;
  }

  /** Row's vector (a view, valid until the next write), or null. */
  vectorOf(row: number): Float32Array | null {
    const slot = this.slotOf(row);
    return slot === NONE ? null : this.matrix.view(slot);
  }

  has(row: number): boolean {
    return !this.slots || this.slots[row] !== NONE;
  }

  /** Rows among the first `rows` with a vector. */
  count(rows: number): number {
    if (!this.slots) return rows;
    let count = 0;
    for (let r = 0; r < rows; r++) if (this.slots[r] !== NONE) count++;
    return count;
  }

  /** Room for `rows` rows (doubling the matrix of a slotted kind as slots run out). */
  reserveRows(rows: number): void {
    if (!this.slots) {
      this.matrix.reserve(rows);
      return;
    }
    if (rows > this.slots.length) this.slots = resized(this.slots, rows, NONE);
  }

  set(row: number, vector: Float32Array | null): void {
    if (!this.slots) {
      if (!vector) throw new Error("every row of a dense kind has a vector");
      this.matrix.set(row, vector);
      return;
    }
    if (!vector) {
      this.release(row);
      return;
    }
    let slot = this.slots[row] as number;
    if (slot === NONE) {
      slot = this.free.pop() ?? this.used++;
      if (slot >= this.matrix.rows) this.matrix.reserve(Math.max(1024, 2 * slot));
      this.slots[row] = slot;
    }
    this.matrix.set(slot, vector);
  }

  /** Row `from` (the last) takes the place of row `to`, whose vector goes. */
  move(from: number, to: number): void {
    if (!this.slots) {
      this.matrix.copyRow(from, to);
      return;
    }
    this.release(to);
    this.slots[to] = this.slots[from] as number;
    this.slots[from] = NONE;
  }

  /**
   * Scores `query` against the vector of each candidate row (the first `count` of `candidates`, or
   * rows 0 to count - 1 when null) that has one, a batch at a time: `visit` gets the batch's rows,
   * their dot products, and how many there are (the arrays are reused by the next batch). A batch,
   * not a call a row: at 1M a restrictive filter's 26,000 rows cost 2.7 ms in per-row calls alone.
   */
  score(query: Float32Array, candidates: ArrayLike<number> | null, count: number, visit: (rows: Int32Array, scores: Float32Array, n: number) => void): void {
    const { batchRows, batchSlots, batchScores } = this;
    let n = 0;
    const flush = () => {
      this.matrix.score(query, batchSlots, n, batchScores);
      visit(batchRows, batchScores, n);
      n = 0;
    };
    for (let c = 0; c < count; c++) {
      const row = candidates ? (candidates[c] as number) : c;
      const slot = this.slotOf(row);
      if (slot === NONE) continue;
      batchRows[n] = row;
      batchSlots[n++] = slot;
      if (n === BATCH_ROWS) flush();
    }
    if (n > 0) flush();
  }

  /** The arrays to save: the matrix (one part a chunk) and, slotted, the slots. */
  snapshot(rows: number): Record<string, SnapshotArray | SnapshotArray[]> {
    if (!this.slots) return { matrix: this.matrix.chunks(rows) };
    return { matrix: this.matrix.chunks(this.used), slots: this.slots.subarray(0, rows) };
  }

  /** The vectors a snapshot holds, for `rows` rows; `reader` reads its arrays, named `${prefix}${name}`. */
  static restore(dimension: number, slotted: boolean, rows: number, reader: SnapshotReader, prefix = ""): RowVectors {
    const vectors = new RowVectors(dimension, slotted);
    const matrixRows = reader.lengthOf(`${prefix}matrix`) / dimension;
    // Mapped, not read: at 1M a read copied 2.1 GB into each process's own memory (4 to 5 s a GB on
    // these machines' fresh memory, see docs/benchmarks.md).
    vectors.matrix.adopt(reader.mapped(`${prefix}matrix`, vectors.matrix.rowsPerChunk * dimension));
    if (!slotted) return vectors;
    const slots = reader.array<Int32Array<ArrayBuffer>>(`${prefix}slots`);
    vectors.slots = slots;
    vectors.used = matrixRows;
    const owned = new Uint8Array(vectors.used);
    for (let r = 0; r < rows; r++) if (slots[r] !== NONE) owned[slots[r] as number] = 1;
    for (let slot = 0; slot < vectors.used; slot++) if (!owned[slot]) vectors.free.push(slot);
    return vectors;
  }

  private release(row: number): void {
    const slots = this.slots as Int32Array;
    const slot = slots[row] as number;
    if (slot === NONE) return;
    this.free.push(slot);
    slots[row] = NONE;
  }
}

function resized<T extends Int32Array<ArrayBuffer>>(old: T, length: number, fill = 0): T {
  const next = new (old.constructor as new (n: number) => T)(length);
  next.set(old.subarray(0, Math.min(old.length, length)));
  if (fill !== 0) next.fill(fill, old.length);
  return next;
}
