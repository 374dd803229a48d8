/**
 * One approximate-nearest-neighbour graph (HNSW, from the usearch library) over the vectors of
 * one kind, keyed by organization id. It only proposes candidates: the memory index re-scores
 * them with the float vectors, so reported cosines stay exact whatever the graph stores.
 *
 * Chosen by measurement (2 threads). On the 100k bench corpus (bge-small) description queries
 * found 0.70 of the exact top 10 with connectivity 16, construction breadth 128 and search breadth
 * 64 (0.95 at 512); connectivity 32 does far better. On 2026-11-28 (AMD EPYC; graphs of 100k bench
 * vectors; the graph's own top 10 against the exact one, 40 descriptions and 30 customer bases):
 * - profile graphs (f16): built 256 wide, 85.6 s, found 1.000 searched 256 wide; built 128 wide,
 *   38.2 s, found 1.000 too (0.9775 searched 128 wide, against 0.9975). i8 built 128 wide took
 *   25.2 s and found 1.000, but its coarse distances cannot order near-identical vectors: of the
 *   top 100 in a tight cluster (a test of 16-d vectors) it proposed 0.71, where the test needs 0.98.
 * - customer graphs lose recall when built narrower (searched 1,024 wide: 0.943 built 256 wide,
 *   0.920 at 192, 0.827 at 128), so they stay 256 wide.
 *
 * A graph holds at most SHARD_NODES nodes; more go to further graphs (shards), all searched, as
 * Lucene searches one graph per segment. At 1M bench organizations one graph of them all found
 * only 0.60 of the exact top 10 at 50 candidates (0.86 at 800): the data's dense clusters of
 * near-equidistant vectors defeat a single graph, where Elasticsearch's 41 segment graphs found
 * 1.000 on the same data.
 */
import { availableParallelism } from "node:os";
import { type GraphOptions, GraphShard, MIN_SEARCH_BREADTH, type PrefetchedMatches, type WalkFilter } from "./graph-shard";
import type { GraphSearchThread } from "./graph-search-thread";
/** Nodes per shard: 100k organizations are one graph, as measured above. */
export const SHARD_NODES = 100_000;
/** How wide one graph is searched (at least): at 100k, 0.9975 of the exact top 10 (see above). */
const SEARCH_BREADTH = 128;
/** Each of several shards is asked for this many times its even share of a search's count (at least MIN_SEARCH_BREADTH). */
const SHARD_OVERSAMPLING = 2;
/** Names the parameters above, recorded with a saved graph. */
export const GRAPH_FORMAT = "usearch-hnsw-f16-m32-shards100k-profile-efc128-customer-efc256";

/** The first searches of a graph search's shards, made beforehand on the graph search thread (see prefetch). */
export type GraphPrefetch = ReadonlyMap<GraphShard, PrefetchedMatches>;

export interface GraphHit {
  id: number;
  /** Cosine distance in the graph's own (f16) precision: for ordering candidates only. */
  distance: number;
}

/** A filter a graph tests inside each shard's walk (filteredSearch): the rows that pass, and the share of all rows they are. */
export interface GraphFilter extends Omit<WalkFilter, "alwaysKeys"> {
  share: number;
}

/** How one shard is searched: for `count` nodes, `breadth` wide. */
type ShardSearch = (shard: GraphShard, count: number, breadth: number) => GraphHit[];

/** Where the graph reads the current vector of an id, and every id of the store (to find twins of vectors it loaded). */
export interface GraphVectors {
  vectorOf(id: number): Float32Array | null;
  allIds(): Iterable<number>;
}

/**
 * Identical vectors (duplicate organizations) are one node of the graph, their "twins" hang off
 * it: HNSW reaches only part of a long run of equal vectors, and a ranking orders ties by id, so
 * every twin must come with the node the search finds. It also keeps the graph well connected.
 */
export class VectorGraph {
  /** New nodes go to the last shard until it holds shardNodes (a mapped one is copied into memory first: GraphShard.add). */
  private shards: GraphShard[] = [];
  /** A node's id -> the other ids sharing its vector; a twin's id -> its node's id. */
  private readonly twins = new Map<number, number[]>();
  private readonly nodeOf = new Map<number, number>();
  /** Hash of a vector -> the node holding it; built on the first add (all nodes of a loaded graph hashed then). */
  private byHash: Map<number, number> | null = null;
  /** The nodes that have twins, ascending (filteredSearch passes them whatever the filter); null once twins change. */
  private twinNodes: Float64Array | null = null;

