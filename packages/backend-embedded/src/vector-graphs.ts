/**
 * The two vector graphs of the embedded store (profile and customer) and what keeps them in step
 * with the memory index:
 * - A write marks the organization pending: searches scan pending organizations exactly, so a
 *   result never depends on whether the graph has caught up.
 * - Small writes reach the graph at once. Bulk writes (an import) are left pending and added in
 *   one pass with every core once the writes pause, chunk by chunk so the server keeps answering.
 * - A graph is saved beside the SQLite file with the store generation it reflects; a store opened
 *   at that generation loads it instead of rebuilding. Anything else (another generation, another
 *   model, a missing or torn file after a kill) means a rebuild, reported through `onProgress`.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setImmediate as nextTick } from "node:timers/promises";
import type { VectorKind } from "@orgsim/core";
import { GRAPH_OPTIONS } from "./graph-shard";
import { GRAPH_FORMAT, type GraphVectors, VectorGraph } from "./vector-graph";

const KINDS: readonly VectorKind[] = ["profile", "customer"];
/** Pending organizations up to this many are added at once by the write that made them pending (none during a bulk import). */
export const SYNC_LIMIT = 64;
/** Organizations added per tick of a background build (about 50 ms of two cores at 384-d). */
const CHUNK = 512;
/**
 * A background build starts once writes have paused this long, so an import writes at full speed
 * first: longer than one bulk write of 1,000 organizations takes (about 250 ms; at 200 ms builds
 * started between an import's own batches and took a fifth of its time).
 */
const QUIET_MS = 1_000;

/** Where the graphs find an organization's current vector (null when it has none of that kind), and every organization's id. */
export interface VectorSource {
  vectorOf(id: number, kind: VectorKind): Float32Array | null;
  allIds(): Iterable<number>;
}

export interface GraphProgress {
  /** Organizations added to the graphs so far in this build, and in all. */
  done: number;
  total: number;
}

/** What a saved graph must match to be loaded: the store's model and the generation of its data. */
export interface GraphStamp {
  modelId: string;
  dimension: number;
  generation: number;
}

interface SavedMeta extends GraphStamp {
  format: string;
  /** Each graph's shard files, in shard order. */
  files: Record<VectorKind, string[]>;
  counts: Record<VectorKind, number>;
  /** Each graph's twins (see VectorGraph): node id and the ids sharing its vector. */
  twins?: Record<VectorKind, [number, number[]][]>;
}

const META_FILE = "orgsim.vectors.json";
/** Graph files of any generation and shard (and of before the shards: no `.s<n>`). */
const GRAPH_FILE = /^orgsim\.(profile|customer)\.g\d+(\.s\d+)?\.usearch$/;
const graphFile = (stamp: GraphStamp, kind: VectorKind, shard: number) => `orgsim.${kind}.g${stamp.generation}.s${shard}.usearch`;

/** The saved graphs' meta, or why there is none. */
function savedGraphs(dir: string): SavedMeta | string {
  const meta = join(dir, META_FILE);
  if (!existsSync(meta)) return "no saved vector index";
  return JSON.parse(readFileSync(meta, "utf8")) as SavedMeta;
}

/** Why saved graphs do not reflect `stamp`; null when they do. */
function graphsMismatch(saved: SavedMeta, stamp: GraphStamp): string | null {
  if (saved.format !== GRAPH_FORMAT) return `the saved vector index has format ${saved.format}, not ${GRAPH_FORMAT}`;
  if (saved.modelId !== stamp.modelId || saved.dimension !== stamp.dimension) return `the saved vector index is of model ${saved.modelId}`;
  if (saved.generation !== stamp.generation) return `the saved vector index reflects generation ${saved.generation} of the data, not ${stamp.generation}`;
  return null;
}

export class VectorGraphs {
  private graphs: Record<VectorKind, VectorGraph>;
  private readonly pending: Record<VectorKind, Set<number>> = { profile: new Set(), customer: new Set() };
  private quietTimer: NodeJS.Timeout | null = null;
  private building: Promise<void> | null = null;
  /** Entries (an organization's profile or customer vector, or its lack of one) taken since the current build started. */
  private built = 0;
  /** A rebuild of everything runs (at open, or when the saved graphs did not match the data). */
  private rebuilding = false;
  /** The graphs changed since they were loaded or saved. */
  private unsaved = false;
  private stopped = false;

