/**
 * Searches saved graph shards (memory-mapped views) on a thread of its own, so a ranking's graph
 * search runs while this thread goes on: a hybrid ranking's word search (lexical-index.ts) runs
 * beside it instead of after it. Measured at 100k (the bench's saved profile graph, one process):
 * a search 141 wide took 0.8 ms; beside 1.2 ms of other work on this thread the two took 1.25 ms
 * instead of 2.1, and a hybrid similar-to-organization request 0.6 to 0.9 ms less over HTTP. A
 * search with nothing to do meanwhile only waits for the hand-over (0.1 to 0.4 ms more): rankings
 * come here only when their caller says it has other work (VectorQuery.concurrent). Under a load
 * that keeps every core busy the thread only moves work and adds the hand-over: searches come here
 * only while the machine has a core to spare (SpareCore).
 *
 * Only views are searched there: a view's file never changes, so the thread's own view of it (the
 * same pages, mapped twice) answers exactly what this thread's would. A shard copied into memory
 * (written to since it was saved) is searched here as before. The thread checks that the file it
 * maps is the one the shard maps (identityOf), and a search it cannot answer is made here.
 *
 * A search may test a filter inside its walk (native-kernel's filteredGraphSearch, GraphShard's
 * filteredSearch): the thread reads the filter's bitmap and IdRows' table in shared memory, which
 * this thread may write meanwhile (id-rows.ts); the caller checks every row it returns again.
 */
// The module, not its createRequire: the server's bundle declares a createRequire of its own (apps/server/build.mjs).
import nodeModule from "node:module";
import { cpus } from "node:os";
import { Worker } from "node:worker_threads";
import { addonFile } from "@orgsim/native-kernel";
import type { WalkFilter } from "./graph-shard";

/**
 * One shard's search as the thread makes it on the view of `file`: usearch's `search(query, asked)`,
 * or with `walk`, filteredGraphSearch for `asked` nodes that pass, `walk.breadth` wide.
 */
export interface ViewSearch {
  file: string;
  /** The file's identity when the shard mapped it (identityOf): the thread maps only that file. */
  identity: string;
  asked: number;
  walk?: ViewWalk;
}

/** A filter tested inside the walk, and how wide the walk goes. */
export interface ViewWalk extends WalkFilter {
  breadth: number;
}

/** A search's answer: keys (usearch's, or a walk's as numbers) and distances, nearest first. */
export interface ShardMatches {
  keys: BigUint64Array | Float64Array;
  distances: Float32Array;
}

/**
 * A file's identity from its stat: device, inode, size and modification time; a file replaced under
 * its name has another. Self-contained: the thread runs its source.
 */
export const identityOf = (stat: { dev: number; ino: number; size: number; mtimeMs: number }) => [stat.dev, stat.ino, stat.size, stat.mtimeMs].join(":");