  constructor(
    readonly dimension: number,
    private readonly vectors: GraphVectors,
    /** usearch's parameters of this graph's shards (GRAPH_OPTIONS of its kind). */
    private readonly options: GraphOptions,
    private readonly shardNodes = SHARD_NODES,
  ) {}

  /** Ids in the graph, twins included. */
  get size(): number {
    return this.nodes + this.nodeOf.size;
  }

  /** Whether a shard is a view of its saved file (see prefetch). */
  get hasViews(): boolean {
    return this.shards.some((shard) => shard.isView);
  }

  /** Nodes the graph itself holds (twins aside): what a search can return at most. */
  get nodes(): number {
    let nodes = 0;
    for (const shard of this.shards) nodes += shard.size;
    return nodes;
  }

  private shardOf(node: number): GraphShard | undefined {
    return this.shards.find((shard) => shard.contains(node));
  }

  /** Adds vectors (a row-major matrix, one row per id) with every core; ids must not be in the graph. */
  add(ids: readonly number[], matrix: Float32Array): void {
    this.twinNodes = null;
    const byHash = this.hashes();
    const nodes: number[] = [];
    const rows: number[] = [];
    const added = new Set<number>();
    const d = this.dimension;
    for (const [i, id] of ids.entries()) {
      const vector = matrix.subarray(i * d, (i + 1) * d);
      const hash = hashOf(vector);
      const node = byHash.get(hash);
      if (node !== undefined && (added.has(node) || this.shardOf(node)) && this.sameVector(node, vector)) {
        const twins = this.twins.get(node);
        if (twins) twins.push(id);
        else this.twins.set(node, [id]);
        this.nodeOf.set(id, node);
        continue;
      }
      byHash.set(hash, id);
      added.add(id);
      nodes.push(id);
      rows.push(i);
    }
    for (let from = 0; from < nodes.length; ) {
      let last = this.shards.at(-1);
      if (!last || last.size >= this.shardNodes) {
        last = GraphShard.create(d, this.options);
        this.shards.push(last);
      }
      const to = Math.min(nodes.length, from + this.shardNodes - last.size);
      const shardMatrix = new Float32Array((to - from) * d);
      for (let k = from; k < to; k++) shardMatrix.set(matrix.subarray((rows[k] as number) * d, ((rows[k] as number) + 1) * d), (k - from) * d);
      last.add(nodes.slice(from, to), shardMatrix, availableParallelism());
      from = to;
    }
  }

  /** Removes an id; returns the twins of a removed node, which left the graph with it (the caller adds them again). */
  remove(id: number): number[] {
    this.twinNodes = null;
    const node = this.nodeOf.get(id);
    if (node !== undefined) {
      this.nodeOf.delete(id);
      const rest = (this.twins.get(node) ?? []).filter((t) => t !== id);
      if (rest.length > 0) this.twins.set(node, rest);
      else this.twins.delete(node);
      return [];
    }
    // An empty graph (an import into an empty store) holds nothing to remove: skip asking it for every id.
    const shard = this.shards.length === 0 ? undefined : this.shardOf(id);
    if (!shard) return [];
    shard.remove(id);
    const orphans = this.twins.get(id) ?? [];
    this.twins.delete(id);
    for (const twin of orphans) this.nodeOf.delete(twin);
    return orphans;
  }

  /**
   * About the `count` nearest nodes to `query`, nearest first, each followed by its twins (so
   * possibly more than `count` hits); each shard searched at least `breadth` wide. `prefetched`
   * (from prefetch) answers the shards' first searches it made. `beyond`, when given, receives the
   * nodes the shards' searches found past the nearest `count` (several shards are each asked for
   * twice their share), nearest first with their twins: candidates a filtered search gets for free.
   */
  search(query: Float32Array, count: number, breadth = 0, prefetched?: GraphPrefetch, beyond?: GraphHit[]): GraphHit[] {
    return this.searchShards((shard, count, breadth) => hitsOf(shard, query, count, breadth, prefetched?.get(shard)), count, breadth, beyond);
  }

  /** How many shards a search asks (those holding a node). */
  get searchedShardCount(): number {
    return this.searchedShards().length;
  }

  /** Whether every shard a search asks can test a filter inside its walk (filteredSearch). */
  get filtersInWalk(): boolean {
    const shards = this.searchedShards();
    return shards.length > 0 && shards.every((shard) => shard.filtersInWalk);
  }

