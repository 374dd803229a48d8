/**
 * `out[i]` = dot(`query`, row `rows[i]` of `matrix`) for i < `count`, where `matrix` holds rows of
 * `dimension` float32s one after another. Throws a RangeError for a row outside the matrix.
 */
export function scoreRows(matrix: Float32Array, dimension: number, query: Float32Array, rows: Int32Array, count: number, out: Float32Array): void;

/**
 * Bytes `offset` to `offset + length` of the file at `path`, as an ArrayBuffer backed by the file's
 * pages (shared with every process that maps them), copy on write: writes to it stay in this process
 * and never reach the file. The file must not shrink while mapped (orgsim replaces its files whole,
 * by a rename, which leaves a mapped file as it was).
 */
export function mapFile(path: string, offset: number, length: number): ArrayBuffer;

/**
 * The word search's hot loop (LexicalIndex.accumulate in @orgsim/backend-embedded), step for step:
 * adds a term's BM25, idf · freq / (freq + normalization[slotNorm[slot]]), to `scores[slot]` for each
 * of its first `length` postings that is allowed (`allowed` flags slots when `bySlot`, else rows via
 * `slotRow`; dead slots, row -1, are skipped), listing slots scored for the first time in `touched`
 * and those that rise above `state[2]` in `high` (state[0] and state[1] are their counts, updated).
 * Returns the best score it left.
 */
export function accumulatePostings(
  slots: Int32Array,
  freqs: Uint16Array,
  length: number,
  idf: number,
  normalization: Float64Array,
  slotNorm: Uint8Array,
  scores: Float64Array,
  allowed: Uint8Array | null,
  bySlot: boolean,
  slotRow: Int32Array,
  touched: Int32Array,
  high: Int32Array,
  state: Float64Array,
): number;

/** Adds a term's BM25 (as accumulatePostings) to every slot of its postings scoring above 0 and at least `threshold - left`. */
export function completePostings(
  slots: Int32Array,
  freqs: Uint16Array,
  length: number,
  idf: number,
  normalization: Float64Array,
  slotNorm: Uint8Array,
  scores: Float64Array,
  left: number,
  threshold: number,
): void;

/** Writes to `out` (which may be `slots` itself) those of the first `count` of `slots` with `scores[slot] + left >= threshold`, in order; returns how many. */
export function slotsReaching(slots: Int32Array, count: number, scores: Float64Array, left: number, threshold: number, out: Int32Array): number;

/** Writes to `out` those of the first `count` of `slots` with `scores[slot] > floor`, in order; returns how many. */
export function slotsAbove(slots: Int32Array, count: number, scores: Float64Array, floor: number, out: Int32Array): number;

/** How many of the first `count` of `slots` have `scores[slot] > bound`, counted up to `enough`. */
export function countAbove(slots: Int32Array, count: number, scores: Float64Array, bound: number, enough: number): number;

/** Sets `scores[slot]` to 0 for each of the first `count` of `slots`. */
export function clearSlots(slots: Int32Array, count: number, scores: Float64Array): void;

/**
 * Writes to `best` the `best.length` of the first `count` of `slots` with the highest scores, highest
 * first (of equal scores, the one listed first).
 */
export function bestSlots(slots: Int32Array, count: number, scores: Float64Array, best: Int32Array): void;

/** The compiled addon's file, for a worker thread to load with require (each thread loads its own copy). */
export const addonFile: string;

/** A saved usearch graph mapped by openGraphView (unmapped once collected). */
export type GraphView = { readonly __graphView: unique symbol };

/**
 * The usearch graph saved at `path` (f16 vectors, cosine), memory-mapped read-only: every process
 * maps the same pages. Throws when the file cannot be mapped or holds another kind of graph.
 */
export function openGraphView(path: string): GraphView;

/**
 * The `wanted` nodes of `view` nearest to `query`, searched at least `breadth` wide, among those
 * that pass: the node's key (an organization id) has a row in IdRows' table (`idTable`, `rowTable`:
 * packages/backend-embedded/src/id-rows.ts) flagged in `allowed`, or is in `alwaysKeys` (sorted
 * ascending). The filter is tested inside the graph walk, which goes on through nodes that fail.
 * Writes the keys and cosine distances (in the graph's f16 precision) to `keys` and `distances`,
 * nearest first; returns how many (fewer than `wanted` when the walk reached no more). The tables
 * may be shared with a thread writing to them meanwhile: a row read is checked against `allowed`'s
 * length, and a stale one only changes which nodes come back.
 */
export function filteredGraphSearch(
  view: GraphView,
  query: Float32Array,
  wanted: number,
  breadth: number,
  idTable: Float64Array,
  rowTable: Int32Array,
  allowed: Uint8Array,
  alwaysKeys: Float64Array,
  keys: Float64Array,
  distances: Float32Array,
): number;
