/**
 * The posting lists of a word index (LexicalIndex), by term. Restored from a snapshot, a term's
 * postings are made, as views into the saved arrays, only when the term is first asked for: the
 * profile texts of 1M bench organizations hold 1M terms, and making all their lists took 0.8 s of
 * every start.
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
   * The largest frequency and the shortest document among the slots that ever held the term: with
   * them BM25 bounds what the term adds to a document below its idf. Removals leave them as they
   * are: still a bound, if a looser one.
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
    this.maxFreq = Math.max(this.maxFreq, Math.min(freq, 0xffff));
    this.minLength = Math.min(this.minLength, length);
  }

  /** One more occurrence of the term in the document pushed last. */
  repeat(): void {
    const last = this.length - 1;
    const freq = this.freqs[last] as number;
    if (freq === 0xffff) return;
    this.freqs[last] = freq + 1;
    if (freq + 1 > this.maxFreq) this.maxFreq = freq + 1;
  }
}

/**
 * The postings of every term as a snapshot saved them, concatenated term after term, the terms
 * sorted by their UTF-8 bytes and concatenated too: a term is found by binary search, so a start
 * neither parses nor maps a million strings (JSON and a Map of them took 0.8 s at 1M organizations).
 */
export interface SavedPostings {
  /** The terms' UTF-8 bytes, in byte order; term i is termBytes[termStarts[i] .. termStarts[i + 1]). */
  termBytes: Uint8Array<ArrayBuffer>;
  termStarts: Uint32Array<ArrayBuffer>;
  /** Term i's postings are postingSlots/postingFreqs[postingStarts[i] .. postingStarts[i + 1]). */
  postingStarts: Uint32Array<ArrayBuffer>;
  postingSlots: Int32Array<ArrayBuffer>;
  postingFreqs: Uint16Array<ArrayBuffer>;
  /** Term i's Postings.maxFreq and minLength: saved, so that no start walks a long list to bound its term. */
  termMaxFreqs: Uint16Array<ArrayBuffer>;
  termMinLengths: Uint32Array<ArrayBuffer>;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export class PostingsTable {
  private readonly made = new Map<string, Postings>();
  private saved: SavedPostings | null = null;

  static restore(saved: SavedPostings): PostingsTable {
    const table = new PostingsTable();
    table.saved = saved;
    return table;
  }

  get(term: string): Postings | undefined {
    const made = this.made.get(term);
    if (made || !this.saved) return made;
    const position = this.positionOf(term);
    return position < 0 ? undefined : this.make(term, position);
  }

  getOrAdd(term: string): Postings {
    let p = this.get(term);
    if (!p) {
      p = new Postings();
      this.made.set(term, p);
    }
    return p;
  }

  /** Every term with its postings (the saved ones made first). */
  entries(): IterableIterator<[string, Postings]> {
    if (this.saved) {
      const { termBytes, termStarts } = this.saved;
      for (let position = 0; position < termStarts.length - 1; position++) {
        const term = fromUtf8.decode(termBytes.subarray(termStarts[position], termStarts[position + 1]));
        if (!this.made.has(term)) this.make(term, position);
      }
      this.saved = null;
    }
    return this.made.entries();
  }

  /** Every term's postings as a snapshot saves them (see SavedPostings). */
  snapshot(): SavedPostings {
    const encoded = [...this.entries()].map(([term, p]) => [Buffer.from(utf8.encode(term)), p] as const);
    encoded.sort(([a], [b]) => Buffer.compare(a, b));
    const termStarts = new Uint32Array(encoded.length + 1);
    const postingStarts = new Uint32Array(encoded.length + 1);
    encoded.forEach(([bytes, p], i) => {
      termStarts[i + 1] = (termStarts[i] as number) + bytes.length;
      postingStarts[i + 1] = (postingStarts[i] as number) + p.length;
    });
    const termBytes = new Uint8Array(termStarts[encoded.length] as number);
    const postingSlots = new Int32Array(postingStarts[encoded.length] as number);
    const postingFreqs = new Uint16Array(postingSlots.length);
    const termMaxFreqs = Uint16Array.from(encoded, ([, p]) => p.maxFreq);
    const termMinLengths = Uint32Array.from(encoded, ([, p]) => Math.min(p.minLength, 0xffff_ffff));
    encoded.forEach(([bytes, p], i) => {
      termBytes.set(bytes, termStarts[i]);
      postingSlots.set(p.slots.subarray(0, p.length), postingStarts[i]);
      postingFreqs.set(p.freqs.subarray(0, p.length), postingStarts[i]);
    });
    return { termBytes, termStarts, postingStarts, postingSlots, postingFreqs, termMaxFreqs, termMinLengths };
  }

  /** The saved position of `term` (-1: not saved). */
  private positionOf(term: string): number {
    const { termBytes, termStarts } = this.saved as SavedPostings;
    const key = utf8.encode(term);
    let low = 0;
    let high = termStarts.length - 2;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const order = compareBytes(termBytes, termStarts[mid] as number, termStarts[mid + 1] as number, key);
      if (order === 0) return mid;
      if (order < 0) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  private make(term: string, position: number): Postings {
    const { postingStarts, postingSlots, postingFreqs, termMaxFreqs, termMinLengths } = this.saved as SavedPostings;
    const [from, to] = [postingStarts[position] as number, postingStarts[position + 1] as number];
    const p = new Postings();
    // Views of exactly `length` entries: the first push copies them into arrays of their own.
    p.slots = postingSlots.subarray(from, to);
    p.freqs = postingFreqs.subarray(from, to);
    p.length = to - from;
    p.maxFreq = termMaxFreqs[position] as number;
    p.minLength = termMinLengths[position] as number;
    this.made.set(term, p);
    return p;
  }
}

/** Byte order of bytes[from..to) against `key`: negative when it sorts first. */
function compareBytes(bytes: Uint8Array, from: number, to: number, key: Uint8Array): number {
  const length = Math.min(to - from, key.length);
  for (let i = 0; i < length; i++) {
    const difference = (bytes[from + i] as number) - (key[i] as number);
    if (difference !== 0) return difference;
  }
  return to - from - key.length;
}