  constructor(
    readonly dimension: number,
    /** Nodes per graph shard (see VectorGraph). */
    private readonly shardNodes: number,
    private readonly source: VectorSource,
    private readonly onProgress: (progress: GraphProgress) => void = () => {},
    /** Called when a background build has added everything pending; `rebuilt` when it was a rebuild of everything. */
    private readonly onCurrent: (rebuilt: boolean) => void = () => {},
    /** Writes leaving at most this many pending add them at once; more wait for a pause in the writes. */
    private readonly syncLimit = SYNC_LIMIT,
  ) {
    this.graphs = this.emptyGraphs();
  }

  private emptyGraphs(): Record<VectorKind, VectorGraph> {
    const graph = (kind: VectorKind) => new VectorGraph(this.dimension, this.vectorsOf(kind), GRAPH_OPTIONS[kind], this.shardNodes);
    return { profile: graph("profile"), customer: graph("customer") };
  }

  private vectorsOf(kind: VectorKind): GraphVectors {
    return { vectorOf: (id) => this.source.vectorOf(id, kind), allIds: () => this.source.allIds() };
  }

  graph(kind: VectorKind): VectorGraph {
    return this.graphs[kind];
  }

  /** Organizations whose current `kind` vector is not in the graph: searches scan them exactly. */
  pendingIds(kind: VectorKind): ReadonlySet<number> {
    return this.pending[kind];
  }

  /** Whether a graph has a shard mapped from its saved file, which the graph search thread can search. */
  get hasViews(): boolean {
    return this.graphs.profile.hasViews || this.graphs.customer.hasViews;
  }

  /** True when the graphs hold every current vector. */
  get current(): boolean {
    return this.pending.profile.size === 0 && this.pending.customer.size === 0;
  }

  /** The graphs changed since they were loaded or last saved. */
  get changed(): boolean {
    return this.unsaved;
  }

  /** True while every organization is being added again: rankings are exact but slow meanwhile. */
  get isRebuilding(): boolean {
    return this.rebuilding && !this.current;
  }

  get progress(): GraphProgress {
    // Counted in organizations: each has two entries, its profile's and its customer's (taken last and
    // quickly when it has none), so the total stays the build's organizations throughout.
    const done = Math.floor(this.built / 2);
    return { done, total: done + Math.ceil((this.pending.profile.size + this.pending.customer.size) / 2) };
  }

  /** An organization was written: its graph entries are stale until it is added again. */
  put(ids: readonly number[]): void {
    for (const kind of KINDS) {
      for (const id of ids) {
        this.pending[kind].add(id);
        for (const twin of this.graphs[kind].remove(id)) this.pending[kind].add(twin);
      }
      this.unsaved = true;
    }
    this.schedule();
  }

  remove(id: number): void {
    this.unsaved = true;
    let orphans = 0;
    for (const kind of KINDS) {
      this.pending[kind].delete(id);
      // The twins of a removed node are added again (one of them becomes the node).
      for (const twin of this.graphs[kind].remove(id)) {
        this.pending[kind].add(twin);
        orphans++;
      }
    }
    if (orphans > 0) this.schedule();
  }

  /** Adds everything pending now, blocking (used at close and by callers that wait for the graphs). */
  finish(): void {
    this.cancelQuietTimer();
    this.startBuildCount();
    while (!this.current) this.addChunk();
  }

  /** Resolves once the graphs are current (builds in the background meanwhile). */
  async settled(): Promise<void> {
    while (!this.current && !this.stopped) {
      this.cancelQuietTimer();
      this.building ??= this.runBuild();
      await this.building;
    }
  }

  stop(): void {
    this.stopped = true;
    this.cancelQuietTimer();
  }

