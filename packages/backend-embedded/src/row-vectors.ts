/**
 * The vectors of one kind of the memory index, by row, in one contiguous Float32Array.
 * Dense (profile vectors: every organization has one): row r's vector is at r·d.
 * Slotted (customer vectors: a minority have one): a row with a vector owns a slot of the matrix
 * and rows without one own nothing, so memory follows the vectors, not the rows (at 1M bench
 * organizations 39 % had one: 0.9 GiB less per server process than a dense matrix).
 */
import type { SnapshotArray } from "./snapshot-file";

const NONE = -1;

export class RowVectors {
  matrix: Float32Array<ArrayBuffer> = new Float32Array(0);
  /** Slotted: each row's slot, NONE without a vector. */
  private slots: Int32Array<ArrayBuffer> | null;
  /** Slotted: slots in use or freed so far (the matrix's filled part), and the freed ones. */
  private used = 0;
  private free: number[] = [];

  constructor(
    readonly dimension: number,
    slotted: boolean,
  ) {
    this.slots = slotted ? new Int32Array(0) : null;
  }

  /** Where row's vector starts in `matrix`; -1 when it has none. */
  offsetOf(row: number): number {
    if (!this.slots) return row * this.dimension;
    const slot = this.slots[row] as number;
    return slot === NONE ? -1 : slot * this.dimension;
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
      this.matrix = resized(this.matrix, rows * this.dimension);
      return;
    }
    if (rows > this.slots.length) this.slots = resized(this.slots, rows, NONE);
  }

  set(row: number, vector: Float32Array | null): void {
    if (!this.slots) {
      if (!vector) throw new Error("every row of a dense kind has a vector");
      this.matrix.set(vector, row * this.dimension);
      return;
    }
    if (!vector) {
      this.release(row);
      return;
    }
    let slot = this.slots[row] as number;
    if (slot === NONE) {
      slot = this.free.pop() ?? this.used++;
      if ((slot + 1) * this.dimension > this.matrix.length) this.matrix = resized(this.matrix, Math.max(1024, 2 * slot) * this.dimension);
      this.slots[row] = slot;
    }
    this.matrix.set(vector, slot * this.dimension);
  }

  /** Row `from` (the last) takes the place of row `to`, whose vector goes. */
  move(from: number, to: number): void {
    if (!this.slots) {
      const d = this.dimension;
      this.matrix.copyWithin(to * d, from * d, (from + 1) * d);
      return;
    }
    this.release(to);
    this.slots[to] = this.slots[from] as number;
    this.slots[from] = NONE;
  }

  snapshot(rows: number): Record<string, SnapshotArray> {
    if (!this.slots) return { matrix: this.matrix.subarray(0, rows * this.dimension) };
    return { matrix: this.matrix.subarray(0, this.used * this.dimension), slots: this.slots.subarray(0, rows) };
  }

  /** The vectors a snapshot holds (`array` reads its arrays by name), for `rows` rows. */
  static restore(dimension: number, slotted: boolean, rows: number, array: (name: string) => SnapshotArray): RowVectors {
    const vectors = new RowVectors(dimension, slotted);
    vectors.matrix = array("matrix") as Float32Array<ArrayBuffer>;
    if (!slotted) return vectors;
    const slots = array("slots") as Int32Array<ArrayBuffer>;
    vectors.slots = slots;
    vectors.used = vectors.matrix.length / dimension;
    const owned = new Uint8Array(vectors.used);
    for (let r = 0; r < rows; r++) if (slots[r] !== NONE) owned[slots[r] as number] = 1;
    for (let slot = 0; slot < vectors.used; slot++) if (!owned[slot]) vectors.free.push(slot);
    return vectors;
  }

  /** Vectors saved densely (snapshot format 2: a matrix of every row, `has` marking rows with a vector). */
  static fromDense(dimension: number, slotted: boolean, rows: number, matrix: Float32Array<ArrayBuffer>, has: Uint8Array): RowVectors {
    const vectors = new RowVectors(dimension, slotted);
    if (!slotted) {
      vectors.matrix = matrix;
      return vectors;
    }
    vectors.reserveRows(rows);
    for (let row = 0; row < rows; row++) if (has[row]) vectors.set(row, matrix.subarray(row * dimension, (row + 1) * dimension));
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

function resized<T extends Float32Array<ArrayBuffer> | Int32Array<ArrayBuffer>>(old: T, length: number, fill = 0): T {
  const next = new (old.constructor as new (n: number) => T)(length);
  next.set(old.subarray(0, Math.min(old.length, length)));
  if (fill !== 0) next.fill(fill, old.length);
  return next;
}
