/**
 * The embedded backend's word index: an inverted index over the MemoryIndex rows, scored with
 * BM25 exactly as Lucene scores it (so Elasticsearch and this backend rank alike): idf
 * ln(1 + (N − df + 0.5) / (df + 0.5)), document lengths stored as Lucene's one-byte norms, and
 * freq / (freq + k1 · (1 − b + b · length / avgLength)).
 *
 * Written here rather than taken from a library: hybrid search sends whole descriptions as
 * queries and must filter by the same typed-array columns as the vector scan; the libraries
 * tried (MiniSearch, SQLite FTS5) either took a second per such query on 42k organizations or
 * could not apply the filters before ranking.
 *
 * Postings are appended per slot; a removed or replaced document leaves its postings behind as
 * dead slots (skipped, and not counted in df) until a compaction drops them.
 */
import { BM25 } from "@orgsim/core";
import { accumulatePostings, bestSlots, clearSlots, completePostings, countAbove, slotsAbove, slotsReaching } from "@orgsim/native-kernel";
import { type Postings, PostingsTable, type SavedPostings } from "./postings-table";
import { TopK } from "./top-k";

/** A search allowed fewer than one in this many documents is restricted (see search). */
const RESTRICTED_BELOW = 8;
/** completeInPlace walks the postings left when they are fewer than this many per document in reach and term (see walkIsCheaper). */
const WALK_BELOW_POSTINGS_PER_CANDIDATE_TERM = 8;
/** countAbove collects the slots above this share of the bound it is asked about (at 100k, 0.3-0.6 were alike, 0.8-0.9 slower). */
const HIGH_FLOOR_OF_BOUND = 0.5;

/** Lucene's SmallFloat.intToByte4 / byte4ToInt: lengths under 24 exact, above that 4 significant bits. */
const NUM_FREE_VALUES = 24;
function longToInt4(i: number): number {
  const numBits = 32 - Math.clz32(i);
  if (numBits < 4) return i;
  const shift = numBits - 4;
  return ((i >>> shift) & 0x07) | ((shift + 1) << 3);
}
function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}
/** The document length BM25 sees for a field of `length` terms. */
export function luceneLength(length: number): number {
  return NORM_LENGTHS[normOf(length)] as number;
}
/** Lucene's one-byte norm of a length (SmallFloat.intToByte4): every length maps to one of 256. */
function normOf(length: number): number {
  return length < NUM_FREE_VALUES ? length : NUM_FREE_VALUES + longToInt4(length - NUM_FREE_VALUES);
}
/** The length each norm stands for (SmallFloat.byte4ToInt): luceneLength(length) is NORM_LENGTHS[normOf(length)]. */
const NORM_LENGTHS = Float64Array.from({ length: 256 }, (_, norm) => (norm < NUM_FREE_VALUES ? norm : NUM_FREE_VALUES + int4ToLong(norm - NUM_FREE_VALUES)));

/** A query term present in the index: its postings, its idf and the most it can add to a document's score. */
interface QueryTerm {
  postings: Postings;
  idf: number;
  /** The average document length BM25 normalizes by (the same for every term of a query). */
  avgLength: number;
  /** BM25's length normalization k1 · (1 − b + b · length / avgLength) of each norm (as Lucene caches it per query). */
  normalization: Float64Array;
  /** The most this term can add to any document's score. */
  bound: number;
  /** The most this term and the ones after it (rarer first) can add to a document: their bounds summed. */
  left: number;
}

export interface LexicalHit {
  row: number;
  score: number;
}

/** The names of a LexicalSnapshot's arrays (MemoryIndex.restore reads them by name). */
export const LEXICAL_ARRAYS = [
  "slotRow",
  "slotLength",
  "rowSlot",
  "termBytes",
  "termStarts",
  "postingStarts",
  "postingSlots",
  "postingFreqs",
  "termMaxFreqs",
  "termMinLengths",
] as const satisfies readonly (keyof LexicalSnapshot["arrays"])[];

