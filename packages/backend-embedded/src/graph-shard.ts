/**
 * One HNSW graph of a VectorGraph (usearch). A shard opened from its file is a memory-mapped view:
 * nothing is read at start, and every server process maps the same pages. A view cannot change, so
 * nodes removed from it are kept aside and left out of its hits; once they are many, when the shard
 * is saved, or when a node is added to it, it is copied into memory (without them).
 */
import { rmSync, statSync } from "node:fs";
import type { VectorKind } from "@orgsim/core";
import { filteredGraphSearch, type GraphView, openGraphView } from "@orgsim/native-kernel";
import usearch from "usearch";
import { identityOf, type ShardMatches, type ViewSearch } from "./graph-search-thread";

const { Index, MetricKind, ScalarKind } = usearch;

/** The narrowest breadth a search of ours asks for (see search()). */
export const MIN_SEARCH_BREADTH = 32;

/**
 * usearch searches max(expansion_search, k) wide, and every search of ours asks for at least
 * MIN_SEARCH_BREADTH, so this sets only how wide relinkStranded's first check (k = 1) looks. In a
 * 100k profile graph, 8 wide found all but 829 nodes at once, in 3.0 s against 5.1 s at 32 wide
 * (the rest are searched again CHECK_BREADTH wide: 0.4 s); the same 22 were not found either way.
 */
const FIRST_CHECK_BREADTH = 8;

/** usearch's options every graph shares: all a view of a saved shard needs (the construction breadth matters only when adding). */
export const VIEW_OPTIONS = { metric: MetricKind.Cos, quantization: ScalarKind.F16, connectivity: 32, expansion_search: FIRST_CHECK_BREADTH, multi: false };

export type GraphOptions = typeof VIEW_OPTIONS & { expansion_add: number };

/**
 * Each kind's graph parameters (measured in vector-graph.ts); saved graphs are rebuilt when they
 * change (GRAPH_FORMAT). A shard in memory adds nodes with these.
 */
export const GRAPH_OPTIONS: Record<VectorKind, GraphOptions> = {
  profile: { ...VIEW_OPTIONS, expansion_add: 128 },
  customer: { ...VIEW_OPTIONS, expansion_add: 256 },
};

const newIndex = (dimension: number, options: GraphOptions) => new Index({ dimensions: dimension, ...options });

/** What identityOf makes of a file that is gone: the identity of no file. */
const NO_FILE = { dev: -1, ino: -1, size: -1, mtimeMs: -1 };

/** A view with more removed nodes than this is copied into memory (about a second at 100k nodes): a search that meets removed nodes asks again for that many more. */
const MAX_REMOVED = 1_000;
/** How wide a vector just added is searched for before its node counts as stranded (see relinkStranded). */
const CHECK_BREADTH = 128;

export interface ShardHits {
  ids: number[];
  distances: number[];
}

/**
 * A filter tested inside a graph's walk (filteredSearch): a node passes when its organization's row,
 * found through IdRows' table (id-rows.ts), is flagged in `allowed`, or when it is in `alwaysKeys`.
 */
export interface WalkFilter {
  idTable: Float64Array;
  rowTable: Int32Array;
  allowed: Uint8Array;
  /** Nodes passed whatever their row (sorted ascending): a node with twins, which the caller filters. */
  alwaysKeys: Float64Array;
}

/** A view's search made beforehand (on the graph search thread), and its matches. */
export interface PrefetchedMatches {
  search: ViewSearch;
  matches: ShardMatches;
}

export class GraphShard {
  /** Nodes removed from a view, which still holds them. */
  private readonly removed = new Set<number>();
  /** The view's file mapped again by native code, for filteredSearch: opened at its first use; null when it cannot be. */
  private walkView: GraphView | null | undefined = undefined;

  private constructor(
    private index: InstanceType<typeof Index>,
    private readonly options: GraphOptions,
    /** The file a view maps; null for a shard in memory. */
    private viewOf: string | null,
    /** The identity of the file the view maps (graph-search-thread.ts); null when unsure (replaced while it was mapped). */
    private readonly viewIdentity: string | null = null,
  ) {}

  static create(dimension: number, options: GraphOptions): GraphShard {
    return new GraphShard(newIndex(dimension, options), options, null);
  }

