/**
 * Checkpoints the WAL of bulk writes on a thread of its own. SQLite checkpoints in the thread that
 * commits, once the WAL holds 1,000 pages: copying them into the database file, with its two
 * fsyncs, took a large part of an import's time at 100k (the writes wait for the disk meanwhile).
 * During a bulk write the writing connection (the write thread's: write-thread.ts) leaves that to a
 * second connection in a worker thread (PASSIVE: it never blocks a reader or the writer).
 *
 * Bulk writes go in groups of WRITES_PER_CHECKPOINT: the last of a group asks for a checkpoint, and
 * the first of the next one waits for it to end, since SQLite starts the WAL over only at a write
 * that finds all of it copied. So the WAL stays at most a group long instead of growing with the
 * import, and a page that several writes of a group change (the indexes' pages, ids in no order)
 * is copied once. A group cut short, when no bulk write is left in flight, asks for its checkpoint
 * then. Nothing here is needed for durability: a commit is durable in the WAL, and a kill at any
 * point of a checkpoint leaves a database SQLite recovers (the next open replays the WAL).
 *
 * The threads share a few integers (SharedArrayBuffer) rather than messages: an import's writes
 * follow one another without ever yielding to the event loop, where messages would wait. For the
 * same reason a bulk write on the write thread waits and asks there (beforeBulkWrite,
 * afterBulkWrite): that thread takes the writes in order, so the first of a group always waits for
 * the checkpoint that the last of the group before asked for, however many writes are queued. */
// The module, not its createRequire: the server's bundle declares a createRequire of its own (apps/server/build.mjs).
import nodeModule from "node:module";
import { Worker } from "node:worker_threads";
import type { Db } from "./database";
import { endWorker } from "./worker-exit";
import { AUTOCHECKPOINT_PAGES } from "./write-steps";

/**
 * Bulk writes a checkpoint. Against one, 1M bench organizations (ids in no order) written two calls
 * in flight without pauses: 73.7 s against 75.8 s, the checkpoint thread at 14 against 22 µs an
 * organization, and 17 % fewer bytes written (docs/benchmarks.md). Eight measured the same (72.6 s).
 */
export const WRITES_PER_CHECKPOINT = 4;

/**
 * The shared integers: checkpoints asked for and done (counters), and whether the worker is to stop
 * (or failed). beforeBulkWrite and afterBulkWrite write these slots as numbers: keep them in step.
 */
const REQUESTED = 0;
const DONE = 1;
const CLOSE = 2;
const SLOTS = 3;

/** A bulk write's part in its group (see above): the shared integers, whether it waits first, and whether it asks after. */
export interface BulkCheckpoint {
  state: Int32Array;
  waitFirst: boolean;
  askAfter: boolean;
}

/**
 * Before a bulk write on the write thread: blocks that thread, when the write is the first of its
 * group, until the checkpoint asked for has ended; then answers the WAL autocheckpoint the write is
 * to have: 0, or `ownPages` (SQLite's default) once the checkpoint thread has stopped.
 * Self-contained (the write thread runs its source): slot 0 is REQUESTED, 1 DONE, 2 CLOSE.
 */
export function beforeBulkWrite({ state, waitFirst }: BulkCheckpoint, ownPages: number): number {
  for (let done = Atomics.load(state, 1); waitFirst && done < Atomics.load(state, 0) && !Atomics.load(state, 2); done = Atomics.load(state, 1)) {
    Atomics.wait(state, 1, done, 1_000);
  }
  return Atomics.load(state, 2) ? ownPages : 0;
}

/** After a bulk write, committed or not: the last of its group asks for a checkpoint. Self-contained, as beforeBulkWrite. */
export function afterBulkWrite({ state, askAfter }: BulkCheckpoint): void {
  if (!askAfter) return;
  Atomics.add(state, 0, 1);
  Atomics.notify(state, 0);
}