/** A LexicalIndex as saved in a snapshot: scalars here, arrays beside (see MemoryIndex.snapshot). */
export interface LexicalSnapshot {
  meta: { slots: number; live: number; dead: number; totalLength: number };
  arrays: SavedPostings & {
    slotRow: Int32Array<ArrayBuffer>;
    slotLength: Float64Array<ArrayBuffer>;
    rowSlot: Int32Array<ArrayBuffer>;
  };
}

export class LexicalIndex {
  private postings = new PostingsTable();
  /** Slot -> row (-1 once the slot is dead); row -> slot (-1 when the row has no text). */
  private slotRow = new Int32Array(1024);
  private slotLength = new Float64Array(1024);
  /** Slot -> its length's one-byte norm: scoring a posting looks its normalization up by it. */
  private slotNorm = new Uint8Array(1024);
  private rowSlot = new Int32Array(1024).fill(-1);
  private slots = 0;
  private live = 0;
  private dead = 0;
  private totalLength = 0;
  private scores = new Float64Array(0);
  /** Scratch flags of the slots a restricted search may score (see search), all 0 between searches. */
  private slotFlags = new Uint8Array(0);
  /** Scratch list of the slots a search has scored (the first `touchedCount`). */
  private touched = new Int32Array(0);
  private touchedCount = 0;
  /** Scratch list of the touched slots still in reach of the page (see reachable). */
  private inReachList = new Int32Array(0);
  /**
   * Scratch list of the touched slots scoring above `highFloor` (the first `highCount`): what
   * countAbove and bestCandidates walk instead of every touched slot. Infinite until a first count.
   */
  private high = new Int32Array(0);
  private highCount = 0;
  private highFloor = Number.POSITIVE_INFINITY;
  /** touchedCount, highCount and highFloor, handed to the native posting walk and back. */
  private readonly walkState = new Float64Array(3);

  /** Documents indexed. */
  get size(): number {
    return this.live;
  }

  /** Live documents holding `term`. */
  docFrequency(term: string): number {
    const p = this.postings.get(term);
    return p ? this.liveCount(p) : 0;
  }

  /** Indexes `terms` as the text of `row`, replacing what the row had; null or no terms leaves the row without text. */
  set(row: number, terms: readonly string[] | null): void {
    this.clear(row);
    if (!terms || terms.length === 0) return;
    if (this.slots === this.slotRow.length) this.growSlots();
    if (row >= this.rowSlot.length) this.growRows(row + 1);
    const slot = this.slots++;
    const length = terms.length;
    for (const term of terms) {
      const p = this.postings.getOrAdd(term);
      if (p.length > 0 && p.slots[p.length - 1] === slot) {
        // Not the term's first occurrence in this document (slots only grow: a term's last posting is its newest document).
        p.repeat();
        continue;
      }
      p.push(slot, 1, length);
      if (p.countedAt === this.removals) p.liveCount++;
    }
    this.slotRow[slot] = row;
    this.slotLength[slot] = terms.length;
    this.slotNorm[slot] = normOf(terms.length);
    this.rowSlot[row] = slot;
    this.live++;
    this.totalLength += terms.length;
  }

  /** Removes the text of `row`. */
  clear(row: number): void {
    const slot = row < this.rowSlot.length ? (this.rowSlot[row] as number) : -1;
    if (slot < 0) return;
    this.rowSlot[row] = -1;
    this.slotRow[slot] = -1;
    this.live--;
    this.dead++;
    this.removals++;
    this.totalLength -= this.slotLength[slot] as number;
    if (this.dead > 1024 && this.dead > this.live / 4) this.compact();
  }

  /** The document of row `from` now lives at row `to` (whose own text was cleared first). */
  move(from: number, to: number): void {
    const slot = from < this.rowSlot.length ? (this.rowSlot[from] as number) : -1;
    if (from < this.rowSlot.length) this.rowSlot[from] = -1;
    if (slot < 0) return;
    if (to >= this.rowSlot.length) this.growRows(to + 1);
    this.rowSlot[to] = slot;
    this.slotRow[slot] = to;
  }

