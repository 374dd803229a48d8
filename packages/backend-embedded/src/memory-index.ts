/**
 * The in-memory side of the embedded organization store: every vector in a matrix
 * per kind (row-vectors.ts, in WebAssembly memory), plus compact typed-array filter columns,
 * all indexed by a dense row number (id <-> row maps both ways).
 *
 * Filters are evaluated here rather than in SQL: a scan over typed arrays
 * costs well under a millisecond at 100k rows whatever the selectivity, while
 * SQL must materialize and hand back every matching id (see bench/search-latency.ts).
 */
import {
  type CustomerBaseFigures,
  EMPLOYEE_RANGES,
  FUNDING_STAGES,
  lexicalTerms,
  type Organization,
  type OrganizationFilter,
  type TermStatistics,
  type TextTermStatistics,
  termFrequency,
  type VectorKind,
} from "@orgsim/core";
import { candidateRows, DEFAULT_EXACT_BELOW, firstGraphSearch, type PlanInput } from "./candidate-plan";
import { CodeLists } from "./code-lists";
import { FilterCache, FilteredRows } from "./filtered-rows";
import { IdRows } from "./id-rows";
import { LEXICAL_ARRAYS, LexicalIndex, type LexicalSnapshot } from "./lexical-index";
import { RowVectors } from "./row-vectors";
import type { SnapshotArray, SnapshotReader } from "./snapshot-file";
import { TopK } from "./top-k";
import type { GraphSearchThread } from "./graph-search-thread";
import type { GraphPrefetch } from "./vector-graph";
import type { VectorGraphs } from "./vector-graphs";

/** What the filters look at, derived from an organization (and stored as SQL columns). */
export interface FilterColumns {
  hqCountry: string | null;
  hqSubdivision: string | null;
  employeeCount: number | null;
  employeeRange: string | null;
  foundedYear: number | null;
  lastRoundStage: string | null;
  lastRoundDate: string | null;
  /** Country and subdivision codes of every location, HQ included. */
  places: string[];
  categories: string[];
}

export function filterColumnsOf(org: Organization): FilterColumns {
  const { headquarters, offices } = org.location;
  const places = [headquarters, ...offices].flatMap((p) => (p ? [p.country_code, p.subdivision_code] : [])).filter((c): c is string => !!c);
  const lastRound = org.metrics.funding?.last_round ?? null;
  return {
    hqCountry: headquarters?.country_code ?? null,
    hqSubdivision: headquarters?.subdivision_code ?? null,
    employeeCount: org.metrics.employee_count,
    employeeRange: org.metrics.employee_range,
    foundedYear: org.metrics.founded_year,
    lastRoundStage: lastRound?.stage ?? null,
    lastRoundDate: lastRound?.announced_on ?? null,
    places: [...new Set(places)],
    categories: [...new Set(org.categories)],
  };
}

/** The texts searched by words of an organization (lexicalTextsOf). */
export type LexicalTexts = Record<VectorKind, string | null>;

/** Reads the current texts of organizations (those it finds: a missing one has no text). */
export type TextSource = (ids: readonly number[]) => Map<number, LexicalTexts>;

/** One organization to put, as the store writes it. */
export interface IndexEntry {
  id: number;
  columns: FilterColumns;
  profile: Float32Array;
  customer: Float32Array | null;
  /** Null: indexed later, from the text source (see MemoryIndex.putMany). */
  texts: LexicalTexts | null;
  /** The data states its customers (hasExplicitCustomerText). */
  customerStated: boolean;
}

/** Texts read from the text source at a time when the word index catches up. */
const TEXTS_READ = 2_000;

/** What a memory snapshot's header holds besides its arrays. */
export interface MemorySnapshotMeta {
  n: number;
  dimension: number;
  /** Each code table's values in code order. */
  codes: { places: string[]; categories: string[]; ranges: string[]; stages: string[] };
  lexical: Record<VectorKind, LexicalSnapshot["meta"]>;
}