/**
 * The worker: plain CommonJS (a worker thread has no TypeScript loader), its own connection, a
 * PASSIVE checkpoint whenever more were asked for than done. Errors go back as messages.
 */
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const state = new Int32Array(workerData.state);
const db = new Database(workerData.file, { timeout: 10000 });
db.pragma("synchronous = NORMAL");
let served = 0;
for (;;) {
  Atomics.wait(state, ${REQUESTED}, served);
  if (Atomics.load(state, ${CLOSE})) break;
  served = Atomics.load(state, ${REQUESTED});
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (error) {
    parentPort.postMessage(String((error && error.message) || error));
  }
  Atomics.store(state, ${DONE}, served);
  Atomics.notify(state, ${DONE});
}
db.close();
`;

/** Atomics.waitAsync (Node 16+; not yet in TypeScript's default library). */
const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: boolean; value: unknown } })
  .waitAsync;

export class WalCheckpointer {
  /** null: not started yet; undefined: failed or closed (SQLite checkpoints at commits, as without it). */
  private worker: Worker | null | undefined = null;
  private readonly state = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  /** Bulk writes planned in the current group, and bulk writes not yet ended. */
  private grouped = 0;
  private inFlight = 0;

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /**
   * Runs `write` (a bulk write transaction) on this thread, in its group: the first of a group
   * waits for the checkpoint asked for, and the last asks for one. `write` is given the WAL
   * autocheckpoint its connection is to have for it: 0, or SQLite's default without a worker (it
   * failed), when the write commits as any other.
   */
  async bulk<T>(write: (autocheckpoint: number) => T | Promise<T>): Promise<T> {
    const checkpoint = this.plan();
    if (!checkpoint) return write(AUTOCHECKPOINT_PAGES);
    try {
      if (checkpoint.waitFirst) await this.previousDone();
      return await write(0);
    } finally {
      afterBulkWrite(checkpoint);
      this.ended();
    }
  }

  /**
   * A bulk write's place in its group, in the order the writes are made; null when no checkpoint
   * thread runs (it failed), and SQLite checkpoints at that write's commit. Each planned write calls
   * ended() once it has ended.
   */
  plan(): BulkCheckpoint | null {
    if (!this.start()) return null;
    const waitFirst = this.grouped === 0;
    this.grouped++;
    const askAfter = this.grouped === WRITES_PER_CHECKPOINT;
    if (askAfter) this.grouped = 0;
    this.inFlight++;
    return { state: this.state, waitFirst, askAfter };
  }

  /** A planned bulk write ended: the last in flight asks for the checkpoint of a group cut short (the writes paused or stopped). */
  ended(): void {
    this.inFlight--;
    if (this.inFlight > 0 || this.grouped === 0 || !this.worker) return;
    this.grouped = 0;
    this.request();
  }

  /** Stops the worker (its connection closes; the last connection to close checkpoints what is left). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    await endWorker(worker, () => {
      Atomics.store(this.state, CLOSE, 1);
      this.request();
    });
  }

  private start(): boolean {
    if (this.worker) return true;
    if (this.worker === undefined) return false;
    try {
      const driver = nodeModule.createRequire(import.meta.url).resolve("better-sqlite3");
      const worker = new Worker(WORKER, { eval: true, workerData: { driver, file: this.db.name, state: this.state.buffer } });
      worker.unref();
      worker.on("message", (message: string) => this.fail(new Error(`WAL checkpoint: ${message}`)));
      worker.on("error", (error) => this.fail(error));
      worker.on("exit", () => this.worker === worker && this.fail(new Error("the WAL checkpoint thread stopped")));
      this.worker = worker;
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  private request(): void {
    Atomics.add(this.state, REQUESTED, 1);
    Atomics.notify(this.state, REQUESTED);
  }

  /** Resolves once the checkpoint asked for (by the group before) has ended: the next write then starts the WAL over. */
  private async previousDone(): Promise<void> {
    const asked = Atomics.load(this.state, REQUESTED);
    for (let done = Atomics.load(this.state, DONE); done < asked && this.worker; done = Atomics.load(this.state, DONE)) {
      const wait = waitAsync(this.state, DONE, done, 1_000);
      if (wait.async) await wait.value;
    }
  }

  /** The worker failed: SQLite checkpoints at commits again, as without it. */
  private fail(error: unknown): void {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) {
      Atomics.store(this.state, CLOSE, 1);
      this.request();
      void worker.terminate();
    }
    this.onError(error);
  }
}