  /**
   * The `size` best rows for the query terms (OR), BM25 desc, then by `ids[row]` asc; only rows
   * with `allowed[row]` set when `allowed` is given. `allowedRows`, when given, lists those rows: a
   * search restricted to a few of them checks each posting against a flag a slot (one memory
   * read), not against its row's flag (two dependent reads across 5 MB at 1M rows). Under a filter
   * passing 2.8 % of 1M organizations that took the word ranking from 4.1-4.5 to 3.6-3.9 ms.
   *
   * Exact, with MaxScore pruning (Turtle and Flood): a term adds at most its bound to a document
   * (its BM25 at its largest frequency in its shortest document), so terms are taken rarest first
   * (shortest postings), and once the size-th best partial score beats the bounds left in the
   * terms not yet taken, no document they alone hold can reach the top. The commonest terms'
   * postings then only complete the documents still in reach: first the size best partial ones,
   * whose lowest full score sets the bar, then those that can still reach it (merged with the
   * postings, or, when they are many, scored while walking the postings: see walkIsCheaper).
   */
  search(queryTerms: readonly string[], size: number, allowed: Uint8Array | null, ids: Float64Array, allowedRows: Int32Array | null = null): LexicalHit[] {
    if (size <= 0 || this.live === 0) return [];
    const restricted = allowedRows !== null && allowedRows.length * RESTRICTED_BELOW < this.live;
    if (!restricted) return this.searchAmong(queryTerms, size, allowed, ids, false);
    const flagged = this.flagSlots(allowedRows);
    try {
      return this.searchAmong(queryTerms, size, this.slotFlags, ids, true);
    } finally {
      for (const slot of flagged) this.slotFlags[slot] = 0;
    }
  }

  /** search, `allowed` flagging rows, or slots when `bySlot`. */
  private searchAmong(queryTerms: readonly string[], size: number, allowed: Uint8Array | null, ids: Float64Array, bySlot: boolean): LexicalHit[] {
    if (this.scores.length < this.slots) this.scores = new Float64Array(this.slotRow.length);
    if (this.touched.length < this.slots) this.touched = new Int32Array(this.slotRow.length);
    const terms = this.queryTerms(queryTerms);
    const scores = this.scores;
    if (this.high.length < this.slots) this.high = new Int32Array(this.slotRow.length);
    this.touchedCount = 0;
    this.highCount = 0;
    this.highFloor = Number.POSITIVE_INFINITY;
    let top = 0;
    let taken = 0;
    for (; taken < terms.length; taken++) {
      const term = terms[taken] as QueryTerm;
      // The size-th best can beat what is left only once the best does (checked first: it is free);
      // then a counting pass tells whether it does.
      if (this.touchedCount >= size && term.left < top && this.countAbove(term.left, size) === size) break;
      top = Math.max(top, this.accumulate(term, allowed, bySlot));
    }
    const touched = this.touched.subarray(0, this.touchedCount);
    const best = new TopK(size, ids);
    if (taken === terms.length) for (const slot of touched) best.offer(this.slotRow[slot] as number, scores[slot] as number);
    else {
      // `size` documents reach the lowest full score of the `size` best partial ones (at least the
      // size-th best partial score, and usually far above it): no document below it is needed.
      const rest = terms.slice(taken);
      const threshold = this.completed(this.bestCandidates(size), rest).lowest();
      const inReach = this.reachable((rest[0] as QueryTerm).left, threshold);
      if (this.walkIsCheaper(rest, inReach.length)) {
        this.completeInPlace(rest, threshold);
        // Only those that reached it go to the heap (about 150 of 4,900 at 100k), listed natively in place.
        const reached = inReach.subarray(0, slotsReaching(inReach, inReach.length, scores, 0, threshold, inReach));
        for (const slot of reached) best.offer(this.slotRow[slot] as number, scores[slot] as number);
      } else {
        const reachable = this.completed(new Candidates(inReach, scores), rest, threshold);
        for (let i = 0; i < reachable.length; i++) best.offer(this.slotRow[reachable.slots[i] as number] as number, reachable.scores[i] as number);
      }
    }
    clearSlots(this.touched, this.touchedCount, scores);
    return best.sorted();
  }