  /**
   * As search, but only nodes passing `filter` come back (each followed by its twins, which the
   * caller filters: a node with twins always passes). The filter is tested inside each shard's
   * walk, which keeps `breadth` nodes that pass: `breadth` times the filter's share, so that the
   * walk goes about as far as an unfiltered search `breadth` wide. `prefetched` (from prefetch with
   * the same filter) answers the shards' first walks it made. Only while filtersInWalk.
   */
  filteredSearch(query: Float32Array, count: number, breadth: number, filter: GraphFilter, prefetched?: GraphPrefetch): GraphHit[] {
    const walk = this.walkFilter(filter);
    const search: ShardSearch = (shard, count, breadth) => {
      const { ids, distances } = shard.filteredSearch(query, count, walkBreadth(breadth, filter), walk, prefetched?.get(shard));
      return ids.map((id, i) => ({ id, distance: distances[i] as number }));
    };
    return this.searchShards(search, count, breadth);
  }

  /** `filter` as each shard's walk tests it: nodes with twins pass whatever their row. */
  private walkFilter(filter: GraphFilter): WalkFilter {
    return { idTable: filter.idTable, rowTable: filter.rowTable, allowed: filter.allowed, alwaysKeys: this.nodesWithTwins() };
  }

  /** The shards searched as firstSearches says (re-asked as reaskShards says), their hits merged with their twins. */
  private searchShards(search: ShardSearch, count: number, breadth: number, beyond?: GraphHit[]): GraphHit[] {
    if (count <= 0) return [];
    const first = this.firstSearches(count, breadth);
    const byShard = first.map(({ shard, count, breadth }) => search(shard, count, breadth));
    const nearest = first.length === 1 ? (byShard[0] as GraphHit[]) : this.reaskShards(first, byShard, search, count, breadth);
    if (beyond) this.withTwins(nearest.slice(count), beyond);
    return this.withTwins(nearest.slice(0, count), []);
  }

  private nodesWithTwins(): Float64Array {
    this.twinNodes ??= Float64Array.from(this.twins.keys()).sort();
    return this.twinNodes;
  }

  /** Appends `nodes` to `hits`, each followed by its twins; returns `hits`. */
  private withTwins(nodes: readonly GraphHit[], hits: GraphHit[]): GraphHit[] {
    for (const hit of nodes) {
      hits.push(hit);
      for (const twin of this.twins.get(hit.id) ?? []) hits.push({ id: twin, distance: hit.distance });
    }
    return hits;
  }

  /**
   * The first searches of each shard search(query, count, breadth) makes, or with `filter`
   * filteredSearch(query, count, breadth, filter), made on `thread` while the caller goes on; only
   * shards that are views can be searched there (see graph-search-thread.ts).
   */
  async prefetch(query: Float32Array, count: number, breadth: number, thread: GraphSearchThread, filter?: GraphFilter): Promise<GraphPrefetch> {
    const walk = filter && this.walkFilter(filter);
    const views = this.firstSearches(count, breadth).flatMap(({ shard, count, breadth }) => {
      const search = filter ? shard.viewSearch(count, walkBreadth(breadth, filter), walk) : shard.viewSearch(count, breadth);
      return search ? [{ shard, search }] : [];
    });
    const results = await thread.search(
      query,
      views.map((v) => v.search),
    );
    const prefetched = new Map<GraphShard, PrefetchedMatches>();
    results?.forEach((matches, i) => {
      const { shard, search } = views[i] as (typeof views)[number];
      if (matches) prefetched.set(shard, { search, matches });
    });
    return prefetched;
  }

  /**
   * The shards a search asks first, each for how many and how wide. One shard: all `count`, as wide
   * as one graph is searched. Several: each its share of `count` (oversampled) and that wide, since
   * the nearest `count` are spread over the shards, and ten shards each searched `count` wide took
   * ten times as long.
   */
  private firstSearches(count: number, breadth: number): { shard: GraphShard; count: number; breadth: number }[] {
    const shards = this.searchedShards();
    if (shards.length === 1) return [{ shard: shards[0] as GraphShard, count, breadth: Math.max(SEARCH_BREADTH, breadth) }];
    const share = shardShare(count, shards.length);
    return shards.map((shard) => ({ shard, count: share, breadth: Math.max(share, breadth) }));
  }