export interface RankOptions {
  offset: number;
  size: number;
  minScore?: number;
  /** Organizations left out whatever their score (the filter's excludeIds). */
  excludedIds: ReadonlySet<number>;
  /** The ranking's first graph search, made beforehand (prefetchGraphSearch). */
  prefetched?: GraphPrefetch;
  /** See VectorQuery.storedVector; unknown when absent. */
  storedVector?: boolean;
}

export interface Hit {
  id: number;
  score: number;
}

/** Strings -> small positive integers (0 stands for null / unknown). */
class Codes {
  private readonly codes = new Map<string, number>();
  /** The values in code order (code 1 first). */
  values(): string[] {
    return [...this.codes.keys()];
  }
  constructor(initial: readonly string[] = []) {
    for (const value of initial) this.intern(value);
  }
  get size(): number {
    return this.codes.size + 1;
  }
  intern(value: string | null): number {
    if (value === null) return 0;
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.codes.size + 1;
      this.codes.set(value, code);
    }
    return code;
  }
  /** A lookup table with 1 at the codes of `values` (unknown values match nothing). */
  table(values: readonly string[]): Uint8Array {
    const table = new Uint8Array(this.size);
    for (const value of values) table[this.codes.get(value) ?? 0] = 1;
    table[0] = 0;
    return table;
  }
}

const NO_TEXTS: LexicalTexts = { profile: null, customer: null };
/** "2023-05-02" -> 20230502, so dates compare as numbers; NaN for null (NaN fails every comparison). */
const dayNumber = (date: string | null) => (date ? Number(date.slice(0, 10).replaceAll("-", "")) : Number.NaN);
const orNaN = (value: number | null) => (value === null ? Number.NaN : value);

export class MemoryIndex {
  private n = 0;
  private capacity = 0;
  private rowById = new IdRows();
  private places = new Codes();
  private categoryCodes = new Codes();
  private rangeCodes = new Codes(EMPLOYEE_RANGES);
  private stageCodes = new Codes(FUNDING_STAGES);

  private ids = new Float64Array(0);
  private hqCountry = new Uint32Array(0);
  private hqSubdivision = new Uint32Array(0);
  // Nullable numbers are NaN when null: NaN fails every range check, as the contract wants.
  private employees = new Float64Array(0);
  private founded = new Float64Array(0);
  private roundDay = new Float64Array(0);
  private range = new Uint8Array(0);
  private stage = new Uint8Array(0);
  private placeCodes = new CodeLists();
  private categories = new CodeLists();
  /** Every organization's profile vector; the customer vectors of those that have one. */
  private vectors: Record<VectorKind, RowVectors>;
  /** 1 where the data states the organization's customers: customer-base search weighs by it without reading documents. */
  private customerStated = new Uint8Array(0);
  /** The words of the texts each vector embeds (customer text only where there is a customer vector). */
  private readonly lexical: Record<VectorKind, LexicalIndex> = { profile: new LexicalIndex(), customer: new LexicalIndex() };
  /**
   * Organizations put without their texts, whose words are not in `lexical` yet (what it holds of
   * them is stale): read from `textSource` and indexed before anything reads the word index.
   */
  private readonly textsPending = new Set<number>();
  private textSource: TextSource | null = null;
  /** The approximate-nearest-neighbour graphs that propose candidates for large rankings (none: every ranking scans). */
  private graphs: VectorGraphs | null = null;
  private exactBelow = DEFAULT_EXACT_BELOW;
  private readonly filterCache = new FilterCache();

  /** `expected`: organizations about to be put, to size the arrays once (loading would otherwise re-grow 150 MB matrices). */
  constructor(
    readonly dimension: number,
    expected = 0,
  ) {
    this.vectors = { profile: new RowVectors(dimension, false), customer: new RowVectors(dimension, true) };
    if (expected > 0) this.grow(expected);
  }

  get size(): number {
    return this.n;
  }

  has(id: number): boolean {
    return this.rowById.has(id);
  }

  /** The row of an organization (for callers computing candidate rows themselves). */
  rowOf(id: number): number | undefined {
    return this.rowById.get(id);
  }

  /** Every organization id, in row order. */
  allIds(): number[] {
    return Array.from(this.ids.subarray(0, this.n));
  }

