/**
 * Each row's list of codes: an organization's office places, or its categories. Restored from a
 * snapshot, the lists stay the saved flat arrays (each row's values from starts[row] on) until a
 * row is written: making one small array a row took 0.5 s of every start at 1M organizations,
 * and collecting them more.
 */
const NONE: readonly number[] = [];

export class CodeLists {
  /** Lists written since the restore (or all, in a store never saved); a hole reads the saved arrays. */
  private readonly written: (readonly number[])[];

  constructor(
    private readonly starts = new Uint32Array(1),
    private readonly values = new Uint32Array(0),
  ) {
    this.written = new Array(starts.length - 1);
  }

  /** Rows the saved arrays hold. */
  private get saved(): number {
    return this.starts.length - 1;
  }

  set(row: number, codes: readonly number[]): void {
    this.written[row] = codes.length > 0 ? codes : NONE;
  }

  get(row: number): readonly number[] {
    const written = this.written[row];
    if (written !== undefined) return written;
    if (row >= this.saved) return NONE;
    return Array.from(this.values.subarray(this.starts[row], this.starts[row + 1]));
  }

  /** Row `from`'s list is now row `to`'s. */
  move(from: number, to: number): void {
    this.written[to] = this.get(from);
  }

  /** Only rows below `n` remain (every row at or past it is set again before it is read). */
  truncate(n: number): void {
    if (this.written.length > n) this.written.length = n;
  }

  /** Whether row's list holds a code that `table` marks. */
  matchesAny(row: number, table: Uint8Array): boolean {
    const written = this.written[row];
    if (written !== undefined) {
      for (const code of written) if (table[code]) return true;
      return false;
    }
    if (row >= this.saved) return false;
    for (let i = this.starts[row] as number, end = this.starts[row + 1] as number; i < end; i++) if (table[this.values[i] as number]) return true;
    return false;
  }

  /** The first `n` rows' lists as flat arrays: each row's values from starts[row] to starts[row + 1]. */
  snapshot(n: number): [Uint32Array<ArrayBuffer>, Uint32Array<ArrayBuffer>] {
    const starts = new Uint32Array(n + 1);
    for (let r = 0; r < n; r++) starts[r + 1] = (starts[r] as number) + this.get(r).length;
    const values = new Uint32Array(starts[n] as number);
    for (let r = 0; r < n; r++) values.set(this.get(r), starts[r] as number);
    return [starts, values];
  }
}