  /**
   * Several shards' first hits merged. A shard whose every hit made the merged first `count` may
   * hold more of them (an import that put one cluster into one shard): it is asked again, for
   * `count`, SEARCH_BREADTH wide.
   */
  private reaskShards(first: { shard: GraphShard; count: number }[], byShard: GraphHit[][], search: ShardSearch, count: number, breadth: number): GraphHit[] {
    const merged = () => byShard.flat().sort((a, b) => a.distance - b.distance || a.id - b.id);
    const firstMerged = merged();
    const cutoff = firstMerged[count - 1]?.distance ?? Number.POSITIVE_INFINITY;
    let asked = false;
    byShard.forEach((hits, i) => {
      const { shard, count: share } = first[i] as (typeof first)[number];
      if (share < count && hits.length === share && (hits.at(-1)?.distance ?? 0) <= cutoff) {
        byShard[i] = search(shard, count, Math.max(SEARCH_BREADTH, breadth));
        asked = true;
      }
    });
    return asked ? merged() : firstMerged;
  }

  /** What a search for `count`, each shard at least `breadth` wide, costs: the breadths its shards are searched (re-asks aside). */
  searchBreadth(count: number, breadth = 0): number {
    const shards = this.searchedShards().length;
    if (shards <= 1) return Math.max(count, SEARCH_BREADTH, breadth);
    return shards * Math.max(shardShare(count, shards), breadth);
  }

  /** The shards a search asks: those holding a node. */
  private searchedShards(): GraphShard[] {
    return this.shards.filter((shard) => shard.size > 0);
  }

  /** Saves each shard to the file `fileOf` names; returns the files' count and the twins, which the caller saves with them. */
  save(fileOf: (shard: number) => string): { shards: number; twins: [number, number[]][] } {
    this.shards.forEach((shard, i) => {
      shard.save(fileOf(i));
    });
    return { shards: this.shards.length, twins: [...this.twins] };
  }

  /** A graph read from the shard files saved by `save`, with the twins `save` returned. */
  static load(
    files: readonly string[],
    dimension: number,
    vectors: GraphVectors,
    options: GraphOptions,
    twins: readonly [number, number[]][],
    shardNodes = SHARD_NODES,
  ): VectorGraph {
    const graph = new VectorGraph(dimension, vectors, options, shardNodes);
    // Every shard is mapped (shared by every process, read only where searched); the last is read
    // into memory when a node is added to it (GraphShard.add).
    for (const file of files) graph.shards.push(GraphShard.open(file, dimension, options));
    for (const [node, ids] of twins) {
      graph.twins.set(node, ids);
      for (const id of ids) graph.nodeOf.set(id, node);
    }
    return graph;
  }

  private sameVector(node: number, vector: Float32Array): boolean {
    const stored = this.vectors.vectorOf(node);
    return stored?.every((x, i) => x === vector[i]) ?? false;
  }

  private hashes(): Map<number, number> {
    if (this.byHash) return this.byHash;
    this.byHash = new Map();
    if (this.nodes === 0) return this.byHash;
    // Ids not in the graph (pending ones) may be hashed too: add() checks that a hash's node is in a shard before use.
    for (const id of this.vectors.allIds()) {
      const vector = this.nodeOf.has(id) ? null : this.vectors.vectorOf(id);
      if (vector) this.byHash.set(hashOf(vector), id);
    }
    return this.byHash;
  }
}

/** How wide a shard's walk goes to pass about as many nodes as a search without the filter `breadth` wide. */
const walkBreadth = (breadth: number, filter: GraphFilter) => Math.ceil(breadth * filter.share);

/** What each of `shards` shards is asked for, of a search for `count`. */
const shardShare = (count: number, shards: number) => Math.max(MIN_SEARCH_BREADTH, Math.ceil((SHARD_OVERSAMPLING * count) / shards));

/** A shard's hits as graph hits, nearest first. */
function hitsOf(shard: GraphShard, query: Float32Array, count: number, breadth: number, prefetched?: PrefetchedMatches): GraphHit[] {
  const { ids, distances } = shard.search(query, count, breadth, prefetched);
  return ids.map((id, i) => ({ id, distance: distances[i] as number }));
}

/** A 53-bit hash of a vector's bits (two FNV-1a lanes): equal vectors hash equal; a collision is checked by comparing vectors. */
function hashOf(vector: Float32Array): number {
  const words = new Uint32Array(vector.buffer, vector.byteOffset, vector.length);
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (const word of words) {
    a = Math.imul(a ^ word, 0x01000193);
    b = Math.imul(b ^ word, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}
