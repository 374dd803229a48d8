/**
 * Checkpoints the WAL of bulk writes on a thread of its own. SQLite checkpoints in the thread that
 * commits, once the WAL holds 1,000 pages: copying them into the database file, with its two
 * fsyncs, took a large part of an import's time at 100k (the writes wait for the disk meanwhile).
 * During a bulk write the writing connection (the write thread's: write-thread.ts) leaves that to a
 * second connection in a worker thread, which copies the batch just committed while the next one is
 * prepared (PASSIVE: it never blocks a reader or the writer).
 *
 * SQLite starts the WAL over only at a write that finds all of it copied, so a bulk write first
 * waits for the checkpoint of the one before to end (usually it has): the WAL stays about one
 * batch long instead of growing with the import. Nothing here is needed for durability: a commit
 * is durable in the WAL, and a kill at any point of a checkpoint leaves a database SQLite recovers
 * (the next open replays the WAL).
 *
 * The threads share a few integers (SharedArrayBuffer) rather than messages: an import's writes
 * follow one another without ever yielding to the event loop, where messages would wait. */
// The module, not its createRequire: the server's bundle declares a createRequire of its own (apps/server/build.mjs).
import nodeModule from "node:module";
import { Worker } from "node:worker_threads";
import type { Db } from "./database";
import { endWorker } from "./worker-exit";
import { AUTOCHECKPOINT_PAGES } from "./write-steps";

/** The shared integers: checkpoints asked for and done (counters), and whether the worker is to stop. */
const REQUESTED = 0;
const DONE = 1;
const CLOSE = 2;
const SLOTS = 3;

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

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /**
   * Runs `write` (a bulk write transaction) without a checkpoint at its commit, then asks the
   * worker for one. `write` is given the WAL autocheckpoint its connection is to have for it: 0, or
   * SQLite's default without a worker (it failed), when the write commits as any other.
   */
  async bulk<T>(write: (autocheckpoint: number) => T | Promise<T>): Promise<T> {
    if (!this.start()) return write(AUTOCHECKPOINT_PAGES);
    await this.previousDone();
    try {
      return await write(0);
    } finally {
      this.request();
    }
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

  /** Resolves once the checkpoint asked for after the last commit has ended: the next write then starts the WAL over. */
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
