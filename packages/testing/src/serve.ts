/**
 * `orgsim serve` as a child process, resolved once the server answers `GET /ready` with 200: the
 * one way the server tests and the benchmarks start a real server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { ORGSIM_NODE_FLAGS } from "@orgsim/runtime/node-flags";

export interface ServeOptions {
  /** apps/server, where `src/main.ts` lives. */
  serverDir: string;
  /** Added to this process's environment (backend, sample size...); PORT, HOST and ORGSIM_WORKERS default to 0, 127.0.0.1 and 1. */
  env?: Record<string, string>;
  /** Gives up (and kills the server) when it is not ready by then. */
  timeoutMs?: number;
  /** Keeps only about the last this many characters of the output (long benchmark runs); unbounded when absent. */
  keepOutputChars?: number;
  /** Options for node itself, before the script (e.g. `--cpu-prof`, which NODE_OPTIONS may not carry). */
  nodeArgs?: string[];
  /** What runs: the TypeScript sources through tsx (the default), or the esbuild bundle `dist/orgsim.mjs`. */
  entry?: OrgsimEntry;
  /** false: without orgsim's V8 flags, as whoever runs `node dist/orgsim.mjs` by hand. */
  nodeFlags?: boolean;
}

/**
 * The bundle starts about 0.7 s sooner than the sources through tsx (measured: 0.95 s against 1.67 s to /ready
 * with an empty store), which the server suite pays on every one of its many starts. Whoever picks it builds
 * it first (`node build.mjs` in apps/server), so that it is the current sources.
 */
export type OrgsimEntry = "sources" | "bundle";

/** node's arguments that run the orgsim command from `serverDir` (before the command's own arguments), with orgsim's V8 flags as its launchers give them. */
export function orgsimScript(entry: OrgsimEntry = "sources", nodeFlags = true): string[] {
  return [...(nodeFlags ? ORGSIM_NODE_FLAGS : []), ...(entry === "bundle" ? ["dist/orgsim.mjs"] : ["--import", "tsx", "src/main.ts"])];
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServeProcess {
  /** e.g. http://127.0.0.1:41234 (REST is under /v1). */
  baseUrl: string;
  child: ChildProcess;
  /** Seconds from spawn until /ready answered 200. */
  startSeconds: number;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** SIGTERM (a graceful drain) when still running, and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL when still running, and wait for the exit. */
  kill(): Promise<void>;
}

const POLL_MS = 100;

export async function startOrgsimServe(options: ServeOptions): Promise<ServeProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...orgsimScript(options.entry, options.nodeFlags), "serve"], {
    cwd: options.serverDir,
    // One server process unless a test asks for more (ORGSIM_WORKERS): the suite starts many servers on two cores.
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ORGSIM_WORKERS: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    const limit = options.keepOutputChars;
    if (limit !== undefined && output.length > 2 * limit) output = output.slice(-limit);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  const deadline = started + (options.timeoutMs ?? 10 * 60_000);
  try {
    const baseUrl = await untilReady(() => output, exited, deadline);
    return {
      baseUrl,
      child,
      startSeconds: (performance.now() - started) / 1000,
      output: () => output,
      exited,
      stop: () => signal("SIGTERM"),
      kill: () => signal("SIGKILL"),
    };
  } catch (error) {
    await signal("SIGKILL");
    throw error;
  }
}

/**
 * With PORT=0 the operating system gives the server its port, so no other process can take it
 * between choosing and listening; the server names its address once, on its REST line. Readiness
 * itself is `GET /ready` answering 200.
 */
async function untilReady(output: () => string, exited: Promise<Exit>, deadline: number): Promise<string> {
  let exit: Exit | undefined;
  void exited.then((e) => (exit = e));
  let baseUrl: string | undefined;
  for (;;) {
    if (exit) throw new Error(`server exited (${exit.code ?? exit.signal}) before it was ready:\n${output()}`);
    if (performance.now() > deadline) throw new Error(`server not ready in time:\n${output()}`);
    baseUrl ??= /REST\s+(http:\/\/\S+)\/v1/.exec(output())?.[1];
    if (baseUrl && (await answersReady(baseUrl))) return baseUrl;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function answersReady(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/ready`, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false; // not listening yet, or no answer within 5 s: ask again
  }
}
