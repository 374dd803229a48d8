/**
 * Several server processes on one port (node:cluster), so that searches use every core. Each
 * worker is a whole orgsim server over the same data: the embedded store's workers catch up
 * with each other's writes through its change log, and Elasticsearch is shared anyway. The
 * primary serves nothing; it starts, watches and stops the workers:
 * - the workers start one at a time: the first may have work to do once (load the sample data,
 *   rebuild the vector index, which the others then read from disk), and at 1M organizations two
 *   workers loading the saved index at once took up to 3.5 times as long as one (docs/benchmarks.md);
 * - the ready banner is printed once the first worker answers, which then serves every connection
 *   until the next is ready; a line says when all are;
 * - a worker that dies after it was ready is replaced; one that fails to start stops them all;
 * - SIGINT or SIGTERM drains every worker (a second signal stops them at once);
 * - API keys' rate limits are counted in the primary, so a key's budget is the server's, not a worker's;
 * - /metrics, asked of any worker, sums every worker's metrics in the primary.
 */
import cluster, { type Worker } from "node:cluster";
import { randomBytes } from "node:crypto";
import type { Config } from "@orgsim/runtime";
import { withNodeFlags } from "@orgsim/runtime/node-flags";
import { RateLimiterClusterMaster } from "rate-limiter-flexible";
import { serveClusterMetrics } from "./observability/metrics";

/**
 * What a worker tells the primary: that it listens for stop requests (messages sent before are
 * lost), and that it is ready. A worker that fails to start says why on stderr and exits. Other
 * messages (the rate limiter's) share the channel.
 */
export type WorkerMessage = { type: "orgsim:listening" } | { type: "orgsim:ready"; banner: string };
/** What the primary tells a worker: drain and stop, or stop at once. */
export type PrimaryMessage = { type: "orgsim:stop"; signal: string } | { type: "orgsim:force" };

export async function runPrimary(config: Config, log: (line: string) => void): Promise<void> {
  new RateLimiterClusterMaster();
  // /metrics in a worker answers the sum of every worker's.
  serveClusterMetrics();
  // Page cursors are signed: every worker must sign and verify with the same secret.
  const env = { ORGSIM_CURSOR_SECRET: config.cursorSecret ?? randomBytes(32).toString("base64") };
  // The workers do the writes: they run with orgsim's V8 flags even when the primary was started without them.
  cluster.setupPrimary({ execArgv: withNodeFlags(process.execArgv) });
  const running = new Set<Worker>();
  const ready = new Set<Worker>();
  let stopping = false;
  /** The stop requests so far: sent to each worker as soon as it listens for them. */
  const requests: PrimaryMessage[] = [];
  const listening = new Set<Worker>();
  const request = (message: PrimaryMessage) => {
    requests.push(message);
    for (const worker of listening) send(worker, message);
  };
  const start = async () => {
    const worker = cluster.fork(env);
    running.add(worker);
    worker.on("message", (message: WorkerMessage | undefined) => {
      if (message?.type !== "orgsim:listening") return;
      listening.add(worker);
      for (const earlier of requests) send(worker, earlier);
    });
    const banner = await readyOf(worker);
    ready.add(worker);
    return banner;
  };

  cluster.on("exit", (worker, code, signal) => {
    running.delete(worker);
    listening.delete(worker);
    if (stopping) {
      if (code !== 0) process.exitCode = 1;
      if (running.size === 0) process.exit(process.exitCode ?? 0);
      return;
    }
    if (!ready.delete(worker)) return; // failed at start: its start reports it
    log(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    start().catch((error: Error) => log(`the replacement worker failed: ${error.message}`));
  });

  const stopAll = (signal: string, exitCode = 0) => {
    if (stopping) return request({ type: "orgsim:force" });
    stopping = true;
    process.exitCode = exitCode;
    if (running.size === 0) process.exit(exitCode);
    request({ type: "orgsim:stop", signal });
  };
  process.on("SIGINT", () => stopAll("SIGINT"));
  process.on("SIGTERM", () => stopAll("SIGTERM"));

  try {
    const banner = await start();
    if (stopping) return;
    log(`${banner}\n  Workers  1 of ${config.workers} processes ready on one port (ORGSIM_WORKERS), serving; the others start one at a time`);
    for (let i = 1; i < config.workers && !stopping; i++) await start();
    if (!stopping) log(`Workers: all ${config.workers} processes ready`);
  } catch (error) {
    log((error as Error).message);
    stopAll("failure", 1);
  }
}

/** Resolves with the worker's banner once it is ready; rejects when it exits first. */
function readyOf(worker: Worker): Promise<string> {
  return new Promise((resolve, reject) => {
    worker.on("message", (message: WorkerMessage | undefined) => {
      if (message?.type === "orgsim:ready") resolve(message.banner);
    });
    worker.once("exit", (code, signal) => reject(new Error(`worker ${worker.process.pid} exited (${signal ?? code}) before it was ready`)));
  });
}

function send(worker: Worker, message: PrimaryMessage): void {
  if (worker.isConnected()) worker.send(message);
}
