/**
 * A real orgsim server (`orgsim serve`, started by @orgsim/testing's startOrgsimServe as the server
 * tests start it) as a child process on a free loopback port, and the orgsim command for imports.
 */
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { type OrgsimEntry, orgsimScript, startOrgsimServe } from "@orgsim/testing/serve";
import { type ProcessMemory, processTreeMemory } from "./system";

/** "embedded-exact": the embedded backend with ORGSIM_VECTOR_INDEX=exact (every ranking scans): the exact reference, and the embedded backend before its graphs. */
export type BackendName = "embedded" | "embedded-exact" | "elasticsearch";
export const BACKENDS: readonly BackendName[] = ["embedded", "embedded-exact", "elasticsearch"];

export interface BackendTarget {
  backend: BackendName;
  /** embedded: the data directory. */
  dataDir?: string;
  /** elasticsearch: the node and the index prefix. */
  esUrl?: string;
  indexPrefix?: string;
}

export function backendEnv(target: BackendTarget): Record<string, string> {
  if (target.backend === "embedded") return { ORGSIM_BACKEND: "embedded", ORGSIM_DATA_DIR: target.dataDir as string };
  if (target.backend === "embedded-exact") return { ORGSIM_BACKEND: "embedded", ORGSIM_DATA_DIR: target.dataDir as string, ORGSIM_VECTOR_INDEX: "exact" };
  return { ORGSIM_BACKEND: "elasticsearch", ELASTICSEARCH_URL: target.esUrl as string, ORGSIM_ES_INDEX_PREFIX: target.indexPrefix as string };
}

export interface RunningServer {
  baseUrl: string;
  pid: number;
  /** Seconds from spawn to /ready answering 200 (module load, model load, backend open: the embedded store reads every vector); with several workers, the first serves then. */
  startSeconds: number;
  /** Seconds from spawn until every worker was ready (the workers start one at a time); startSeconds for one process. */
  allWorkersSeconds: number;
  memory(): ProcessMemory | null;
  output(): string;
  stop(): Promise<void>;
}

const serverDir = (repo: string) => join(repo, "apps", "server");

let bundleBuilt = false;
/** Builds dist/orgsim.mjs from the current sources, once a bench process: what the Docker image and `pnpm start` run. */
function buildBundle(repo: string): void {
  if (bundleBuilt) return;
  execFileSync(process.execPath, ["build.mjs"], { cwd: serverDir(repo), stdio: "inherit" });
  bundleBuilt = true;
}

export async function startServer(
  repo: string,
  target: BackendTarget,
  {
    timeoutMs = 60 * 60_000,
    nodeArgs = [],
    workers,
    // As deployed; through tsx, each worker also spent 1 to 3 s of its start loading the sources.
    entry = "bundle",
  }: { timeoutMs?: number; nodeArgs?: string[]; workers?: number; entry?: OrgsimEntry } = {},
): Promise<RunningServer> {
  if (entry === "bundle") buildBundle(repo);
  const spawned = performance.now();
  const server = await startOrgsimServe({
    nodeArgs,
    serverDir: serverDir(repo),
    entry,
    // The product's default worker count (one a core) unless the bench is told otherwise.
    env: {
      ...backendEnv(target),
      ORGSIM_SAMPLE_SIZE: "0",
      ORGSIM_SHUTDOWN_TIMEOUT_MS: "5000",
      ORGSIM_WORKERS: workers ? String(workers) : process.env.ORGSIM_WORKERS || "auto",
    },
    timeoutMs,
    keepOutputChars: 100_000,
  });
  const pid = server.child.pid as number;
  // Measured with every worker serving: the primary says when the last is ready.
  const workersLine = /Workers\s+1 of (\d+) processes ready/.exec(server.output());
  while (workersLine && !server.output().includes(`Workers: all ${workersLine[1]} processes ready`)) {
    if (server.child.exitCode !== null) throw new Error(`server exited before all its workers were ready:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const allWorkersSeconds = workersLine ? (performance.now() - spawned) / 1000 : server.startSeconds;
  return {
    baseUrl: server.baseUrl,
    pid,
    startSeconds: server.startSeconds,
    allWorkersSeconds,
    memory: () => processTreeMemory(pid),
    output: server.output,
    stop: server.stop,
  };
}

export interface ImportRun {
  imported: number;
  failed: number;
  /** The importer's own duration (read, map, embed, write), seconds. */
  importerSeconds: number;
  /** From the process's start until its "Imported" line came out: start, model load and the import. */
  recordsDoneSeconds: number;
  /** The whole command: process start, model load, the import, what follows it (the embedded store's graphs), shutdown. */
  wallSeconds: number;
  output: string;
}

/**
 * `orgsim import <file> --mapping <mapping>` (the product importer: embeds and writes) into a backend,
 * from the sources (as `pnpm orgsim import`) or from the bundle (as the Docker image runs it).
 */
export async function runImport(repo: string, target: BackendTarget, file: string, mapping: string, entry: OrgsimEntry = "sources"): Promise<ImportRun> {
  if (entry === "bundle") buildBundle(repo);
  const started = performance.now();
  const child = spawn(process.execPath, [...orgsimScript(entry), "import", file, "--mapping", mapping], {
    cwd: serverDir(repo),
    env: { ...process.env, ...backendEnv(target) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let recordsDoneSeconds = Number.NaN;
  const take = (chunk: Buffer) => {
    output += chunk;
    if (Number.isNaN(recordsDoneSeconds) && /^Imported /m.test(output)) recordsDoneSeconds = (performance.now() - started) / 1000;
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  const code = await new Promise<number>((resolve) => child.once("exit", (c) => resolve(c ?? 1)));
  const wallSeconds = (performance.now() - started) / 1000;
  const match = /Imported ([\d,]+) organizations from \S+ in ([\d.]+) (ms|s)/.exec(output);
  const failed = /failed ([\d,]+)/.exec(output);
  if (code !== 0 || !match) throw new Error(`orgsim import exited with ${code}:\n${output.slice(-4000)}`);
  const num = (s: string) => Number(s.replaceAll(",", ""));
  return {
    imported: num(match[1] as string),
    failed: failed ? num(failed[1] as string) : 0,
    importerSeconds: num(match[2] as string) / (match[3] === "ms" ? 1000 : 1),
    recordsDoneSeconds,
    wallSeconds,
    output,
  };
}
