/**
 * Runs the organization store's writes on a thread of its own, with a connection of its own, so
 * that SQLite writes one batch while the caller validates the next: an import keeps two batches in
 * flight (the importer's import-file.ts). Measured at 100k with vectors given, through the bench's
 * load (docs/benchmarks.md): 12,083 and 12,838 organizations/s one call at a time, 15,474 to
 * 16,644 with two in flight.
 *
 * The thread only runs statements (write-steps.ts): what a write writes is decided on the store's
 * thread. It starts at the first bulk write; from then on every write of the store comes here, in
 * order, so each commits in the order it was asked for. A write before it started, or after it
 * failed, runs on the store's connection, the same steps. Nothing here is needed for durability: a
 * write resolves once committed, and a kill at any point leaves what SQLite committed.
 */
// The module, not its createRequire: the server's bundle declares a createRequire of its own (apps/server/build.mjs).
import nodeModule from "node:module";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { CONNECTION_PRAGMAS, type Db } from "./database";
import { afterBulkWrite, beforeBulkWrite, type WalCheckpointer } from "./wal-checkpointer";
import { endWorker } from "./worker-exit";
import { AUTOCHECKPOINT_PAGES, runWriteSteps, type StepConnection, type WritePlan } from "./write-steps";

/**
 * The thread's connection keeps SQLite's statement journals in memory (`temp_store = MEMORY`). A
 * statement inside a transaction that may fail halfway (a many-row insert, a delete by many ids)
 * first copies each page it changes, by default into a temporary file. With ids in no order those
 * copies were half the bytes an import wrote: at the end of an import of 1M bench organizations,
 * 54 KiB an organization in memory against 93 in a file, and this thread's CPU 83 µs an
 * organization against 109 (docs/benchmarks.md). Here a statement is one write's, of a batch at
 * most, so the copies stay small; the store's own connection, which also runs migrations whose
 * statements span a whole store, keeps them in a file.
 */
export const WRITE_THREAD_PRAGMAS = [...CONNECTION_PRAGMAS, "temp_store = MEMORY"];

/**
 * The thread: plain CommonJS (a worker thread has no TypeScript loader) around the sources of
 * runWriteSteps and of a bulk write's checkpoint steps (wal-checkpointer.ts). `__name`: what a
 * TypeScript loader may wrap a function's inner functions in.
 */
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const __name = (f) => f;
const runWriteSteps = ${runWriteSteps};
const beforeBulkWrite = ${beforeBulkWrite};
const afterBulkWrite = ${afterBulkWrite};
const db = new Database(workerData.file, { timeout: 10000 });
for (const pragma of ${JSON.stringify(WRITE_THREAD_PRAGMAS)}) db.pragma(pragma);
const connection = { db, statements: new Map(), autocheckpoint: ${AUTOCHECKPOINT_PAGES} };
parentPort.on("message", ({ id, steps, checkpoint }) => {
  if (id === null) {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const autocheckpoint = checkpoint ? beforeBulkWrite(checkpoint, ${AUTOCHECKPOINT_PAGES}) : ${AUTOCHECKPOINT_PAGES};
    parentPort.postMessage({ id, results: runWriteSteps(connection, steps, autocheckpoint) });
  } catch (error) {
    parentPort.postMessage({ id, error: { name: error && error.name, message: String((error && error.message) || error), code: error && error.code } });
  } finally {
    if (checkpoint) afterBulkWrite(checkpoint);
  }
});
`;

type Reply = { id: number; results?: unknown[]; error?: { name?: string; message: string; code?: string } };

export class WriteThread {
  /** null: not started; undefined: failed or closed (writes run on the store's connection). */
  private worker: Worker | null | undefined = null;
  private readonly pending = new Map<number, { resolve: (results: unknown[]) => void; reject: (error: unknown) => void }>();
  private nextId = 0;
  private readonly local: StepConnection;

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.local = { db, statements: new Map(), autocheckpoint: AUTOCHECKPOINT_PAGES };
  }

  /**
   * Runs a write's steps: here until a bulk write starts the thread (or when it failed), there from
   * then on. A bulk write (`checkpointer` given) takes its place in a group of the checkpointer's,
   * whose waiting and asking, on the thread, are the thread's.
   */
  async run(plan: WritePlan, checkpointer: WalCheckpointer | null): Promise<unknown[]> {
    const worker = this.worker === null && checkpointer ? this.start() : this.worker;
    if (!worker) {
      if (!checkpointer) return runWriteSteps(this.local, plan.steps, AUTOCHECKPOINT_PAGES);
      return checkpointer.bulk((autocheckpoint) => runWriteSteps(this.local, plan.steps, autocheckpoint));
    }
    const checkpoint = checkpointer?.plan() ?? null;
    const id = this.nextId++;
    const reply = new Promise<unknown[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    try {
      worker.postMessage({ id, steps: plan.steps, checkpoint }, plan.transfer);
    } catch (error) {
      // Steps that cannot be sent (a detached buffer): nothing was written, and its group goes on without it.
      this.pending.delete(id);
      if (checkpoint) {
        afterBulkWrite(checkpoint);
        checkpointer?.ended();
      }
      throw error;
    }
    return checkpoint ? reply.finally(() => checkpointer?.ended()) : reply;
  }

  /** Waits for the writes asked for, then closes the thread's connection. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await endWorker(worker, () => worker.postMessage({ id: null }));
  }

  private start(): Worker | undefined {
    try {
      const driver = nodeModule.createRequire(import.meta.url).resolve("better-sqlite3");
      const worker = new Worker(WORKER, { eval: true, workerData: { driver, file: this.db.name } });
      worker.unref();
      worker.on("message", (reply: Reply) => this.settle(reply));
      worker.on("error", (error) => this.fail(worker, error));
      worker.on("exit", () => this.fail(worker, new Error("the write thread stopped")));
      this.worker = worker;
      return worker;
    } catch (error) {
      this.worker = undefined;
      this.onError(error);
      return undefined;
    }
  }

  private settle({ id, results, error }: Reply): void {
    const waiting = this.pending.get(id);
    this.pending.delete(id);
    if (!waiting) return;
    if (error) waiting.reject(errorOf(error));
    else waiting.resolve(results as unknown[]);
  }

  /** The thread failed or ended: writes it had not answered fail (they may or may not have committed); later ones run here. */
  private fail(worker: Worker, error: unknown): void {
    if (this.worker === worker) {
      this.worker = undefined;
      this.onError(error);
    }
    for (const { reject } of this.pending.values()) {
      reject(new Error(`the embedded store's write thread stopped before answering (${(error as Error)?.message ?? error}); the write may not be stored`));
    }
    this.pending.clear();
  }
}

/** The thread's error as thrown here: SQLite's keeps its class and code (errors.ts maps busy and full files). */
function errorOf({ name, message, code }: NonNullable<Reply["error"]>): Error {
  if (name === "SqliteError" && code) return new Database.SqliteError(message, code);
  return Object.assign(new Error(message), code ? { code } : {});
}