  /** The query's terms present in live documents with their idf and norm parameters, largest idf first. */
  private queryTerms(queryTerms: readonly string[]): QueryTerm[] {
    const n = this.live;
    const avgLength = this.totalLength / n || 1;
    const { k1, b } = BM25;
    const normalization = NORM_LENGTHS.map((length) => k1 * (1 - b + (b * length) / avgLength));
    const terms: QueryTerm[] = [];
    for (const term of new Set(queryTerms)) {
      const postings = this.postings.get(term);
      // df counts live documents only, so a ranking never depends on the history of writes.
      const df = postings ? this.liveCount(postings) : 0;
      if (!postings || df === 0) continue;
      const scored = { postings, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)), avgLength, normalization, bound: 0, left: 0 };
      scored.bound = this.boundOf(scored);
      terms.push(scored);
    }
    terms.sort((a, b) => b.idf - a.idf);
    // Summed from the last term, not subtracted as terms are taken: no rounding drift below a real score.
    for (let i = terms.length - 1; i >= 0; i--) (terms[i] as QueryTerm).left = (terms[i] as QueryTerm).bound + (terms[i + 1]?.left ?? 0);
    return terms;
  }

  /** The most `term` adds to a document's score: its BM25 at its largest frequency in its shortest document (a hair above, against rounding). */
  private boundOf(term: QueryTerm): number {
    const p = term.postings;
    const { k1, b } = BM25;
    const norm = k1 * (1 - b + (b * luceneLength(p.minLength)) / term.avgLength);
    return ((term.idf * p.maxFreq) / (p.maxFreq + norm)) * (1 + 1e-9);
  }

  /** BM25 of `term` in `slot` holding it `freq` times. */
  private termScore(term: QueryTerm, slot: number, freq: number): number {
    return (term.idf * freq) / (freq + (term.normalization[this.slotNorm[slot] as number] as number));
  }

  /**
   * Adds `term`'s score to every allowed live document holding it (listing the slots scored first
   * in `touched`); returns the best score it left. `allowed` flags rows, or (`bySlot`) live slots.
   */
  private accumulate(term: QueryTerm, allowed: Uint8Array | null, bySlot: boolean): number {
    const { slots, freqs, length } = term.postings;
    const state = this.walkState;
    state[0] = this.touchedCount;
    state[1] = this.highCount;
    state[2] = this.highFloor;
    // Native (packages/native-kernel): the word search's hottest loop.
    const top = accumulatePostings(
      slots,
      freqs,
      length,
      term.idf,
      term.normalization,
      this.slotNorm,
      this.scores,
      allowed,
      bySlot,
      this.slotRow,
      this.touched,
      this.high,
      state,
    );
    this.touchedCount = state[0] as number;
    this.highCount = state[1] as number;
    return top;
  }

  /** Flags the slots of those of `rows` that have text (see search); returns those slots. */
  private flagSlots(rows: Int32Array): Int32Array {
    if (this.slotFlags.length < this.slots) this.slotFlags = new Uint8Array(this.slotRow.length);
    const flagged = new Int32Array(rows.length);
    let count = 0;
    for (const row of rows) {
      const slot = row < this.rowSlot.length ? (this.rowSlot[row] as number) : -1;
      if (slot < 0) continue;
      this.slotFlags[slot] = 1;
      flagged[count++] = slot;
    }
    return flagged.subarray(0, count);
  }

  /** The touched documents whose partial score plus `left` reaches `threshold`, in the order they were touched (a view of a scratch list: until the next search). */
  private reachable(left: number, threshold: number): Int32Array {
    if (this.inReachList.length < this.touchedCount) this.inReachList = new Int32Array(this.slotRow.length);
    const list = this.inReachList;
    return list.subarray(0, slotsReaching(this.touched, this.touchedCount, this.scores, left, threshold, list));
  }

  /**
   * Whether completing the `inReach` documents in place, walking every posting of the `rest` terms
   * (completeInPlace), costs less than sorting them and galloping through those postings
   * (completed). At 100k the bench's queries leave 3 terms of 53k postings for 4,700 documents in
   * reach (walk); at 1M 11 terms of 660k postings for 500 (gallop).
   */
  private walkIsCheaper(rest: readonly QueryTerm[], inReach: number): boolean {
    let postings = 0;
    for (const term of rest) postings += term.postings.length;
    return postings <= WALK_BELOW_POSTINGS_PER_CANDIDATE_TERM * inReach * rest.length;
  }

  /**
   * Adds each of `terms` (rarest first) to the scores of the touched documents that can still reach
   * `threshold`, walking the terms' postings: a document out of reach before a term stays below
   * `threshold` (its score is left as it is), and one that ends at or above it got every term.
   * An untouched document (score 0) cannot reach it (see search).
   */
  private completeInPlace(terms: readonly QueryTerm[], threshold: number): void {
    for (const term of terms) {
      const { slots, freqs, length } = term.postings;
      completePostings(slots, freqs, length, term.idf, term.normalization, this.slotNorm, this.scores, term.left, threshold);
    }
  }

  /** The `count` touched documents with the best partial scores: all in `high` once a count found `count` above its floor. */
  private bestCandidates(count: number): Candidates {
    const slots = new Int32Array(count);
    bestSlots(this.high, this.highCount, this.scores, slots);
    return new Candidates(slots, this.scores);
  }

  /**
   * Adds each of `terms` (rarest first) to the candidates' scores, dropping after each term those
   * that can no longer reach `threshold` with the terms left. Candidates and postings are both in
   * slot order: each term's postings are merged with the candidates, skipping ahead by galloping
   * (doubling steps, then halving), so a long list costs about log(its length / candidates) a
   * candidate, and each step lands near the last one in memory.
   */
  private completed(candidates: Candidates, terms: readonly QueryTerm[], threshold = Number.NEGATIVE_INFINITY): Candidates {
    terms.forEach((term, i) => {
      const { slots: held, freqs, length } = term.postings;
      const { slots, scores } = candidates;
      let at = 0;
      for (let c = 0; c < candidates.length && at < length; c++) {
        const slot = slots[c] as number;
        at = gallop(held, at, length, slot);
        if (at < length && held[at] === slot) scores[c] = (scores[c] as number) + this.termScore(term, slot, freqs[at] as number);
      }
      candidates.keep(threshold - (terms[i + 1]?.left ?? 0));
    });
    return candidates;
  }

  /**
   * How many touched slots score above `bound`, counted up to `enough`, in `high`: collected again
   * from every touched slot, at a share of `bound`, when `bound` is below its floor (the bounds
   * asked fall term after term, so one collection serves several counts).
   */
  private countAbove(bound: number, enough: number): number {
    if (bound < this.highFloor) this.collectHigh(bound * HIGH_FLOOR_OF_BOUND);
    return countAbove(this.high, this.highCount, this.scores, bound, enough);
  }

  /** Lists in `high` the touched slots scoring above `floor`. */
  private collectHigh(floor: number): void {
    this.highCount = slotsAbove(this.touched, this.touchedCount, this.scores, floor, this.high);
    this.highFloor = floor;
  }

  /** Removals so far: a term's live count holds until the next (see Postings.liveCount). */
  private removals = 0;

  /** Counted once per term between removals, not on every query: a count walks the term's postings. */
  private liveCount(p: Postings): number {
    if (this.dead === 0) return p.length;
    if (p.countedAt !== this.removals) {
      p.liveCount = this.countLive(p);
      p.countedAt = this.removals;
    }
    return p.liveCount;
  }

  private countLive(p: Postings): number {
    let df = 0;
    for (let j = 0; j < p.length; j++) if ((this.slotRow[p.slots[j] as number] as number) >= 0) df++;
    return df;
  }

  /** Everything the index holds, postings concatenated term after term. */
  snapshot(): LexicalSnapshot {
    return {
      meta: { slots: this.slots, live: this.live, dead: this.dead, totalLength: this.totalLength },
      arrays: { slotRow: this.slotRow, slotLength: this.slotLength, rowSlot: this.rowSlot, ...this.postings.snapshot() },
    };
  }

  /** The index a snapshot holds (each posting list made when first asked for: see PostingsTable). */
  static restore({ meta, arrays }: LexicalSnapshot): LexicalIndex {
    const index = new LexicalIndex();
    Object.assign(index, { slots: meta.slots, live: meta.live, dead: meta.dead, totalLength: meta.totalLength });
    index.slotRow = arrays.slotRow;
    index.slotLength = arrays.slotLength;
    index.slotNorm = new Uint8Array(arrays.slotLength.length);
    for (let slot = 0; slot < meta.slots; slot++) index.slotNorm[slot] = normOf(arrays.slotLength[slot] as number);
    index.rowSlot = arrays.rowSlot;
    index.postings = PostingsTable.restore(arrays);
    return index;
  }

  /** Drops dead slots from every posting list, renumbering the live ones densely. */
  private compact(): void {
    const renumber = new Int32Array(this.slots).fill(-1);
    let next = 0;
    for (let slot = 0; slot < this.slots; slot++) {
      const row = this.slotRow[slot] as number;
      if (row < 0) continue;
      renumber[slot] = next;
      this.slotRow[next] = row;
      this.slotLength[next] = this.slotLength[slot] as number;
      this.slotNorm[next] = this.slotNorm[slot] as number;
      this.rowSlot[row] = next;
      next++;
    }
    const postings = new PostingsTable();
    for (const [term, p] of this.postings.entries()) {
      // A term left in no live document is not carried over.
      let kept: Postings | undefined;
      for (let j = 0; j < p.length; j++) {
        const slot = renumber[p.slots[j] as number] as number;
        if (slot < 0) continue;
        kept ??= postings.getOrAdd(term);
        kept.push(slot, p.freqs[j] as number, this.slotLength[slot] as number);
      }
    }
    this.postings = postings;
    this.slots = next;
    this.dead = 0;
  }

  private growSlots(): void {
    const capacity = this.slotRow.length * 2;
    const slotRow = new Int32Array(capacity);
    slotRow.set(this.slotRow);
    this.slotRow = slotRow;
    const slotLength = new Float64Array(capacity);
    slotLength.set(this.slotLength);
    this.slotLength = slotLength;
    const slotNorm = new Uint8Array(capacity);
    slotNorm.set(this.slotNorm);
    this.slotNorm = slotNorm;
  }

  private growRows(atLeast: number): void {
    const rowSlot = new Int32Array(Math.max(atLeast, this.rowSlot.length * 2)).fill(-1);
    rowSlot.set(this.rowSlot);
    this.rowSlot = rowSlot;
  }
}