  /** How many organizations have a vector of each kind. */
  vectorCounts(): Record<VectorKind, number> {
    return { profile: this.n, customer: this.vectors.customer.count(this.n) };
  }

  /** The current `kind` vector of an organization (a view, valid until the next write), or null. */
  vectorOf(id: number, kind: VectorKind): Float32Array | null {
    const row = this.rowById.get(id);
    return row === undefined ? null : this.vectors[kind].vectorOf(row);
  }

  /** Lets rankings of more than `exactBelow` candidate rows take their candidates from `graphs`. */
  useGraphs(graphs: VectorGraphs | null, exactBelow = DEFAULT_EXACT_BELOW): void {
    this.graphs = graphs;
    this.exactBelow = exactBelow;
  }

  /** Where the words of organizations put without their texts are read from. */
  useTextSource(source: TextSource | null): void {
    this.textSource = source;
  }

  /**
   * Puts a batch of organizations, then tells the graphs (which add a small batch at once). An
   * entry's texts are indexed at once, or, when null, left pending: read from the text source and
   * indexed in one pass later (indexTexts), at the latest before the word index is next read.
   */
  putMany(entries: readonly IndexEntry[]): void {
    for (const { id, columns, profile, customer, texts, customerStated } of entries) {
      this.put(id, columns, profile, customer);
      this.setCustomerStated(id, customerStated);
      if (texts) this.setTexts(id, texts);
      else this.textsPending.add(id);
    }
    this.graphs?.put(entries.map((e) => e.id));
  }

  /** Organizations whose words are not indexed yet. */
  get pendingTexts(): number {
    return this.textsPending.size;
  }

  /**
   * Indexes the words of up to `limit` pending organizations (all by default), read from the text
   * source in batches; returns how many are left.
   */
  indexTexts(limit = Number.POSITIVE_INFINITY): number {
    while (this.textsPending.size > 0 && limit > 0) {
      const source = this.textSource;
      if (!source) throw new Error("organizations were put without their texts, and the index has no text source");
      const ids: number[] = [];
      for (const id of this.textsPending) {
        if (ids.length === Math.min(TEXTS_READ, limit)) break;
        ids.push(id);
      }
      const texts = source(ids);
      for (const id of ids) this.setTexts(id, texts.get(id) ?? NO_TEXTS);
      limit -= ids.length;
    }
    return this.textsPending.size;
  }

  /** Inserts or replaces an organization. */
  put(id: number, columns: FilterColumns, profile: Float32Array, customer: Float32Array | null): void {
    this.filterCache.clear();
    let row = this.rowById.get(id);
    if (row === undefined) {
      if (this.n === this.capacity) this.grow();
      row = this.n++;
      this.rowById.set(id, row);
    }
    this.ids[row] = id;
    this.hqCountry[row] = this.places.intern(columns.hqCountry);
    this.hqSubdivision[row] = this.places.intern(columns.hqSubdivision);
    this.employees[row] = orNaN(columns.employeeCount);
    this.founded[row] = orNaN(columns.foundedYear);
    this.roundDay[row] = dayNumber(columns.lastRoundDate);
    this.range[row] = this.rangeCodes.intern(columns.employeeRange);
    this.stage[row] = this.stageCodes.intern(columns.lastRoundStage);
    this.placeCodes.set(
      row,
      columns.places.map((c) => this.places.intern(c)),
    );
    this.categories.set(
      row,
      columns.categories.map((c) => this.categoryCodes.intern(c)),
    );
    this.vectors.profile.set(row, profile);
    this.vectors.customer.set(row, customer);
    this.customerStated[row] = 0;
  }

  /** Indexes the words of an organization already put; its customer text counts only when it has a customer vector. */
  setTexts(id: number, texts: LexicalTexts): void {
    this.textsPending.delete(id);
    const row = this.rowById.get(id);
    if (row === undefined) return;
    for (const kind of ["profile", "customer"] as const) {
      const text = this.indexedText(row, texts, kind);
      this.lexical[kind].set(row, text ? lexicalTerms(text) : null);
    }
  }

