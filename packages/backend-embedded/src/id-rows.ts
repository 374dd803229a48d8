/**
 * Each organization id's row in the MemoryIndex: a hash table over typed arrays (open addressing,
 * linear probing). It is built at every start from the saved ids: a Map of 1M numbers took 0.3 s
 * of each server process's start, and the collector walks its entries; this takes milliseconds.
 * Its arrays are shared memory (SharedArrayBuffer): the graph search thread reads them while this
 * thread writes (graph-search-thread.ts). A slot is written id first, row second, and a rehash
 * writes new arrays, so a reader sees each slot old or new; the rows it finds are checked again on
 * this thread (candidate-plan.ts).
 */

/** A slot never used (probing stops here) and a slot whose id was deleted (probing goes on). */
const EMPTY = -1;
const DELETED = -2;
/** Grown (or rebuilt without deleted slots) past this share of slots in use. */
const MAX_LOAD = 0.5;

export class IdRows {
  private ids: Float64Array;
  private rows: Int32Array;
  private bits: number;
  /** Ids held, and slots not EMPTY (held or DELETED). */
  private held = 0;
  private used = 0;

  constructor(expected = 0) {
    this.bits = Math.max(4, Math.ceil(Math.log2(expected / MAX_LOAD + 1)));
    this.ids = sharedFloat64s(1 << this.bits);
    this.rows = sharedInt32s(1 << this.bits).fill(EMPTY);
  }

  /** The table of ids[row] → row for the first `n` rows. */
  static of(ids: Float64Array, n: number): IdRows {
    const table = new IdRows(n);
    for (let row = 0; row < n; row++) table.set(ids[row] as number, row);
    return table;
  }

  get(id: number): number | undefined {
    const slot = this.find(id);
    return slot < 0 ? undefined : (this.rows[slot] as number);
  }

  /**
   * The table's arrays, for native code that finds ids as find() does (graph_view.cpp in
   * packages/native-kernel, with the same hash): current until the next set or delete.
   */
  get table(): { ids: Float64Array; rows: Int32Array } {
    return { ids: this.ids, rows: this.rows };
  }

  has(id: number): boolean {
    return this.find(id) >= 0;
  }

  set(id: number, row: number): void {
    const found = this.find(id);
    if (found >= 0) {
      this.rows[found] = row;
      return;
    }
    if (this.used + 1 > MAX_LOAD * this.rows.length) this.rehash(this.held + 1);
    let slot = this.home(id);
    while ((this.rows[slot] as number) >= 0) slot = (slot + 1) & (this.rows.length - 1);
    if (this.rows[slot] === EMPTY) this.used++;
    this.ids[slot] = id;
    this.rows[slot] = row;
    this.held++;
  }

  delete(id: number): boolean {
    const slot = this.find(id);
    if (slot < 0) return false;
    this.rows[slot] = DELETED;
    this.held--;
    return true;
  }

  /** The slot holding `id`, or -1. */
  private find(id: number): number {
    const mask = this.rows.length - 1;
    for (let slot = this.home(id); ; slot = (slot + 1) & mask) {
      const row = this.rows[slot] as number;
      if (row === EMPTY) return -1;
      if (row !== DELETED && this.ids[slot] === id) return slot;
    }
  }

  /** Where probing for `id` starts: a multiplicative hash of its low and high 32 bits (ids are integers up to 2^53). graph_view.cpp hashes alike. */
  private home(id: number): number {
    const mixed = Math.imul((id >>> 0) ^ Math.imul(Math.floor(id / 0x1_0000_0000) >>> 0, 0x85eb_ca6b), 0x9e37_79b1);
    return mixed >>> (32 - this.bits);
  }

  /** Rebuilds the table with room for `atLeast` ids, dropping DELETED slots. */
  private rehash(atLeast: number): void {
    const [ids, rows] = [this.ids, this.rows];
    this.bits = Math.max(this.bits, Math.ceil(Math.log2(atLeast / MAX_LOAD)) + 1);
    this.ids = sharedFloat64s(1 << this.bits);
    this.rows = sharedInt32s(1 << this.bits).fill(EMPTY);
    this.held = 0;
    this.used = 0;
    for (let slot = 0; slot < rows.length; slot++) if ((rows[slot] as number) >= 0) this.set(ids[slot] as number, rows[slot] as number);
  }
}

const sharedFloat64s = (length: number) => new Float64Array(new SharedArrayBuffer(length * Float64Array.BYTES_PER_ELEMENT));
const sharedInt32s = (length: number) => new Int32Array(new SharedArrayBuffer(length * Int32Array.BYTES_PER_ELEMENT));