  /** The shard saved in `file`, mapped (see the class comment). */
  static open(file: string, dimension: number, options: GraphOptions): GraphShard {
    const before = identityOf(statSync(file));
    const index = newIndex(dimension, options);
    index.view(file);
    if (index.dimensions() !== dimension) throw new Error(`${file} holds ${index.dimensions()}-d vectors, not ${dimension}-d`);
    return new GraphShard(index, options, file, identityOf(statSync(file)) === before ? before : null);
  }

  /**
   * The first usearch search that search(count, breadth) makes, or with `walk` the first walk of
   * filteredSearch(count, breadth, walk), for another thread to make on its own view; null for a
   * shard in memory.
   */
  viewSearch(count: number, breadth: number, walk?: WalkFilter): ViewSearch | null {
    if (!this.viewOf || !this.viewIdentity) return null;
    const view = { file: this.viewOf, identity: this.viewIdentity };
    return walk ? { ...view, asked: count, walk: { ...walk, breadth: Math.max(count, breadth) } } : { ...view, asked: Math.max(count, breadth) };
  }

  /** Whether the shard is a view of its saved file (searchable on the graph search thread). */
  get isView(): boolean {
    return this.viewOf !== null;
  }

  /** Nodes in the shard (removed ones aside). */
  get size(): number {
    return this.index.size() - this.removed.size;
  }

  contains(id: number): boolean {
    return !this.removed.has(id) && (this.index.contains(BigInt(id)) as boolean);
  }

  add(ids: readonly number[], matrix: Float32Array, threads: number): void {
    // A view cannot change: it is copied into memory at its first new node (not at open, where
    // reading a shard of 100k nodes cost each server process 0.2 s of its start).
    if (this.viewOf) this.copyIntoMemory(`${this.viewOf}.${process.pid}.copy.tmp`);
    const keys = BigUint64Array.from(ids, BigInt);
    this.index.add(keys, matrix, threads);
    if (threads > 1 && ids.length > 1) this.relinkStranded(keys, matrix, threads);
  }

  /**
   * usearch's concurrent add can leave a node stored but reachable by no search
   * (unum-cloud/USearch#735, unfixed in 2.26.2): 300 random 16-d vectors added with 2 threads
   * stranded one or more nodes in 2 builds of 3. So each added vector is searched for; a node no
   * search finds, even CHECK_BREADTH wide, is removed and added again alone, which links it.
   */
  private relinkStranded(keys: BigUint64Array, matrix: Float32Array, threads: number): void {
    const d = this.index.dimensions();
    const nearest = this.index.search(matrix, 1, threads);
    const stranded: number[] = [];
    keys.forEach((key, row) => {
      if (nearest.keys[row] === key) return;
      const vector = matrix.subarray(row * d, (row + 1) * d);
      if (!this.index.search(vector, CHECK_BREADTH, 1).keys.includes(key)) stranded.push(row);
    });
    for (const row of stranded) this.index.remove(keys[row] as bigint);
    for (const row of stranded) this.index.add(keys[row] as bigint, matrix.subarray(row * d, (row + 1) * d), 1);
  }

  remove(id: number): void {
    if (!this.viewOf) {
      this.index.remove(BigInt(id));
      return;
    }
    this.removed.add(id);
    if (this.removed.size > MAX_REMOVED) this.copyIntoMemory(`${this.viewOf}.${process.pid}.copy.tmp`);
  }

  /**
   * About the `count` nearest nodes, nearest first, searching `breadth` (at least MIN_SEARCH_BREADTH)
   * wide when count is less. `prefetched` answers the search it made beforehand while this is still
   * the view it searched (the same file's search always answers the same).
   */
  search(query: Float32Array, count: number, breadth: number, prefetched?: PrefetchedMatches): ShardHits {
    const wide = Math.max(count, breadth);
    for (let asked = wide; ; asked = wide + this.removed.size) {
      const matches = this.isPrefetched(prefetched, asked) ? prefetched.matches : this.index.search(query, asked, 1);
      const hits: ShardHits = { ids: [], distances: [] };
      for (let i = 0; i < matches.keys.length && hits.ids.length < count; i++) {
        const id = Number(matches.keys[i]);
        if (this.removed.has(id)) continue;
        hits.ids.push(id);
        hits.distances.push(matches.distances[i] as number);
      }
      // Removed nodes took places: ask once more, for as many more as there are removed nodes.
      if (hits.ids.length === count || matches.keys.length < asked || asked > wide) return hits;
    }
  }