  /**
   * Saves both graphs and what they reflect. Files are named by generation and the meta file,
   * written last by rename, names them: a kill at any point leaves the last whole save or none,
   * and two processes saving at once cannot pair one's meta with the other's graphs.
   */
  save(dir: string, stamp: GraphStamp): void {
    if (!this.current) throw new Error("the vector graphs are not current; finish() them before saving");
    const files: SavedMeta["files"] = { profile: [], customer: [] };
    const twins: SavedMeta["twins"] = { profile: [], customer: [] };
    for (const kind of KINDS) {
      const temporary = (shard: number) => join(dir, `${graphFile(stamp, kind, shard)}.${process.pid}.tmp`);
      const saved = this.graphs[kind].save(temporary);
      twins[kind] = saved.twins;
      for (let shard = 0; shard < saved.shards; shard++) {
        files[kind].push(graphFile(stamp, kind, shard));
        renameSync(temporary(shard), join(dir, graphFile(stamp, kind, shard)));
      }
    }
    const counts = { profile: this.graphs.profile.size, customer: this.graphs.customer.size };
    const saved: SavedMeta = { format: GRAPH_FORMAT, ...stamp, files, counts, twins };
    const meta = join(dir, META_FILE);
    writeFileSync(`${meta}.${process.pid}.tmp`, JSON.stringify(saved));
    renameSync(`${meta}.${process.pid}.tmp`, meta);
    this.unsaved = false;
    const current = new Set([...files.profile, ...files.customer]);
    for (const name of readdirSync(dir)) {
      if (GRAPH_FILE.test(name) && !current.has(name)) rmSync(join(dir, name), { force: true });
    }
  }

  /**
   * Loads the graphs saved in `dir` when they reflect exactly `stamp` and hold `counts` vectors;
   * returns why not otherwise (the caller then rebuilds with `rebuild`).
   */
  load(dir: string, stamp: GraphStamp, counts: Record<VectorKind, number>): string | null {
    const saved = savedGraphs(dir);
    if (typeof saved === "string") return saved;
    const mismatch = graphsMismatch(saved, stamp);
    if (mismatch) return mismatch;
    const load = (kind: VectorKind) =>
      VectorGraph.load(
        saved.files[kind].map((file) => join(dir, file)),
        this.dimension,
        this.vectorsOf(kind),
        GRAPH_OPTIONS[kind],
        saved.twins?.[kind] ?? [],
        this.shardNodes,
      );
    const graphs = { profile: load("profile"), customer: load("customer") };
    for (const kind of KINDS) {
      if (graphs[kind].size !== saved.counts[kind] || graphs[kind].size !== counts[kind])
        return `the saved ${kind} graph holds ${graphs[kind].size} vectors, not ${counts[kind]}`;
    }
    this.graphs = graphs;
    this.unsaved = false;
    return null;
  }

  /** Marks every organization pending: the graphs are rebuilt in the background. */
  rebuild(ids: Iterable<number>): void {
    this.graphs = this.emptyGraphs();
    for (const kind of KINDS) this.pending[kind] = new Set(ids);
    this.rebuilding = true;
    this.unsaved = true;
    this.startBuildCount();
    this.building ??= this.runBuild();
  }

  private schedule(): void {
    if (this.building) return;
    if (Math.max(this.pending.profile.size, this.pending.customer.size) <= this.syncLimit) {
      this.finish();
      return;
    }
    this.cancelQuietTimer();
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      this.startBuildCount();
      this.building ??= this.runBuild();
    }, QUIET_MS);
    this.quietTimer.unref();
  }

  private async runBuild(): Promise<void> {
    try {
      while (!this.current && !this.stopped) {
        this.addChunk();
        this.onProgress(this.progress);
        await nextTick();
      }
    } finally {
      this.building = null;
    }
    if (this.current && !this.stopped) {
      const rebuilt = this.rebuilding;
      this.rebuilding = false;
      this.onCurrent(rebuilt);
    }
  }

  /** Adds up to CHUNK pending organizations of one kind to its graph. */
  private addChunk(): void {
    const kind = this.pending.profile.size > 0 ? "profile" : "customer";
    const pending = this.pending[kind];
    const ids: number[] = [];
    const vectors: Float32Array[] = [];
    for (const id of pending) {
      if (ids.length === CHUNK) break;
      pending.delete(id);
      this.built++;
      const vector = this.source.vectorOf(id, kind);
      if (!vector) continue;
      ids.push(id);
      vectors.push(vector);
    }
    const matrix = new Float32Array(ids.length * this.dimension);
    for (let i = 0; i < vectors.length; i++) matrix.set(vectors[i] as Float32Array, i * this.dimension);
    this.graphs[kind].add(ids, matrix);
  }

  private startBuildCount(): void {
    if (!this.building) this.built = 0;
  }

  private cancelQuietTimer(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = null;
  }
}
