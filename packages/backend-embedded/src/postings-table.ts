/**
 * The posting lists of a word index (LexicalIndex), by term. Restored from a snapshot, a term's
 * postings are made, as views into the saved arrays, only when the term is first asked for: the
 * profile texts of 1M bench organizations hold 1M terms, and making all their lists took 0.8 s of
 * every start (a term to position map takes 0.2 s).
 */

/** Growable postings of one term: the slots holding it and the term's frequency there. */
export class Postings {
  slots = new Int32Array(4);
  freqs = new Uint16Array(4);
  length = 0;
  /** Live documents holding the term, as counted at the index's `removals`-th removal (a count is valid until the next). */
  liveCount = 0;
  countedAt = -1;
  /**
   * The largest frequency and the shortest document among the slots that ever held the term
   * (maxFreq -1: not known yet, after a restore): with them BM25 bounds what the term adds to a
   * document below its idf. Removals leave them as they are: still a bound, if a looser one.
   */
  maxFreq = 0;
  minLength = Number.POSITIVE_INFINITY;

  push(slot: number, freq: number, length: number): void {
    if (this.length === this.slots.length) {
      const slots = new Int32Array(Math.max(4, this.length * 2));
      slots.set(this.slots);
      this.slots = slots;
      const freqs = new Uint16Array(Math.max(4, this.length * 2));
      freqs.set(this.freqs);
      this.freqs = freqs;
    }
    this.slots[this.length] = slot;
    this.freqs[this.length++] = Math.min(freq, 0xffff);
    if (this.maxFreq >= 0) {
      this.maxFreq = Math.max(this.maxFreq, Math.min(freq, 0xffff));
      this.minLength = Math.min(this.minLength, length);
    }
  }

  /** One more occurrence of the term in the document pushed last. */
  repeat(): void {
    const last = this.length - 1;
    const freq = this.freqs[last] as number;
    if (freq === 0xffff) return;
    this.freqs[last] = freq + 1;
    if (this.maxFreq >= 0 && freq + 1 > this.maxFreq) this.maxFreq = freq + 1;
  }
}

/** How often the document in `slot` holds the term of `postings` (0: not at all); postings are sorted by slot. */
export function frequencyIn(postings: Postings, slot: number): number {
  const { slots, freqs } = postings;
  let low = 0;
  let high = postings.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = slots[mid] as number;
    if (at === slot) return freqs[mid] as number;
    if (at < slot) low = mid + 1;
    else high = mid - 1;
  }
  return 0;
}

/** The postings of every term as a snapshot saved them, concatenated term after term. */
interface SavedPostings {
  positionOf: Map<string, number>;
  starts: Uint32Array;
  slots: Int32Array<ArrayBuffer>;
  freqs: Uint16Array<ArrayBuffer>;
}

export class PostingsTable {
  private readonly made = new Map<string, Postings>();
  private saved: SavedPostings | null = null;

  static restore(terms: readonly string[], starts: Uint32Array, slots: Int32Array<ArrayBuffer>, freqs: Uint16Array<ArrayBuffer>): PostingsTable {
    const table = new PostingsTable();
    const positionOf = new Map<string, number>();
    terms.forEach((term, i) => {
      positionOf.set(term, i);
    });
    table.saved = { positionOf, starts, slots, freqs };
    return table;
  }

  get(term: string): Postings | undefined {
    const made = this.made.get(term);
    if (made || !this.saved) return made;
    const position = this.saved.positionOf.get(term);
    return position === undefined ? undefined : this.make(term, position);
  }

  getOrAdd(term: string): Postings {
    let p = this.get(term);
    if (!p) {
      p = new Postings();
      this.made.set(term, p);
    }
    return p;
  }

  delete(term: string): void {
    this.made.delete(term);
    this.saved?.positionOf.delete(term);
  }

  /** Every term with its postings (the saved ones made first). */
  entries(): IterableIterator<[string, Postings]> {
    if (this.saved) {
      for (const [term, position] of this.saved.positionOf) if (!this.made.has(term)) this.make(term, position);
      this.saved = null;
    }
    return this.made.entries();
  }

  private make(term: string, position: number): Postings {
    const { starts, slots, freqs } = this.saved as SavedPostings;
    const [from, to] = [starts[position] as number, starts[position + 1] as number];
    const p = new Postings();
    // Views of exactly `length` entries: the first push copies them into arrays of their own.
    p.slots = slots.subarray(from, to);
    p.freqs = freqs.subarray(from, to);
    p.length = to - from;
    p.maxFreq = -1;
    this.made.set(term, p);
    return p;
  }
}
