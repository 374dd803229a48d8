/**
 * Which rows a vector ranking scores exactly: the query planner of the embedded store.
 *
 * Filters stay pre-filters, as in Lucene: when few rows pass them (or the store is small) every
 * passing row is scored, exactly; otherwise the graph proposes candidates, oversampled by the
 * inverse of the filter's selectivity, and those passing the filter are kept. If fewer than the
 * page needs pass, the further nodes that search found come next, then the graph is asked for more
 * (as many as the rate that passed predicts), and past MAX_GRAPH_CANDIDATES (or the graph's size,
 * or what the graph can reach) the passing rows are scanned instead: a filtered query fills its
 * page whenever enough organizations match.
 * Organizations written since the graph last caught up are always scanned exactly.
 */
import type { VectorKind } from "@orgsim/core";
import type { FilteredRows } from "./filtered-rows";
import type { GraphFilter, GraphHit, GraphPrefetch, VectorGraph } from "./vector-graph";
import type { VectorGraphs } from "./vector-graphs";

/** Up to this many candidate rows, a brute-force scan (well under 0.5 µs a row at 384-d, vector-matrix.ts) beats planning. */
export const DEFAULT_EXACT_BELOW = 5_000;
/** A graph search deeper than this costs more than scanning the rows a filter that selective lets through. */
const MAX_GRAPH_CANDIDATES = 4_096;
/**
 * What a graph search costs per unit of breadth (summed over the shards it searches), in rows an
 * exact scan scores in that time: a shard of 100k searched 128 wide in about 0.8 ms (6-8 µs a
 * unit) where the scan scored a row in about 0.54 µs (simsimd: a restrictive filter's 26k rows at 1M
 * in 16.8 ms p50, the whole request included; 1 µs with the JavaScript loop before, when this was 8).
 * At 1M (10 shards) those 26k rows once asked 1,900 candidates of every shard, and took 114 ms.
 * The kernel of four rows at a time (vector-matrix.ts, then in WebAssembly, now native) scans faster
 * again (about 0.3 µs a row in a 1M profile, 0.1 µs more for the loop around it); this was not
 * tuned again after it.
 */
const GRAPH_COST_IN_ROWS = 12;
/** The graph is asked for this many candidates beyond the page (the graph's search breadth grows with it: recall). */
const EXTRA_GRAPH_CANDIDATES = 40;
/**
 * A query off the data (a text's embedding, not a stored vector) needs a wider search for the same
 * recall. At 100k, recall at 10 of descriptions (unfiltered / broad filter) was 0.980 / 0.975 at 50
 * candidates (and at 128: the graph searches 128 wide anyway), 0.985 / 0.985 at 176, 1.000 / 1.000
 * at 256, for about 1.5 ms more a ranking.
 */
const OFF_DATA_CANDIDATES = 256;
/**
 * How wide each shard is searched for a query off the data. At 1M (shards of 100k), the bench's
 * description queries found 0.985 of the exact top 10 at 52 wide, 0.995 at 128 and 1.000 at 256;
 * its customer-base queries, over customer vectors (extracted sentences, which repeat across
 * organizations in dense clusters), found 0.78 at 52, 0.96 at 256 and 0.987 at 1,024.
 */
const OFF_DATA_BREADTH: Record<VectorKind, number> = { profile: 256, customer: 1_024 };
/** A nearest node this close (cosine distance, in the graph's f16 precision) means the query is a stored vector. */
const ON_DATA_DISTANCE = 1e-3;

export interface PlanInput {
  graphs: VectorGraphs | null;
  /** Rows below which the rows passing the filter are scanned exactly. */
  exactBelow: number;
  query: Float32Array;
  kind: VectorKind;
  /** Hits the page needs (offset + size). */
  k: number;
  /** All rows in the index. */
  rowCount: number;
  /** Rows passing the filter; null when everything passes. */
  filtered: FilteredRows | null;
  excludedIds: ReadonlySet<number>;
  rowOf(id: number): number | undefined;
  /** IdRows' table of each id's row (id-rows.ts), for a filter tested inside the graph's walk. */
  idTable?: { ids: Float64Array; rows: Int32Array };
  /** The graph's first search, made beforehand (firstGraphSearch, VectorGraph.prefetch). */
  prefetched?: GraphPrefetch;
  /**
   * Whether the query is a stored vector (VectorQuery.storedVector). A text's embedding (false) is
   * searched wide at once; when unknown, the graph's nearest node tells (ON_DATA_DISTANCE).
   */
  storedVector?: boolean;
}

/** The rows to score exactly; null means every row (less excluded ones, which the scorer skips). */
export function candidateRows(input: PlanInput): Int32Array | null {
  const { graphs, filtered, rowCount } = input;
  const passing = filtered ? filtered.length : rowCount;
  if (!graphs || passing <= input.exactBelow) return filtered?.rows ?? null;
  const allowed = filtered?.bitmap ?? null;
  const fromGraph = graphCandidates(input, graphs, allowed, passing);
  if (!fromGraph) return filtered?.rows ?? null;
  for (const id of graphs.pendingIds(input.kind)) {
    const row = input.rowOf(id);
    if (row !== undefined && (!allowed || allowed[row])) fromGraph.add(row);
  }
  return Int32Array.from(fromGraph);
}