  /** Whether filteredSearch can answer: the shard is a view of the file it mapped (see walkViewOf). */
  get filtersInWalk(): boolean {
    return this.walkViewOf() !== null;
  }

  /**
   * The `count` nearest nodes that pass `filter`, nearest first, searched `breadth` wide (at least
   * `count`) in nodes that pass: the filter is tested inside the walk (native-kernel's
   * graph_view.cpp), which goes on through nodes that fail. `prefetched` answers the walk made
   * beforehand with this very filter (on the graph search thread). Only while filtersInWalk.
   */
  filteredSearch(query: Float32Array, count: number, breadth: number, filter: WalkFilter, prefetched?: PrefetchedMatches): ShardHits {
    const view = this.walkViewOf();
    if (!view) throw new Error("filteredSearch: the shard is not a view of its file");
    for (let asked = count; ; asked = count + this.removed.size) {
      const wide = Math.max(asked, breadth);
      const { keys, distances } = this.isPrefetched(prefetched, asked, { filter, breadth: wide })
        ? prefetched.matches
        : walkOf(view, query, asked, wide, filter);
      const hits: ShardHits = { ids: [], distances: [] };
      for (let i = 0; i < keys.length && hits.ids.length < count; i++) {
        const id = Number(keys[i]);
        if (this.removed.has(id)) continue;
        hits.ids.push(id);
        hits.distances.push(distances[i] as number);
      }
      // Removed nodes took places: ask once more, for as many more as there are removed nodes.
      if (hits.ids.length === count || keys.length < asked || asked > count) return hits;
    }
  }

  /**
   * The native mapping of the view's file: the file the view mapped (its identity then and now), or
   * null (a shard in memory; a file replaced since, which the view still maps as it was).
   */
  private walkViewOf(): GraphView | null {
    if (this.walkView !== undefined) return this.walkView;
    const file = this.viewOf;
    const sameFile = () =>
      file !== null && this.viewIdentity !== null && identityOf(statSync(file, { throwIfNoEntry: false }) ?? NO_FILE) === this.viewIdentity;
    this.walkView = null;
    if (sameFile()) {
      const view = openGraphView(file as string);
      if (sameFile()) this.walkView = view;
    }
    return this.walkView;
  }

  /** Whether `prefetched` is the search (or with `walk`, the walk) this view would make now. */
  private isPrefetched(
    prefetched: PrefetchedMatches | undefined,
    asked: number,
    walk?: { filter: WalkFilter; breadth: number },
  ): prefetched is PrefetchedMatches {
    const search = prefetched?.search;
    if (search === undefined || search.asked !== asked || search.file !== this.viewOf || search.identity !== this.viewIdentity) return false;
    if (!walk || !search.walk) return !walk && !search.walk;
    const { filter, breadth } = walk;
    const made = search.walk;
    return (
      made.breadth === breadth &&
      made.allowed === filter.allowed &&
      made.idTable === filter.idTable &&
      made.rowTable === filter.rowTable &&
      made.alwaysKeys === filter.alwaysKeys
    );
  }

  save(file: string): void {
    if (this.removed.size > 0) this.copyIntoMemory(file);
    this.index.save(file);
  }

  /** Replaces a view by a copy in memory without its removed nodes, through `file` (the view's own file may be gone). */
  private copyIntoMemory(file: string): void {
    const copy = newIndex(this.index.dimensions(), this.options);
    this.index.save(file);
    copy.load(file);
    if (file.endsWith(".copy.tmp")) rmSync(file, { force: true });
    for (const id of this.removed) copy.remove(BigInt(id));
    this.removed.clear();
    this.index = copy;
    this.viewOf = null;
    this.walkView = null;
  }
}

/** The `asked` nearest nodes of `view` passing `filter`, `breadth` wide (filteredGraphSearch). */
function walkOf(view: GraphView, query: Float32Array, asked: number, breadth: number, filter: WalkFilter): ShardMatches {
  const { idTable, rowTable, allowed, alwaysKeys } = filter;
  const keys = new Float64Array(asked);
  const distances = new Float32Array(asked);
  const found = filteredGraphSearch(view, query, asked, breadth, idTable, rowTable, allowed, alwaysKeys, keys, distances);
  return { keys: keys.subarray(0, found), distances: distances.subarray(0, found) };
}