  /** The `kind` text of the organization at `row` that its words are indexed from: a customer text only beside a customer vector. */
  private indexedText(row: number, texts: LexicalTexts, kind: VectorKind): string | null {
    return kind === "profile" || this.vectors.customer.has(row) ? texts[kind] : null;
  }

  /** Records whether the data states the customers of an organization already put. */
  setCustomerStated(id: number, stated: boolean): void {
    const row = this.rowById.get(id);
    if (row !== undefined) this.customerStated[row] = stated ? 1 : 0;
  }

  /** Sets the customer vector of an organization already put (used while loading). */
  setCustomer(id: number, customer: Float32Array): void {
    const row = this.rowById.get(id);
    if (row === undefined) return;
    this.vectors.customer.set(row, customer);
  }

  /** Removes an organization; the last row moves into its place so rows stay dense. */
  remove(id: number): boolean {
    const row = this.rowById.get(id);
    if (row === undefined) return false;
    this.filterCache.clear();
    this.rowById.delete(id);
    this.textsPending.delete(id);
    this.graphs?.remove(id);
    const last = --this.n;
    for (const lexical of Object.values(this.lexical)) {
      lexical.clear(row);
      if (row !== last) lexical.move(last, row);
    }
    if (row !== last) {
      for (const column of [
        this.ids,
        this.hqCountry,
        this.hqSubdivision,
        this.employees,
        this.founded,
        this.roundDay,
        this.range,
        this.stage,
        this.customerStated,
      ]) {
        column[row] = column[last] as number;
      }
      this.placeCodes.move(last, row);
      this.categories.move(last, row);
      this.rowById.set(this.ids[row] as number, row);
    }
    // Also when the removed row is the last: its customer vector's slot is freed.
    for (const vectors of Object.values(this.vectors)) vectors.move(last, row);
    this.placeCodes.truncate(this.n);
    this.categories.truncate(this.n);
    return true;
  }

  /** Rows passing every filter but `excludeIds` (rankings leave those out); null when the filter lets everything through. */
  filterRows(filter: OrganizationFilter): FilteredRows | null {
    return this.filterCache.rows(filter, () => this.scanFilter(filter));
  }

  /** filterRows without the cache: scans every row. */
  scanFilter(filter: OrganizationFilter): FilteredRows | null {
    const f = filter;
    const loc = f.location ? this.places.table([...f.location.countries, ...f.location.subdivisions]) : null;
    const anyOffice = f.location ? !f.location.hqOnly : false;
    const ranges = f.employeeRanges ? this.rangeCodes.table(f.employeeRanges) : null;
    const stages = f.fundingStages ? this.stageCodes.table(f.fundingStages) : null;
    const cats = f.categories ? this.categoryCodes.table(f.categories) : null;
    const fromDay = f.lastFundingFrom ? dayNumber(f.lastFundingFrom) : null;
    const toDay = f.lastFundingTo ? dayNumber(f.lastFundingTo) : null;
    const { employeesMin: eMin, employeesMax: eMax, foundedYearMin: yMin, foundedYearMax: yMax } = f;
    if (
      !loc &&
      !ranges &&
      !stages &&
      !cats &&
      fromDay === null &&
      toDay === null &&
      eMin === undefined &&
      eMax === undefined &&
      yMin === undefined &&
      yMax === undefined
    ) {
      return null;
    }

    const out = new Int32Array(this.n);
    let count = 0;
    for (let r = 0; r < this.n; r++) {
      if (loc) {
        if (anyOffice ? !this.placeCodes.matchesAny(r, loc) : !(loc[this.hqCountry[r] as number] || loc[this.hqSubdivision[r] as number])) continue;
      }
      if (ranges && !ranges[this.range[r] as number]) continue;
      if (stages && !stages[this.stage[r] as number]) continue;
      // `!(x >= min)` rather than `x < min`: a NaN (null) value must fail too.
      if (eMin !== undefined && !((this.employees[r] as number) >= eMin)) continue;
      if (eMax !== undefined && !((this.employees[r] as number) <= eMax)) continue;
      if (yMin !== undefined && !((this.founded[r] as number) >= yMin)) continue;
      if (yMax !== undefined && !((this.founded[r] as number) <= yMax)) continue;
      if (fromDay !== null && !((this.roundDay[r] as number) >= fromDay)) continue;
      if (toDay !== null && !((this.roundDay[r] as number) <= toDay)) continue;
      if (cats && !this.categories.matchesAny(r, cats)) continue;
      out[count++] = r;
    }
    return new FilteredRows(out.slice(0, count), this.n);
  }