/**
 * The graph search a ranking starts with, as graphCandidates makes it: its count and breadth, and
 * the filter its walk tests (null: a search without it); null when the ranking scans instead.
 */
export function firstGraphSearch(input: PlanInput): { count: number; breadth: number; filter: GraphFilter | null } | null {
  const { graphs, filtered, rowCount } = input;
  const passing = filtered ? filtered.length : rowCount;
  if (!graphs || passing <= input.exactBelow) return null;
  const graph = graphs.graph(input.kind);
  const { first, walk, walked, walkFirst } = opening(input, graph, filtered?.bitmap ?? null, passing);
  if (!worthAsking(input, graph, passing, first.count, first.breadth)) return null;
  return walkFirst ? { count: walked, breadth: first.breadth, filter: walk } : { ...first, filter: null };
}

/**
 * How a ranking opens, decided once for graphCandidates and firstGraphSearch (whose search made
 * beforehand must be the one graphCandidates then makes): the first search without the filter,
 * the walkable filter and what its walk asks for, and whether the walk comes first.
 */
function opening(input: PlanInput, graph: VectorGraph, allowed: Uint8Array | null, passing: number) {
  const first = firstAsk(input, passing);
  const walk = walkableFilter(input, graph, allowed, passing);
  const walked = walkedCount(input);
  return { first, walk, walked, walkFirst: walk !== null && walkIsCheaper(graph, first, walked) };
}

/** The graph's candidate rows that pass the filter, at least k of them when the graph has them; null when a scan is cheaper. */
function graphCandidates(input: PlanInput, graphs: VectorGraphs, allowed: Uint8Array | null, passing: number): Set<number> | null {
  const { k, excludedIds, rowOf } = input;
  const graph = graphs.graph(input.kind);
  const { first, walk, walked, walkFirst } = opening(input, graph, allowed, passing);
  if (walk && walkFirst) return walkFilteredCandidates(input, graph, walk, passing, first, walked);
  // Each shard is searched at least `breadth` wide: 0 until the query turns out to be off the data.
  let { count, breadth } = first;
  while (worthAsking(input, graph, passing, count, breadth)) {
    const beyond: GraphHit[] = [];
    const hits = graph.search(input.query, count, breadth, input.prefetched, allowed ? beyond : undefined);
    if (breadth === 0 && (hits[0]?.distance ?? 0) > ON_DATA_DISTANCE) {
      const wider = offDataSearch(input.kind, count);
      const searchAgain = graph.searchBreadth(wider.count, wider.breadth) > graph.searchBreadth(count);
      breadth = wider.breadth;
      if (searchAgain) {
        count = wider.count;
        continue;
      }
    }
    const rows = new Set<number>();
    const keep = (found: readonly GraphHit[]) => {
      for (const { id } of found) {
        const row = rowOf(id);
        if (row !== undefined && (!allowed || allowed[row]) && !excludedIds.has(id)) rows.add(row);
      }
    };
    keep(hits);
    // The nearest fell short of the filter: the rest of what the search found before searching again
    // (at 1M, a hybrid ranking's broad filter searched twice for 113 of 200 organizations, then never).
    // Only then: re-scoring them costs more than it saves (0.5 ms a request at 1M).
    if (rows.size < k) keep(beyond);
    if (rows.size >= k) return rows;
    // The graph could not reach as many vectors as asked though it holds them: scan instead.
    if (hits.length < count) return null;
    // Short after a search without the filter (narrow enough not to walk): the walk finds what
    // passes at once, where a second search would ask twice as wide.
    if (walk) return withRows(walkFilteredCandidates(input, graph, walk, passing, first, walked), rows);
    count = nextCount(count, hits.length + beyond.length, rows.size, k);
  }
  return null;
}

/**
 * The graph's candidates when each shard tests the filter inside its walk (VectorGraph.filteredSearch):
 * the page and EXTRA_GRAPH_CANDIDATES that pass, asked at once, where searching and filtering after
 * asks for more whenever the filter passes fewer of a query's neighbours than of all rows. At 100k
 * under the bench's broad filter, the 101 nearest that pass took 1.3 ms a query against 1.8
 * (docs/benchmarks.md). Taken first when that search would be wider than the graph is searched
 * anyway (walkIsCheaper), on the graph search thread when a core is spare (firstGraphSearch); taken
 * second when a search without the filter found too few that pass.
 */
