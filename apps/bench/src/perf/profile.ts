/**
 * `pnpm bench:profile`: where a loaded server spends its CPU. Starts an orgsim server with V8's
 * CPU profiler (`--cpu-prof`) on a data directory a `pnpm bench:perf -- --keep` run left, loads it
 * with one search mode for a while, stops it (the profile is written at exit) and prints, as
 * Markdown tables, the functions with the most self time and each layer's share (profile-areas.ts).
 *
 *   pnpm bench:profile [-- --data-dir .orgsim/bench-perf/s-100k/embedded] [--backend embedded|embedded-exact|elasticsearch]
 *                      [--mode organization] [--filter none] [--ranking hybrid] [--connections 16] [--duration 20] [--top 15]
 *                      [--es-url http://127.0.0.1:9290] [--index-prefix perf-100k]
 *
 * With --backend elasticsearch the server searches the kept index of the same organizations on a
 * running node (the bench's, started again with `ES_PORT=9290 ES_HOME=.orgsim/elasticsearch-bench-9290
 * pnpm es:start`); the data directory still names the organizations to ask about.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openDatabase } from "@orgsim/backend-embedded";
import { findRepoRoot } from "@orgsim/embeddings";
import { loadTest } from "./load-test";
import { FILTER_LEVELS, type FilterLevel, MODES, type Mode, RANKINGS, type RankingName, searchPath } from "./queries";
import { BACKENDS, type BackendName, type BackendTarget, startServer } from "./server";
import { type CpuProfile, layerShares } from "./profile-areas";
import { currentLoad, readIntoPageCache } from "./system";

const argv = process.argv.slice(2).filter((a) => a !== "--");
const { values: args } = parseArgs({
  args: argv,
  options: {
    "data-dir": { type: "string", default: ".orgsim/bench-perf/s-100k/embedded" },
    backend: { type: "string", default: "embedded" },
    mode: { type: "string", default: "organization" },
    filter: { type: "string", default: "none" },
    ranking: { type: "string", default: "hybrid" },
    connections: { type: "string", default: "16" },
    duration: { type: "string", default: "20" },
    top: { type: "string", default: "15" },
    "es-url": { type: "string", default: "http://127.0.0.1:9290" },
    "index-prefix": { type: "string", default: "perf-100k" },
  },
});
const oneOf = <T extends string>(name: string, value: string, allowed: readonly T[]): T => {
  if (!allowed.includes(value as T)) throw new Error(`--${name} must be one of ${allowed.join(", ")}; got "${value}"`);
  return value as T;
};
const backend = oneOf<BackendName>("backend", args.backend, BACKENDS);
const mode = oneOf<Mode>("mode", args.mode, MODES);
const filter = oneOf<FilterLevel>("filter", args.filter, FILTER_LEVELS);
const ranking = oneOf<RankingName>("ranking", args.ranking, RANKINGS);

const repo = findRepoRoot();
const dataDir = resolve(repo, args["data-dir"]);
const profileDir = mkdtempSync(join(tmpdir(), "orgsim-profile-"));
// Its files read once first: the samples should show the search, not the disk.
if (backend !== "elasticsearch") readIntoPageCache(dataDir);
const target: BackendTarget = backend === "elasticsearch" ? { backend, esUrl: args["es-url"], indexPrefix: args["index-prefix"] } : { backend, dataDir };
// The sources through tsx, not the bundle: a profile's frames then name the files each layer is made of.
const server = await startServer(repo, target, { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`], entry: "sources" });

const ids = organizationIds(dataDir);
const queries = mode === "organization" ? ids : mode === "description" ? ["payments for small shops"] : ["dental clinics"];
const paths = queries.map((q) => searchPath(mode, q, filter, ranking));
const loadStarted = performance.now();
const result = await loadTest(server.baseUrl, paths, Number(args.connections), Number(args.duration), 2);
const loadEnded = performance.now();
await server.stop();
// The profile ends at the server's exit: count only the samples taken while it was loaded (start-up and shutdown left out).
const msBeforeExit = { from: performance.now() - loadStarted, to: performance.now() - loadEnded };

console.log(
  `${backend}, ${mode} / ${filter} / ${ranking}, ${args.connections} connections for ${args.duration} s: ` +
    `p50 ${result.latency_ms.p50} ms, ${result.requests_per_s} req/s; load average ${currentLoad().join(" ")}\n`,
);
const profile = newestProfile(profileDir);
const [from, to] = [profile.endTime - msBeforeExit.from * 1000, profile.endTime - msBeforeExit.to * 1000];
console.log(topFunctions(profile, from, to, Number(args.top)));
console.log(
  [
    "",
    "| layer | share of busy |",
    "|---|---:|",
    ...layerShares(profile, from, to).map(([layer, share]) => `| ${layer} | ${(100 * share).toFixed(1)} % |`),
  ].join("\n"),
);

/** Ids to ask about: 200 of the stored organizations, spread over the id range. */
function organizationIds(dir: string): number[] {
  const db = openDatabase(join(dir, "orgsim.sqlite"));
  try {
    return db.prepare<[], number>("SELECT id FROM organizations WHERE id % 97 = 0 LIMIT 200").pluck().all();
  } finally {
    db.close();
  }
}

/** The server's profile: the largest file (tsx's own short-lived processes write small ones too). */
function newestProfile(dir: string): CpuProfile {
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  if (!files.length) throw new Error(`no .cpuprofile in ${dir}: did the server exit normally?`);
  const texts = files.map((f) => readFileSync(join(dir, f), "utf8")).sort((a, b) => b.length - a.length);
  return JSON.parse(texts[0] as string) as CpuProfile;
}

/** Self time per function (samples × their time deltas) within the window, largest first, with each one's share of busy time. */
function topFunctions(profile: CpuProfile, from: number, to: number, top: number): string {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const frame = byNode.get(id)?.callFrame;
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (at < from || at > to) return;
    if (!frame || frame.functionName === "(idle)" || frame.functionName === "(program)") return;
    const where = frame.url ? `${frame.url.replace(/^.*\/(node_modules|packages|apps)\//, "$1/")}:${frame.lineNumber + 1}` : "";
    const key = `${frame.functionName || "(anonymous)"} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + us);
    busy += us;
  });
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `busy ${(busy / 1e6).toFixed(1)} s of the ${((to - from) / 1e6).toFixed(1)} s under load (warm-up included)`,
    "",
    "| function | self ms | share of busy |",
    "|---|---:|---:|",
    ...rows.map(([name, us]) => `| \`${name}\` | ${(us / 1000).toFixed(0)} | ${((100 * us) / busy).toFixed(1)} % |`),
  ].join("\n");
}