  /**
   * The hits ranked offset..offset+size by exact cosine (dot product of unit vectors, vector-matrix.ts)
   * desc, id asc, at or above minScore, among the rows passing the filter (`filtered`, all
   * when null) less `excludedIds`. Which rows are scored is the planner's choice (candidate-plan.ts).
   */
  rank(query: Float32Array, kind: VectorKind, filtered: FilteredRows | null, options: RankOptions): Hit[] {
    const k = options.offset + options.size;
    if (query.length !== this.dimension) throw new Error(`query vector has ${query.length} dimensions; the store holds ${this.dimension}`);
    if (k <= 0 || this.n === 0) return [];
    const excluded = options.excludedIds;
    const rows = candidateRows(this.planInput(query, kind, filtered, options));
    const minScore = options.minScore ?? Number.NEGATIVE_INFINITY;
    const heap = new TopK(k, this.ids);
    const ids = this.ids;
    this.vectors[kind].score(query, rows, rows ? rows.length : this.n, (batch, scores, n) => {
      for (let i = 0; i < n; i++) {
        const score = scores[i] as number;
        // Most rows fall short of the heap: the exclusion check is left for those that make it.
        if (score < minScore || score < heap.threshold) continue;
        const row = batch[i] as number;
        if (excluded.size === 0 || !excluded.has(ids[row] as number)) heap.offer(row, score);
      }
    });
    return heap
      .sorted()
      .slice(options.offset)
      .map((row) => ({ id: this.ids[row.row] as number, score: row.score }));
  }

  /**
   * The first graph search rank() would make with these arguments, made on `thread` while the caller
   * goes on (graph-search-thread.ts); none when rank() would scan.
   */
  async prefetchGraphSearch(query: Float32Array, kind: VectorKind, filtered: FilteredRows | null, options: RankOptions, thread: GraphSearchThread) {
    const first = firstGraphSearch(this.planInput(query, kind, filtered, options));
    if (!first || !this.graphs) return undefined;
    return this.graphs.graph(kind).prefetch(query, first.count, first.breadth, thread, first.filter ?? undefined);
  }

  /** What the query planner (candidate-plan.ts) decides from. */
  private planInput(query: Float32Array, kind: VectorKind, filtered: FilteredRows | null, options: RankOptions): PlanInput {
    return {
      graphs: this.graphs,
      exactBelow: this.exactBelow,
      query,
      kind,
      k: options.offset + options.size,
      rowCount: this.n,
      filtered,
      excludedIds: options.excludedIds,
      rowOf: (id) => this.rowById.get(id),
      idTable: this.rowById.table,
      prefetched: options.prefetched,
      storedVector: options.storedVector,
    };
  }

  /** The `size` best organizations by the words of their `kind` text (BM25), among the rows passing the filter (all when null) less `excludedIds`. */
  searchText(text: string, kind: VectorKind, filtered: FilteredRows | null, excludedIds: ReadonlySet<number>, size: number): Hit[] {
    this.indexTexts();
    const excluded = new Set([...excludedIds].flatMap((id) => this.rowById.get(id) ?? []));
    const bitmap = filtered?.bitmap ?? null;
    const terms = lexicalTerms(text);
    // A few excluded rows (a seed, say) are searched past: the first `size` of the others are among
    // the first size + excluded of all, and the shared bitmap (a flag a row) is not copied to clear them.
    const hits =
      excluded.size <= size
        ? this.lexical[kind].search(terms, size + excluded.size, bitmap, this.ids, filtered?.rows ?? null).filter((hit) => !excluded.has(hit.row))
        : this.lexical[kind].search(terms, size, withCleared(bitmap, this.n, excluded), this.ids);
    return hits.slice(0, size).map((hit) => ({ id: this.ids[hit.row] as number, score: hit.score }));
  }