function walkFilteredCandidates(
  input: PlanInput,
  graph: VectorGraph,
  filter: GraphFilter,
  passing: number,
  first: { count: number; breadth: number },
  walked: number,
): Set<number> | null {
  const { k, excludedIds, rowOf } = input;
  const { allowed } = filter;
  // What it costs is weighed as for searching without the filter (`first`): the walk passes as many nodes.
  let unfiltered = first.count;
  let count = walked;
  while (worthAsking(input, graph, passing, unfiltered, first.breadth)) {
    const hits = graph.filteredSearch(input.query, count, first.breadth, filter, input.prefetched);
    const rows = new Set<number>();
    for (const { id } of hits) {
      const row = rowOf(id);
      if (row !== undefined && allowed[row] && !excludedIds.has(id)) rows.add(row);
    }
    if (rows.size >= k) return rows;
    // The walk reached no more nodes that pass though the filter lets more through: scan instead.
    if (hits.length < count) return null;
    count *= 2;
    unfiltered *= 2;
  }
  return null;
}

/** What the walk with the filter asks for: the page and the margin, all passing it, and the excluded ids. */
const walkedCount = (input: PlanInput) => input.k + EXTRA_GRAPH_CANDIDATES + input.excludedIds.size;

/**
 * Whether the walk with the filter beats searching without it and filtering after. Measured at 100k
 * under the bench's broad filter, 16 connections (docs/benchmarks.md): when the filter makes the
 * search without it wider than the graph is searched anyway, the walk saves the second searches (a
 * hybrid ranking's 101 asked for 302: 4.55 against 5.16 ms of CPU a request); when not, it costs
 * more (a page of 10 asked for 108, fewer than the 128 searched anyway: 2.0 against 1.8 ms).
 */
function walkIsCheaper(graph: VectorGraph, first: { count: number; breadth: number }, walked: number): boolean {
  return graph.searchBreadth(first.count, first.breadth) > graph.searchBreadth(walked, first.breadth);
}

/**
 * The filter as the graph's walk tests it, where it can: queries known to be on or off the data,
 * over one shard (over several it cost more: at 1M, ten shards, 11.5 against 9.9 ms of CPU a
 * request); otherwise null.
 */
function walkableFilter(input: PlanInput, graph: VectorGraph, allowed: Uint8Array | null, passing: number): GraphFilter | null {
  const { idTable } = input;
  if (!allowed || !idTable || input.storedVector === undefined || graph.searchedShardCount !== 1 || !graph.filtersInWalk) return null;
  return { idTable: idTable.ids, rowTable: idTable.rows, allowed, share: passing / input.rowCount };
}

/** `found` with `rows` added; null (scan instead) stays null. */
function withRows(found: Set<number> | null, rows: ReadonlySet<number>): Set<number> | null {
  if (found) for (const row of rows) found.add(row);
  return found;
}

/**
 * The first search's count and breadth. Its count: the page and EXTRA_GRAPH_CANDIDATES,
 * oversampled by the inverse of the filter's selectivity, and the excluded ids; for a query known
 * to be off the data, at least OFF_DATA_CANDIDATES, OFF_DATA_BREADTH wide (at 1M, a description
 * first searched the ten shards narrowly only to find itself off the data and search them again).
 */
function firstAsk(input: PlanInput, passing: number): { count: number; breadth: number } {
  const count = Math.ceil(((input.k + EXTRA_GRAPH_CANDIDATES) * input.rowCount) / passing) + input.excludedIds.size;
  return input.storedVector === false ? offDataSearch(input.kind, count) : { count, breadth: 0 };
}

/** A search for `count` candidates of a query off the data: at least OFF_DATA_CANDIDATES, each shard OFF_DATA_BREADTH wide. */
const offDataSearch = (kind: VectorKind, count: number) => ({ count: Math.max(count, OFF_DATA_CANDIDATES), breadth: OFF_DATA_BREADTH[kind] });

/**
 * Whether asking the graph for `count`, `breadth` wide, beats scanning the `passing` rows. Asking
 * it for all it holds costs more than scanning, and HNSW may not reach all of it (long runs of
 * identical vectors, holes left by deletes): a scan is exact. exactBelow 0 asks the graph whatever
 * it costs (tests of the graph paths).
 */
function worthAsking(input: PlanInput, graph: VectorGraph, passing: number, count: number, breadth: number): boolean {
  const cheaperThanScan = input.exactBelow === 0 || graph.searchBreadth(count, breadth) * GRAPH_COST_IN_ROWS < passing;
  return count <= MAX_GRAPH_CANDIDATES && count < graph.nodes && cheaperThanScan;
}

/**
 * How many candidates to ask for after asking `count` found `seen` hits, `passing` of the k rows
 * needed. A filter often passes fewer of a query's neighbours than of all rows (organizations like
 * one in Europe are mostly in Europe): at 1M, a filter on headquarters in the US or Canada (47 % of
 * rows) passed 52-85 of the 298 nearest for half of 200 organizations tried. The rate seen predicts
 * the count (with the EXTRA_GRAPH_CANDIDATES margin), at least twice the last; four times when
 * nothing passed.
 */
function nextCount(count: number, seen: number, passing: number, k: number): number {
  if (passing === 0) return 4 * count;
  return Math.max(2 * count, Math.ceil((seen * (k + EXTRA_GRAPH_CANDIDATES)) / passing));
}