/** The first position from `from` on whose slot is at least `slot` (`length` when none), in slots sorted ascending. */
function gallop(slots: Int32Array, from: number, length: number, slot: number): number {
  if (from >= length || (slots[from] as number) >= slot) return from;
  // slots[low] < slot throughout; the answer is in (low, high].
  let low = from;
  let step = 1;
  while (low + step < length && (slots[low + step] as number) < slot) {
    low += step;
    step *= 2;
  }
  let high = Math.min(low + step, length);
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if ((slots[mid] as number) < slot) low = mid;
    else high = mid;
  }
  return high;
}

/** Documents being completed: their slots in ascending order, and their scores so far. */
class Candidates {
  readonly slots: Int32Array;
  readonly scores: Float64Array;
  length: number;

  /** `slots` (sorted here, in place) with their partial scores read from `partial`. */
  constructor(slots: Int32Array, partial: Float64Array) {
    slots.sort();
    this.slots = slots;
    this.length = slots.length;
    this.scores = new Float64Array(slots.length);
    for (let i = 0; i < slots.length; i++) this.scores[i] = partial[slots[i] as number] as number;
  }

  /** Keeps the candidates scoring at least `floor`, in order. */
  keep(floor: number): void {
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const score = this.scores[i] as number;
      if (score < floor) continue;
      this.slots[kept] = this.slots[i] as number;
      this.scores[kept++] = score;
    }
    this.length = kept;
  }

  /** The lowest score among the candidates. */
  lowest(): number {
    let lowest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.length; i++) lowest = Math.min(lowest, this.scores[i] as number);
    return lowest;
  }
}