  /** The terms of organization `id`'s `kind` text (`texts`, as setTexts indexes them) with their termStatistics; null without any. */
  organizationTermStatistics(id: number, texts: LexicalTexts, kind: VectorKind): TextTermStatistics | null {
    const row = this.rowById.get(id);
    const text = row === undefined ? null : this.indexedText(row, texts, kind);
    const frequency = termFrequency(text ? lexicalTerms(text) : []);
    return frequency.size ? { frequency, statistics: this.termStatistics([...frequency.keys()], kind) } : null;
  }

  /** How many `kind` texts hold each term, and how many there are. */
  termStatistics(terms: readonly string[], kind: VectorKind): TermStatistics {
    this.indexTexts();
    const lexical = this.lexical[kind];
    return { documents: lexical.size, docFrequency: new Map(terms.map((t) => [t, lexical.docFrequency(t)])) };
  }

  /** Exact cosine of `query` against the `kind` vector of each of `ids` that has one. */
  similarities(query: Float32Array, kind: VectorKind, ids: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    const rows = this.rowsOf(ids);
    this.vectors[kind].score(query, rows, rows.length, (batch, scores, n) => {
      for (let i = 0; i < n; i++) out.set(this.ids[batch[i] as number] as number, scores[i] as number);
    });
    return out;
  }

  /** The rows of those of `ids` that exist. */
  private rowsOf(ids: readonly number[]): number[] {
    return ids.flatMap((id) => this.rowById.get(id) ?? []);
  }

  /** Both exact cosines of `query` and the stated-customers flag of each of `ids` that exists (similarities' cosines). */
  customerBaseFigures(query: Float32Array, ids: readonly number[]): Map<number, CustomerBaseFigures> {
    const out = new Map<number, CustomerBaseFigures>();
    const rows = this.rowsOf(ids);
    this.vectors.profile.score(query, rows, rows.length, (batch, scores, n) => {
      for (let i = 0; i < n; i++) {
        const row = batch[i] as number;
        out.set(this.ids[row] as number, { customer: null, profile: scores[i] as number, customerStated: this.customerStated[row] === 1 });
      }
    });
    this.vectors.customer.score(query, rows, rows.length, (batch, scores, n) => {
      for (let i = 0; i < n; i++) (out.get(this.ids[batch[i] as number] as number) as CustomerBaseFigures).customer = scores[i] as number;
    });
    return out;
  }

  /** Everything the index holds but its graphs, as a JSON-able meta and named arrays (see snapshot-file.ts). */
  snapshot(): { meta: MemorySnapshotMeta; arrays: Record<string, SnapshotArray | SnapshotArray[]> } {
    this.indexTexts();
    const n = this.n;
    const d = this.dimension;
    const [placeStarts, placeValues] = this.placeCodes.snapshot(n);
    const [categoryStarts, categoryValues] = this.categories.snapshot(n);
    const lexical = { profile: this.lexical.profile.snapshot(), customer: this.lexical.customer.snapshot() };
    const meta: MemorySnapshotMeta = {
      n,
      dimension: d,
      codes: { places: this.places.values(), categories: this.categoryCodes.values(), ranges: this.rangeCodes.values(), stages: this.stageCodes.values() },
      lexical: { profile: lexical.profile.meta, customer: lexical.customer.meta },
    };
    const columns: Record<string, SnapshotArray | SnapshotArray[]> = {
      ids: this.ids.subarray(0, n),
      hqCountry: this.hqCountry.subarray(0, n),
      hqSubdivision: this.hqSubdivision.subarray(0, n),
      employees: this.employees.subarray(0, n),
      founded: this.founded.subarray(0, n),
      roundDay: this.roundDay.subarray(0, n),
      range: this.range.subarray(0, n),
      stage: this.stage.subarray(0, n),
      customerStated: this.customerStated.subarray(0, n),
      placeStarts,
      placeValues,
      categoryStarts,
      categoryValues,
    };
    for (const kind of ["profile", "customer"] as const) {
      for (const [name, array] of Object.entries(lexical[kind].arrays)) columns[`${kind}.${name}`] = array;
      for (const [name, array] of Object.entries(this.vectors[kind].snapshot(n))) columns[`${kind}.vectors.${name}`] = array;
    }
    return { meta, arrays: columns };
  }