/**
 * The thread: plain CommonJS (a worker thread has no TypeScript loader). It keeps a view a file
 * while searches use it, and lets a view go after a minute unused (a deleted file's space is freed
 * once nobody maps it).
 */
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { statSync } = require("node:fs");
const usearch = require(workerData.usearch);
const { Index } = usearch.default ?? usearch;
const native = require(workerData.nativeKernel);
const identityOf = ${identityOf};
// usearch's views, and native-kernel's (for walks), by file and identity.
const views = new Map();
const viewOf = (kind, file, identity, open) => {
  const key = kind + "|" + file + "|" + identity;
  let view = views.get(key);
  if (!view) {
    if (identityOf(statSync(file)) !== identity) return null;
    const index = open();
    // Replaced while it was mapped: not the shard's file.
    if (identityOf(statSync(file)) !== identity) return null;
    view = { index, used: Date.now() };
    views.set(key, view);
  }
  view.used = Date.now();
  return view.index;
};
const openIndex = (file) => () => {
  const index = new Index({ ...workerData.options, dimensions: workerData.dimension });
  index.view(file);
  return index;
};
const walk = (file, identity, query, asked, { breadth, idTable, rowTable, allowed, alwaysKeys }) => {
  const view = viewOf("walk", file, identity, () => native.openGraphView(file));
  if (!view) return null;
  const keys = new Float64Array(asked);
  const distances = new Float32Array(asked);
  const found = native.filteredGraphSearch(view, query, asked, breadth, idTable, rowTable, allowed, alwaysKeys, keys, distances);
  return { keys: keys.slice(0, found), distances: distances.slice(0, found) };
};
setInterval(() => {
  for (const [key, view] of views) if (Date.now() - view.used > 60000) views.delete(key);
}, 10000).unref();
parentPort.on("message", ({ id, query, searches }) => {
  const results = searches.map(({ file, identity, asked, walk: filter }) => {
    try {
      if (filter) return walk(file, identity, query, asked, filter);
      const index = viewOf("search", file, identity, openIndex(file));
      if (!index) return null;
      const { keys, distances } = index.search(query, asked, 1);
      return { keys, distances };
    } catch {
      return null;
    }
  });
  parentPort.postMessage({ id, results });
});
`;

export class GraphSearchThread {
  /** null: not started yet; undefined: failed or closed (every search is made on the caller's thread). */
  private worker: Worker | null | undefined = null;
  private online = false;
  private onlineWaiters: (() => void)[] = [];
  private nextId = 0;
  private readonly waiting = new Map<number, (results: (ShardMatches | null)[] | null) => void>();

  private readonly spareCore = new SpareCore();

  constructor(
    private readonly dimension: number,
    /** usearch's options to view a saved shard with (VIEW_OPTIONS, graph-shard.ts). */
    private readonly options: object,
    /** Search only while the machine has a core to spare (false: always, for tests). */
    private readonly whenCoreSpare: boolean,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /**
   * Each search's matches (null for one the thread could not make); null for all when the thread
   * is not running yet (it starts now), failed, or the machine has no core to spare. Never rejects.
   */
  search(query: Float32Array, searches: readonly ViewSearch[]): Promise<(ShardMatches | null)[] | null> {
    const worker = this.start();
    if (!worker || !this.takesSearches() || searches.length === 0) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.postMessage({ id, query, searches });
    });
  }

  /**
   * Whether a search asked now may be made: the thread has not started yet (the search starts it),
   * or it runs and a core is spare (if that is asked for). A caller plans none for it otherwise.
   */
  takesSearches(): boolean {
    if (this.worker === null) return true;
    return this.worker !== undefined && this.online && !(this.whenCoreSpare && !this.spareCore.available());
  }

  /** Starts the thread; resolves once it takes searches (or has failed). */
  async ready(): Promise<void> {
    if (!this.start() || this.online) return;
    await new Promise<void>((resolve) => this.onlineWaiters.push(resolve));
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.answerAll(null);
    if (worker) await worker.terminate();
  }

  private start(): Worker | undefined {
    if (this.worker !== null) return this.worker;
    try {
      const usearch = nodeModule.createRequire(import.meta.url).resolve("usearch");
      const workerData = { usearch, nativeKernel: addonFile, dimension: this.dimension, options: this.options };
      const worker = new Worker(WORKER, { eval: true, workerData });
      worker.unref();
      worker.once("online", () => {
        this.online = true;
        this.wakeWaiters();
      });
      worker.on("message", ({ id, results }: { id: number; results: (ShardMatches | null)[] }) => {
        this.waiting.get(id)?.(results);
        this.waiting.delete(id);
      });
      worker.on("error", (error) => this.fail(error));
      worker.on("exit", () => this.worker === worker && this.fail(new Error("the graph search thread stopped")));
      this.worker = worker;
      return worker;
    } catch (error) {
      this.fail(error);
      return undefined;
    }
  }

  /** The thread failed: searches are made on the caller's thread from now on. */
  private fail(error: unknown): void {
    const worker = this.worker;
    this.worker = undefined;
    this.answerAll(null);
    if (worker) void worker.terminate();
    this.onError(error);
  }

  private wakeWaiters(): void {
    for (const wake of this.onlineWaiters) wake();
    this.onlineWaiters = [];
  }

  private answerAll(results: null): void {
    this.wakeWaiters();
    for (const resolve of this.waiting.values()) resolve(results);
    this.waiting.clear();
  }
}

/**
 * Whether the machine had at least half a core idle over the last tenth of a second (the CPUs' idle
 * time, read at most that often: os.cpus() took 43 µs).
 */
export class SpareCore {
  private last: CpuTimes;
  private spare = true;

  constructor(private readonly read: () => CpuTimes = cpuTimes) {
    this.last = read();
  }

  available(): boolean {
    if (performance.now() - this.last.at < 100) return this.spare;
    const now = this.read();
    const idleCores = ((now.idle - this.last.idle) / (now.total - this.last.total)) * now.cores;
    this.spare = !(idleCores < 0.5);
    this.last = now;
    return this.spare;
  }
}

/** The CPUs' idle and total times summed (ms), their count, and when they were read (performance.now()). */
export interface CpuTimes {
  idle: number;
  total: number;
  cores: number;
  at: number;
}

function cpuTimes(): CpuTimes {
  const all = cpus();
  let idle = 0;
  let total = 0;
  for (const { times } of all) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total, cores: all.length, at: performance.now() };
}
