/**
 * The V8 flags the orgsim command's processes (`serve`, `import`, ...) run with: given by its
 * launchers (the Dockerfile, apps/server's `start` and `cli` scripts, `pnpm bench:perf`, the tests'
 * and the bench's spawns) and added to the cluster's workers. The MCP stdio server does no bulk
 * writes and runs without them. This module imports nothing, so the tests' launcher loads it alone
 * (the package's `./node-flags` export).
 *
 * V8's semi-spaces of 64 MiB instead of Node's 16: a bulk write allocates about 24 KB an organization
 * and keeps its batch until the write commits, so with 16 MiB a scavenge came every few hundred
 * organizations and copied the batches in flight, then promoted them for the old generation's
 * collector to trace. At 100k, `orgsim import` of a file took 13.3 s against 14.8 s (means of five
 * runs each, in turn), and the store path alone wrote 17,310 organizations/s against 16,214 (15 runs
 * each; faster in 13 of the 15 pairs). 32 and 128 MiB did no better than 64 (docs/benchmarks.md,
 * "A larger young generation for bulk writes").
 */
export const ORGSIM_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=64"];

const nameOf = (flag: string) => flag.split("=")[0] as string;

/** Node's own arguments and NODE_OPTIONS' words (this process's, unless given) that set one of ORGSIM_NODE_FLAGS, with their values. */
export function nodeFlagsSet(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ""): string[] {
  const names = new Set(ORGSIM_NODE_FLAGS.map(nameOf));
  return [...execArgv, ...nodeOptions.split(/\s+/)].filter((arg) => names.has(nameOf(arg)));
}

/** Those of ORGSIM_NODE_FLAGS that node's arguments and NODE_OPTIONS do not set; a value set there is kept. */
export function missingNodeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ""): string[] {
  const set = new Set(nodeFlagsSet(execArgv, nodeOptions).map(nameOf));
  return ORGSIM_NODE_FLAGS.filter((flag) => !set.has(nameOf(flag)));
}

/** `execArgv` with the flags it lacks added (NODE_OPTIONS counted as given): for a child process of orgsim. */
export function withNodeFlags(execArgv: readonly string[], nodeOptions = process.env.NODE_OPTIONS ?? ""): string[] {
  return [...missingNodeFlags(execArgv, nodeOptions), ...execArgv];
}