  /** The index a snapshot holds, its arrays read by `reader`. */
  static restore(meta: MemorySnapshotMeta, reader: SnapshotReader): MemoryIndex {
    const array = <T extends SnapshotArray>(name: string) => reader.array<T>(name);
    const index = new MemoryIndex(meta.dimension);
    const n = meta.n;
    const self = index as unknown as Record<string, unknown>;
    for (const name of ["ids", "hqCountry", "hqSubdivision", "employees", "founded", "roundDay", "range", "stage", "customerStated"]) {
      self[name] = array(name);
    }
    index.n = n;
    index.capacity = n;
    index.vectors = {
      profile: RowVectors.restore(meta.dimension, false, n, reader, "profile.vectors."),
      customer: RowVectors.restore(meta.dimension, true, n, reader, "customer.vectors."),
    };
    index.rowById = IdRows.of(index.ids, n);
    index.placeCodes = new CodeLists(array<Uint32Array<ArrayBuffer>>("placeStarts"), array<Uint32Array<ArrayBuffer>>("placeValues"));
    index.categories = new CodeLists(array<Uint32Array<ArrayBuffer>>("categoryStarts"), array<Uint32Array<ArrayBuffer>>("categoryValues"));
    Object.assign(self, {
      places: new Codes(meta.codes.places),
      categoryCodes: new Codes(meta.codes.categories),
      rangeCodes: new Codes(meta.codes.ranges),
      stageCodes: new Codes(meta.codes.stages),
    });
    // The word indexes' arrays are mapped, not read, as the vectors are: only ever read once saved
    // (a term's postings are copied at its first write), 340 MB at 1M.
    const mapped = <T extends SnapshotArray>(name: string) => reader.mapped<T>(name, reader.lengthOf(name))[0] as T;
    for (const kind of ["profile", "customer"] as const) {
      const arrays = Object.fromEntries(LEXICAL_ARRAYS.map((name) => [name, mapped(`${kind}.${name}`)])) as LexicalSnapshot["arrays"];
      index.lexical[kind] = LexicalIndex.restore({ meta: meta.lexical[kind], arrays });
    }
    return index;
  }

  private grow(atLeast = 0): void {
    // Doubling: a bulk load copies the columns about once in all (at 1.5 times, twice: a tenth of an
    // import's time at 100k, when the vector matrices were copied too; they now grow by chunks, vector-matrix.ts).
    const capacity = Math.max(1024, atLeast, this.capacity * 2);
    const resize = <T extends Float64Array | Uint32Array | Uint8Array>(old: T, length: number): T => {
      const next = new (old.constructor as new (n: number) => T)(length);
      next.set(old);
      return next;
    };
    this.ids = resize(this.ids, capacity);
    this.hqCountry = resize(this.hqCountry, capacity);
    this.hqSubdivision = resize(this.hqSubdivision, capacity);
    this.employees = resize(this.employees, capacity);
    this.founded = resize(this.founded, capacity);
    this.roundDay = resize(this.roundDay, capacity);
    this.range = resize(this.range, capacity);
    this.stage = resize(this.stage, capacity);
    this.customerStated = resize(this.customerStated, capacity);
    for (const vectors of Object.values(this.vectors)) vectors.reserveRows(capacity);
    this.capacity = capacity;
  }
}

/** A copy of `bitmap` (of all `n` rows when null) with the `rows` cleared. */
function withCleared(bitmap: Uint8Array | null, n: number, rows: ReadonlySet<number>): Uint8Array {
  const copy = bitmap ? bitmap.slice() : new Uint8Array(n).fill(1);
  for (const row of rows) copy[row] = 0;
  return copy;
}
