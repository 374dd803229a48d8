/**
 * `pnpm bench:perf`: speed and scale of orgsim, embedded and Elasticsearch side by side, over real
 * HTTP against real server processes (see docs/benchmarks.md, "Speed and scale").
 *
 *   pnpm bench:perf [-- --scales 10k,100k,1m] [--duration 8] [--warmup 2] [--concurrency 1,16]
 *                   [--real-yc 1000] [--real-equities 1000] [--es-heap 4g] [--es-port 9290]
 *                   [--ids spread] [--seed 42] [--noise 0.35] [--shared] [--skip-import] [--keep] [--reuse-data]
 *                   [--fresh]
 *                   [--report-only] [--skip-docs] [--out file] [--rankings hybrid,vector]
 *                   [--backends embedded,embedded-exact,elasticsearch]
 *
 * Per run: a clean Elasticsearch node of its own (tools/elasticsearch-node, ES_PORT 9290, state in
 * .orgsim/elasticsearch-bench-9290), stopped at the end; the product importer embeds a real subset
 * into each backend (import throughput with embedding); then per scale: the dataset is written
 * into each backend through OrganizationService.upsertMany with its vectors given (the product's
 * path for vectors computed elsewhere: import throughput with vectors given), and up to 100k also
 * from an NDJSON file through `orgsim import` into a store of its own (import-command.ts), one server per
 * backend is started on it, recall at 10 of Elasticsearch against the embedded backend's exact
 * search is measured, and autocannon loads each server per search mode, filter and concurrency. Memory and disk are read after loading and after the load runs.
 * --backends without elasticsearch writes, starts and measures no Elasticsearch at all: the scale's
 * Elasticsearch numbers are carried over from its earlier run, and the report says so (a 1m run of
 * the embedded backend alone takes minutes instead of an hour of Elasticsearch import and merges).
 * Likewise the load rows of an embedded backend left out are carried over (the embedded servers still
 * start: they are the recall reference).
 * --keep leaves each scale's embedded data directory in .orgsim/bench-perf, and its Elasticsearch
 * index on the node's state; --reuse-data measures on such a directory and such an index (each when
 * it holds the same dataset) instead of writing them again, and carries the write figures over from
 * the run that wrote them (the directory's files are read once first, into the page cache).
 * --ids consecutive gives the synthetic organizations consecutive ids, as runs before `spread` (the
 * default: in no order, as the importer's hashed ids) did.
 * Results merge into apps/bench/results/perf.json (scales not run keep their earlier numbers);
 * the "Speed and scale" section of docs/benchmarks.md and its plots are rewritten from it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { countriesInRegion, type OrganizationRecord, type VectorModel } from "@orgsim/core";
import { findRepoRoot } from "@orgsim/embeddings";
import { loadConfig } from "@orgsim/runtime";
import { missingNodeFlags } from "@orgsim/runtime/node-flags";
import { seededRandom } from "@orgsim/sample-data";
import {
  corpora,
  Dataset,
  DEFAULT_SYNTHETIC,
  harvest,
  loadReal,
  type RealSubset,
  realSubset,
  SYNTHETIC_IDS,
  type SyntheticIds,
  type SyntheticOptions,
  saveReal,
} from "./data";
import { carriedOver } from "./carry";
import { RecordingProxy, recordRequests, type ReplayResult, replayedFloor } from "./es-replay";
import { deleteIndices, type EsJvm, type EsNode, forceMerge, indexStats, jvmStats, settle, startEsNode, withoutRequestCache } from "./es-node";
import { rawGraphSearch, rawKnnSearch } from "./floor";
import { IMPORT_COMMAND_UP_TO, type ImportCommandResult, measureImportCommand } from "./import-command";
import { formatDuration, loadElasticsearch, loadEmbedded, LOAD_BATCH } from "./load";
import { type CpuMeters, loadTest } from "./load-test";
import {
  CUSTOMER_QUERIES,
  DESCRIPTION_QUERIES,
  FILTER_LEVELS,
  FILTERS,
  lookupPaths,
  type FilterLevel,
  MODES,
  type Mode,
  RANKINGS,
  type RankingName,
  searchPath,
} from "./queries";
import { measureRecall } from "./recall";
import { writeReport } from "./report";
import { BACKENDS, type BackendName, type BackendTarget, type RunningServer, runImport, startServer } from "./server";
import { mean, parseScale, scaleLabel } from "./stats";
import { currentLoad, diskUsage, machine, type ProcessMemory, processTreeCpuSeconds, readIntoPageCache } from "./system";
import type { PerfResults, ScaleResult } from "./types";

const argv = process.argv.slice(2).filter((a) => a !== "--");
const { values: args } = parseArgs({
  args: argv,
  options: {
    scales: { type: "string", default: "10k,100k,1m" },
    duration: { type: "string", default: "8" },
    warmup: { type: "string", default: "2" },
    concurrency: { type: "string", default: "1,16" },
    rankings: { type: "string", default: "hybrid,vector" },
    backends: { type: "string", default: BACKENDS.join(",") },
    "real-yc": { type: "string", default: "1000" },
    "real-equities": { type: "string", default: "1000" },
    "es-heap": { type: "string", default: "4g" },
    "es-port": { type: "string", default: "9290" },
    ids: { type: "string", default: DEFAULT_SYNTHETIC.ids },
    seed: { type: "string", default: String(DEFAULT_SYNTHETIC.seed) },
    noise: { type: "string", default: String(DEFAULT_SYNTHETIC.noise) },
    shared: { type: "boolean", default: false },
    "skip-import": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    "reuse-data": { type: "boolean", default: false },
    fresh: { type: "boolean", default: false },
    "report-only": { type: "boolean", default: false },
    "skip-docs": { type: "boolean", default: false },
    "force-merge-up-to": { type: "string", default: "100k" },
    out: { type: "string" },
  },
});

// The store path (load.ts) is measured in this process: with the V8 flags `orgsim import` runs with.
const missingFlags = missingNodeFlags();
if (missingFlags.length > 0 && !args["report-only"]) {
  throw new Error(`run the bench with orgsim's V8 flags, as \`pnpm bench:perf\` does: node ${missingFlags.join(" ")} --import tsx src/perf/main.ts`);
}

const repo = findRepoRoot();
const benchDir = join(repo, "apps", "bench");
const outFile = resolve(args.out ?? join(benchDir, "results", "perf.json"));
const workDir = join(repo, ".orgsim", "bench-perf");
const scales = args.scales.split(",").map(parseScale);
const durationS = Number(args.duration);
const warmupS = Number(args.warmup);
const concurrencies = args.concurrency.split(",").map(Number);
const rankings = args.rankings.split(",").map((r) => {
  if (!RANKINGS.includes(r as RankingName)) throw new Error(`--rankings: unknown ranking "${r}" (${RANKINGS.join(", ")})`);
  return r as RankingName;
});
const loadBackends = args.backends.split(",").map((b) => {
  if (!BACKENDS.includes(b as BackendName)) throw new Error(`--backends: unknown backend "${b}" (${BACKENDS.join(", ")})`);
  return b as BackendName;
});
/** Without Elasticsearch among --backends, a scale's Elasticsearch numbers are carried over from its earlier run (see runScale). */
const withElasticsearch = loadBackends.includes("elasticsearch");
const seed = Number(args.seed);
const noise = Number(args.noise);
if (!SYNTHETIC_IDS.includes(args.ids as SyntheticIds)) throw new Error(`--ids: unknown id order "${args.ids}" (${SYNTHETIC_IDS.join(", ")})`);
const synthetic: SyntheticOptions = { ...DEFAULT_SYNTHETIC, ids: args.ids as SyntheticIds, seed, noise };
const forceMergeUpTo = parseScale(args["force-merge-up-to"]);
const command = `pnpm bench:perf -- ${argv.join(" ")}`.trim();

const runStarted = performance.now();
const log = (line: string) => console.log(`[${formatDuration((performance.now() - runStarted) / 1000).padStart(6)}] ${line}`);
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

function readResults(): PerfResults | null {
  if (args.fresh || !existsSync(outFile)) return null;
  return JSON.parse(readFileSync(outFile, "utf8")) as PerfResults;
}

function save(results: PerfResults) {
  mkdirSync(join(outFile, ".."), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
}

if (args["report-only"]) {
  const results = readResults();
  if (!results) throw new Error(`no results at ${outFile}`);
  await writeReport(repo, results, log);
  process.exit(0);
}

const previous = readResults();
const results: PerfResults = {
  benchmark: "orgsim speed and scale (issue 6, part 2)",
  machine: machine(repo, args.shared),
  command,
  settings: {
    scales: scales.map(scaleLabel),
    duration_s: durationS,
    warmup_s: warmupS,
    concurrency: concurrencies,
    rankings,
    load_generator: "autocannon 9 (in the bench process, on the same machine)",
    es_heap: args["es-heap"],
    es_port: Number(args["es-port"]),
    es_index:
      "int8_hnsw (server default), num_candidates 500, rescore oversample: the server default (int8: 1 since commit 687aae0, 3 before), no refresh per bulk and one at the end of the load (as orgsim import)",
    import_batch: LOAD_BATCH,
    seed,
    synthetic,
    filters: FILTERS,
    queries: { organization_ids: 200, descriptions: DESCRIPTION_QUERIES.length, customer_descriptions: CUSTOMER_QUERIES.length },
  },
  import_with_embedding: previous?.import_with_embedding ?? null,
  data: previous?.data ?? null,
  scales: previous?.scales ?? {},
};

let es: EsNode | null = null;
const servers: { stop(): Promise<void> }[] = [];
async function cleanUp() {
  for (const s of servers.splice(0)) await s.stop().catch(() => {});
  es?.stop();
  es = null;
}
process.on("SIGINT", () => {
  log("interrupted: stopping the servers and the Elasticsearch node");
  void cleanUp().finally(() => process.exit(130));
});

try {
  mkdirSync(workDir, { recursive: true });
  if (withElasticsearch || !args["skip-import"]) {
    es = await startEsNode(repo, { port: Number(args["es-port"]), heap: args["es-heap"], keep: args["reuse-data"], log });
    results.machine.elasticsearch = es.version;
    results.machine.java = es.jvm;
  } else {
    results.machine.elasticsearch = previous?.machine.elasticsearch ?? null;
    results.machine.java = previous?.machine.java ?? results.machine.java;
  }

  // --- real organizations: import with embedding (the product importer), then their vectors ---
  const realFile = join(workDir, "real.json");
  let real: { model: VectorModel; records: OrganizationRecord[] };
  if (args["skip-import"] && existsSync(realFile)) {
    log(`--skip-import: reusing the real organizations and vectors of an earlier run (${realFile})`);
    real = loadReal(realFile);
  } else {
    if (!es) throw new Error("unreachable: the Elasticsearch node starts whenever the real organizations are imported");
    const node = es;
    const [yc, equities] = corpora(repo) as [ReturnType<typeof corpora>[number], ReturnType<typeof corpora>[number]];
    const subsets: RealSubset[] = [
      await realSubset(yc, Number(args["real-yc"]), join(workDir, "real")),
      await realSubset(equities, Number(args["real-equities"]), join(workDir, "real")),
    ];
    const importResults: NonNullable<PerfResults["import_with_embedding"]> = {
      run: { date: new Date().toISOString(), load_at_start: currentLoad(), shared: args.shared, command, cpu: results.machine.cpu },
      note: "orgsim import <subset> --mapping examples/mappings/<corpus>.json (the product CLI: map, validate, embed profile and customer texts with bge-small-en-v1.5-q one text per model run, write in batches of 64). importer_s is the importer's own time; wall_s adds process start, model load and shutdown.",
      backends: {},
    };
    const importDir = join(workDir, "import-embedded");
    rmSync(importDir, { recursive: true, force: true });
    await deleteIndices(node, "perf-import");
    for (const backend of ["embedded", "elasticsearch"] as const) {
      const target: BackendTarget = backend === "embedded" ? { backend, dataDir: importDir } : { backend, esUrl: node.url, indexPrefix: "perf-import" };
      const perCorpus: Record<string, { organizations: number; failed: number; importer_s: number; wall_s: number; per_second: number }> = {};
      for (const subset of subsets) {
        log(`import with embedding: ${subset.organizations.length} ${subset.corpus.name} organizations into ${backend} (orgsim import) ...`);
        const run = await runImport(repo, target, subset.file, subset.corpus.mapping);
        perCorpus[subset.corpus.name] = {
          organizations: run.imported,
          failed: run.failed,
          importer_s: round(run.importerSeconds),
          wall_s: round(run.wallSeconds),
          per_second: round(run.imported / run.importerSeconds),
        };
        log(
          `  ${run.imported} imported in ${run.importerSeconds.toFixed(1)} s: ${(run.imported / run.importerSeconds).toFixed(1)} orgs/s (wall ${run.wallSeconds.toFixed(1)} s)`,
        );
      }
      const all = Object.values(perCorpus);
      const organizations = all.reduce((s, c) => s + c.organizations, 0);
      const importerS = all.reduce((s, c) => s + c.importer_s, 0);
      importResults.backends[backend] = { corpora: perCorpus, organizations, importer_s: round(importerS), per_second: round(organizations / importerS) };
    }
    results.import_with_embedding = importResults;
    real = await harvest(
      importDir,
      subsets.flatMap((s) => s.organizations),
    );
    saveReal(realFile, real.model, real.records);
    rmSync(importDir, { recursive: true, force: true });
    await deleteIndices(node, "perf-import");
    save(results);
  }

  const dataset = new Dataset(real.records, synthetic);
  results.data = describeData(dataset, real.model);
  log(
    `data: ${dataset.real.length} real organizations (${results.data.real_with_customer_vector} with a customer-base vector), then synthetic ones; ` +
      `nearest-neighbour cosine: real among real ${results.data.nearest_neighbour_cosine.real_among_real}; in the first 10k real ${results.data.nearest_neighbour_cosine.real}, synthetic ${results.data.nearest_neighbour_cosine.synthetic}`,
  );

  for (const scale of scales) {
    const label = scaleLabel(scale);
    log(`=== ${label}: ${scale.toLocaleString("en")} organizations ===`);
    results.scales[label] = await runScale(withElasticsearch ? es : null, dataset, real.model, scale);
    results.machine.load_at_end = currentLoad();
    save(results);
    log(`${label} done in ${formatDuration(results.scales[label].run.seconds)}; results in ${outFile}`);
  }
} finally {
  await cleanUp();
}
results.machine.load_at_end = currentLoad();
save(results);
if (!args["skip-docs"]) await writeReport(repo, results, log);
log(`done in ${formatDuration((performance.now() - runStarted) / 1000)}`);

async function runScale(node: EsNode | null, dataset: Dataset, model: VectorModel, scale: number): Promise<ScaleResult> {
  const started = performance.now();
  const label = scaleLabel(scale);
  const earlier = previous?.scales[label];
  if (!node && !earlier)
    throw new Error(`--backends ${args.backends}: without Elasticsearch, ${label} needs an earlier run to carry its Elasticsearch numbers over from`);
  const loadAtStart = currentLoad();
  const dataDir = join(workDir, `s-${label}`, "embedded");
  const prefix = `perf-${label}`;

  // Filter selectivity, from the generated records (the same predicate the stores apply).
  const matches = countMatches(dataset, scale);
  const importCommand = await importCommandFigures(dataset, scale, earlier);
  const written = (args["reuse-data"] && reusableData(dataDir, dataset, scale, earlier)) || (await writeEmbedded(dataset, model, scale, dataDir));
  const embedded = await startScaleServer({ backend: "embedded", dataDir });
  // The exact server is the recall reference; unless its own speed is measured, one process spares the memory of a second copy.
  const exactWorkers = loadBackends.includes("embedded-exact") ? undefined : 1;
  const exact = await startScaleServer({ backend: "embedded-exact", dataDir }, exactWorkers);
  const byBackend: ScaleServers = { embedded, "embedded-exact": exact };
  const embeddedMemStart = embedded.memory();
  const queries = scaleQueries(dataset, scale);
  const names = scaleNames(dataset, scale);

  // The embedded servers are measured before Elasticsearch is written: the merges that follow its
  // import go on for minutes (segments 58 -> 22 during a 100k run's loads) and took the cores from them.
  log("recall at 10 of the embedded backend's HNSW graphs against exact search ...");
  const embeddedRecall = await recallTable(exact.baseUrl, embedded.baseUrl, queries, "embedded: ");
  const embeddedRuns = await loadPhase(
    byBackend,
    queries,
    names,
    loadBackends.filter((b) => b !== "elasticsearch"),
  );
  const floor = rawGraphSearch(dataDir, queries.ids, model.dimension);
  log(`embedded floor: usearch's own top-10 search on the profile graph, p50 ${floor.latency_ms.p50} ms, p99 ${floor.latency_ms.p99} ms`);
  const embeddedMemAfterLoad = embedded.memory();
  const restarted = await restartEmbedded(byBackend, dataDir, exactWorkers);
  const exactUrl = serverOf(byBackend, "embedded-exact").baseUrl;

  const esWritten = node
    ? (args["reuse-data"] && (await reusableIndex(node, dataset, scale, prefix, earlier))) || (await writeElasticsearch(node, dataset, model, scale, prefix))
    : null;
  const elastic = node ? await startScaleServer({ backend: "elasticsearch", esUrl: node.url, indexPrefix: prefix }) : null;
  if (elastic) byBackend.elasticsearch = elastic;
  const esMemStart = elastic?.memory() ?? null;
  const jvmStart = node ? await jvmStats(node) : null;
  let recall: ScaleResult["recall"] | null = null;
  if (elastic) {
    log("recall at 10 of elasticsearch against exact search (the embedded backend with ORGSIM_VECTOR_INDEX=exact) ...");
    recall = await recallTable(exactUrl, elastic.baseUrl, queries, "");
  }
  const esRuns = elastic ? await loadPhase(byBackend, queries, names, ["elasticsearch"]) : { load: [], lookup: [], explain: [] };
  const esPart =
    node && esWritten && elastic && jvmStart
      ? await elasticsearchPart(node, prefix, dataDir, queries, esWritten, { server: elastic, memoryAfterStart: esMemStart, jvmStart, exactUrl })
      : null;

  // A backend left out (--backends): its rows, and the run they come from, carried over from the scale's earlier run.
  const carried = carriedOver(earlier, new Set([...loadBackends.filter((b) => b !== "elasticsearch"), ...(esPart ? (["elasticsearch"] as const) : [])]));
  const result: ScaleResult = {
    organizations: scale,
    real_organizations: Math.min(scale, dataset.real.length),
    run: {
      date: new Date().toISOString(),
      seconds: 0,
      load_at_start: loadAtStart,
      load_at_end: currentLoad(),
      shared: args.shared,
      command,
      git_commit: results.machine.git_commit,
      cpu: results.machine.cpu,
      server_workers: loadConfig({ ORGSIM_WORKERS: process.env.ORGSIM_WORKERS }).workers,
      ...(node ? { elasticsearch_jvm: node.jvm } : {}),
    },
    ...(esPart ? {} : { elasticsearch_run: earlier?.elasticsearch_run ?? earlier?.run }),
    ...(carried.carriedLoads ? { carried_loads: carried.carriedLoads } : {}),
    load_warmup_pass: carried.warmupPass,
    filter_matches: matches,
    embedded: {
      import_vectors_given: written.load,
      ...(importCommand ? { import_command: importCommand } : {}),
      disk_bytes: written.disk,
      server_start_s: round(embedded.startSeconds),
      server_start_all_workers_s: round(embedded.allWorkersSeconds),
      server_restart_s: round(restarted.startSeconds),
      server_restart_all_workers_s: round(restarted.allWorkersSeconds),
      server_memory_after_start: embeddedMemStart,
      // With its loads carried over, the memory after them too: this run made none.
      server_memory_after_load: carried.embeddedMemoryAfterLoad !== undefined ? carried.embeddedMemoryAfterLoad : embeddedMemAfterLoad,
      raw_graph_search: floor,
    },
    elasticsearch: esPart ?? (earlier as ScaleResult).elasticsearch,
    recall: recall ?? (earlier as ScaleResult).recall,
    embedded_recall: embeddedRecall,
    load: [...embeddedRuns.load, ...esRuns.load, ...carried.load],
    lookup: [...embeddedRuns.lookup, ...esRuns.lookup, ...carried.lookup],
    explain: [...embeddedRuns.explain, ...esRuns.explain, ...carried.explain],
  };
  for (const server of servers.splice(0)) await server.stop();
  if (!args.keep) {
    rmSync(join(workDir, `s-${label}`), { recursive: true, force: true });
    if (node) await deleteIndices(node, prefix);
  }
  result.run.seconds = round((performance.now() - started) / 1000);
  return result;
}

type ScaleServers = Partial<Record<BackendName, RunningServer>>;

/** The server of a backend whose runs were asked for (--backends); Elasticsearch's is absent only when it is left out. */
function serverOf(byBackend: ScaleServers, backend: BackendName): RunningServer {
  const server = byBackend[backend];
  if (!server) throw new Error(`no ${backend} server in this run`);
  return server;
}

/** Elasticsearch's side of a scale: its import, the server's memory and the JVM's, its floor, and the force-merged run. */
async function elasticsearchPart(
  node: EsNode,
  prefix: string,
  dataDir: string,
  queries: ScaleQueries,
  written: Awaited<ReturnType<typeof writeElasticsearch>>,
  running: { server: RunningServer; memoryAfterStart: ProcessMemory | null; jvmStart: EsJvm; exactUrl: string },
): Promise<ScaleResult["elasticsearch"]> {
  const esFloor = await rawKnnSearch(node.url, prefix, dataDir, queries.ids);
  log(`elasticsearch floor: its own kNN _search (ids only), p50 ${esFloor.latency_ms.p50} ms, p99 ${esFloor.latency_ms.p99} ms`);
  const replayed = await replayedRequests(node.url, prefix, queries);
  const memoryAfterLoad = running.server.memory();
  const jvmAfterLoad = await jvmStats(node);
  const scale = queries.scale;
  const merged = scale <= forceMergeUpTo ? await forceMergedRun(node, prefix, running.exactUrl, running.server.baseUrl, queries) : null;
  return {
    import_vectors_given: written.load,
    merge_settle_s: round(written.settleSeconds),
    request_cache_off: true,
    index: written.index,
    server_start_s: round(running.server.startSeconds),
    server_memory_after_start: running.memoryAfterStart,
    server_memory_after_load: memoryAfterLoad,
    jvm_after_start: running.jvmStart,
    jvm_after_load: jvmAfterLoad,
    raw_knn_search: esFloor,
    replayed_requests: replayed,
    force_merged: merged,
  };
}

/** Elasticsearch's floor for the server's own requests (es-replay.ts), for each ranking run: a server of one worker behind a recording proxy. */
async function replayedRequests(esUrl: string, prefix: string, queries: ScaleQueries): Promise<Partial<Record<RankingName, ReplayResult>>> {
  const proxy = new RecordingProxy(esUrl);
  const recorder = await startServer(repo, { backend: "elasticsearch", esUrl: await proxy.start(), indexPrefix: prefix }, { workers: 1 });
  try {
    const floors: Partial<Record<RankingName, ReplayResult>> = {};
    for (const ranking of rankings) {
      const recorded = await recordRequests(
        proxy,
        recorder.baseUrl,
        queries.ids.map((id) => searchPath("organization", id, "none", ranking)),
      );
      const floor = await replayedFloor(esUrl, `${prefix}-organizations`, recorded);
      floors[ranking] = floor;
      log(
        `elasticsearch floor of the ${ranking} ranking's own requests (${floor.requests_per_query} a search, ${floor.round_trips_per_query} one after another), replayed: ` +
          `p50 ${floor.latency_ms.p50} ms, p99 ${floor.latency_ms.p99} ms`,
      );
    }
    return floors;
  } finally {
    await recorder.stop();
    await proxy.stop();
  }
}

/** What a kept data directory holds (written beside it): --reuse-data measures on it only when the dataset asked for is this one. */
interface KeptData {
  scale: number;
  real: number;
  synthetic: SyntheticOptions;
}
/** A function declaration: the run's top level calls it before a `const` here would be initialized. */
function keptDataFile(dataDir: string): string {
  return join(dataDir, "..", "bench-dataset.json");
}

/** `orgsim import` of the scale's organizations from a file (import-command.ts); with --reuse-data, the earlier run's figures when it has them. */
async function importCommandFigures(dataset: Dataset, scale: number, earlier: ScaleResult | undefined): Promise<ImportCommandResult | undefined> {
  if (scale > IMPORT_COMMAND_UP_TO) return undefined;
  if (args["reuse-data"] && earlier?.embedded.import_command) {
    log("--reuse-data: the orgsim import figures of the earlier run");
    return earlier.embedded.import_command;
  }
  return measureImportCommand(repo, dataset, scale, workDir, log);
}

/** Writes the scale's organizations with their vectors given through OrganizationService.upsertMany into the embedded backend, from empty. */
async function writeEmbedded(dataset: Dataset, model: VectorModel, scale: number, dataDir: string) {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(keptDataFile(dataDir), { force: true });
  log(`embedded: writing ${scale.toLocaleString("en")} organizations with their vectors given (OrganizationService.upsertMany, ${LOAD_BATCH} a call) ...`);
  const load = await loadEmbedded(dataDir, dataset, scale, model, log);
  const kept: KeptData = { scale, real: dataset.real.length, synthetic: dataset.options };
  writeFileSync(keptDataFile(dataDir), JSON.stringify(kept));
  return { load, disk: diskUsage(dataDir) };
}

/** The kept data directory's write figures (from the run that wrote it) when it holds this very dataset; null otherwise. */
function reusableData(dataDir: string, dataset: Dataset, scale: number, earlier: ScaleResult | undefined) {
  const file = keptDataFile(dataDir);
  const kept = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as KeptData) : null;
  const same = kept && kept.scale === scale && kept.real === dataset.real.length && JSON.stringify(kept.synthetic) === JSON.stringify(dataset.options);
  if (!same || !earlier) {
    log(`--reuse-data: ${dataDir} does not hold this dataset (or no earlier run of the scale has its write figures): writing it`);
    return null;
  }
  log(`--reuse-data: measuring on ${dataDir} as written by the run of ${earlier.run.date}`);
  const started = performance.now();
  const bytes = readIntoPageCache(dataDir);
  log(`  read its ${(bytes / 2 ** 20).toFixed(0)} MiB once, into the page cache, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const { reused_from, ...load } = earlier.embedded.import_vectors_given;
  return { load: { ...load, reused_from: reused_from ?? earlier.run }, disk: earlier.embedded.disk_bytes };
}

/**
 * The kept index's write figures (from the run that wrote it) when it holds this very dataset: every
 * organization, and a sample of them with the dataset's names and profile vectors; null otherwise.
 */
async function reusableIndex(node: EsNode, dataset: Dataset, scale: number, prefix: string, earlier: ScaleResult | undefined) {
  const index = await indexStats(node, prefix).catch(() => null);
  // First records of batches: a record is generated from its batch's start, as the load wrote it.
  const batches = Math.ceil(scale / LOAD_BATCH);
  const starts = new Set(Array.from({ length: 20 }, (_, k) => Math.floor((k * batches) / 20) * LOAD_BATCH));
  const sample = [...starts].map((start) => dataset.batch(start, 1)[0] as OrganizationRecord);
  const kept = index?.docs === scale && earlier?.elasticsearch && (await holdsRecords(node, prefix, sample));
  if (!kept || !earlier) {
    log(`--reuse-data: the index ${prefix}-organizations does not hold this dataset (or no earlier run of the scale has its write figures): writing it`);
    return null;
  }
  const from = earlier.elasticsearch.import_vectors_given.reused_from ?? earlier.elasticsearch_run ?? earlier.run;
  log(`--reuse-data: measuring on the kept index ${prefix}-organizations as written by the run of ${from.date} (${index.segments} segments)`);
  // As a fresh write leaves it: in the page cache (the embedded runs before it took the cache).
  const started = performance.now();
  const bytes = readIntoPageCache(join(node.home, "data"));
  log(`  read the node's ${(bytes / 2 ** 20).toFixed(0)} MiB once, into the page cache, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await withoutRequestCache(node, prefix);
  const load = { ...earlier.elasticsearch.import_vectors_given, reused_from: from };
  return { load, settleSeconds: earlier.elasticsearch.merge_settle_s, index };
}

/** Whether the index holds `records` as they are: each one's name, and its profile vector to float32 precision. */
async function holdsRecords(node: EsNode, prefix: string, records: OrganizationRecord[]): Promise<boolean> {
  const response = await fetch(`${node.url}/${prefix}-organizations/_mget?_source_includes=doc.name,profile_vector`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ids: records.map((r) => String(r.organization.id)) }),
  });
  if (!response.ok) return false;
  const { docs } = (await response.json()) as { docs: { found: boolean; _source?: { doc: { name: string }; profile_vector: number[] } }[] };
  return records.every((r, i) => {
    const kept = docs[i]?._source;
    return kept?.doc.name === r.organization.name && kept.profile_vector.every((v, j) => Math.abs(v - (r.profileVector[j] as number)) < 1e-6);
  });
}

/** The same into Elasticsearch, from empty, until its merges settle. */
async function writeElasticsearch(node: EsNode, dataset: Dataset, model: VectorModel, scale: number, prefix: string) {
  await deleteIndices(node, prefix);
  log(
    `elasticsearch: writing ${scale.toLocaleString("en")} organizations with their vectors given (OrganizationService.upsertMany, ${LOAD_BATCH} a call, up to 4 bulk requests at once each, one refresh at the end) ...`,
  );
  const load = await loadElasticsearch(node.url, prefix, dataset, scale, model, log);
  const settleSeconds = await settle(node, prefix, log);
  await withoutRequestCache(node, prefix);
  const index = await indexStats(node, prefix);
  log(`  elasticsearch: merges settled after ${settleSeconds.toFixed(1)} s; ${index.segments} segments, store ${(index.store_bytes / 2 ** 20).toFixed(0)} MiB`);
  return { load, settleSeconds, index };
}

/** A server on the scale's data, stopped by cleanUp if the run is interrupted (both embedded ones share the data directory). */
async function startScaleServer(target: BackendTarget, workers?: number): Promise<RunningServer> {
  const server = await startServer(repo, target, { workers });
  servers.push(server);
  const all = server.allWorkersSeconds > server.startSeconds ? `, all its workers in ${server.allWorkersSeconds.toFixed(1)} s` : "";
  log(`  ${target.backend} ready in ${server.startSeconds.toFixed(1)} s${all} (${server.baseUrl})`);
  return server;
}

/**
 * Stops both embedded servers and starts the approximate one again on the same data, alone: a start
 * as a deployment makes it. Its first start comes right after the write, beside the write-back of
 * gigabytes just written, and the exact server's two workers (5.3 GiB at 1M) then leave less page cache
 * for the files it reads. The exact server starts again afterwards, unmeasured.
 */
async function restartEmbedded(byBackend: ScaleServers, dataDir: string, exactWorkers: number | undefined): Promise<RunningServer> {
  for (const backend of ["embedded", "embedded-exact"] as const) {
    const running = serverOf(byBackend, backend);
    await running.stop();
    servers.splice(servers.indexOf(running), 1);
  }
  const again = await startScaleServer({ backend: "embedded", dataDir });
  byBackend.embedded = again;
  byBackend["embedded-exact"] = await startScaleServer({ backend: "embedded-exact", dataDir }, exactWorkers);
  return again;
}

/** A scale's queries: 200 organization ids sampled from its dataset (real and synthetic alike), and the fixed texts. */
interface ScaleQueries {
  scale: number;
  ids: number[];
  of(mode: Mode): (number | string)[];
}

function scaleQueries(dataset: Dataset, scale: number): ScaleQueries {
  const random = seededRandom(seed + scale);
  const ids = Array.from({ length: 200 }, () => dataset.idOf(Math.floor(random() * scale)));
  return { scale, ids, of: (mode) => (mode === "organization" ? ids : mode === "description" ? [...DESCRIPTION_QUERIES] : [...CUSTOMER_QUERIES]) };
}

/** Recall at 10 of an approximate server against the exact one, per mode and filter (100 of the ids). */
async function recallTable(exactUrl: string, approximateUrl: string, queries: ScaleQueries, logPrefix: string): Promise<ScaleResult["recall"]> {
  const recall: ScaleResult["recall"] = [];
  for (const mode of MODES) {
    for (const filter of FILTER_LEVELS) {
      const r = await measureRecall(exactUrl, approximateUrl, mode, filter, mode === "organization" ? queries.ids.slice(0, 100) : queries.of(mode));
      recall.push({ mode, filter, ...r });
      log(
        `  ${logPrefix}${mode} / ${filter}: recall@10 ${r.recall_at_10.toFixed(4)} (${r.imperfect_queries} of ${r.queries} queries imperfect, min ${r.min_recall})`,
      );
    }
  }
  return recall;
}

/** The load, type-ahead and explain runs of `backends`. */
async function loadPhase(byBackend: ScaleServers, queries: ScaleQueries, names: string[], backends: readonly BackendName[]) {
  return {
    load: await loadRuns(byBackend, queries, backends),
    lookup: await lookupRuns(byBackend, lookupPaths(names), backends),
    explain: await explainRuns(byBackend, queries, backends),
  };
}

/** Latency and throughput of each of `backends`, every mode, filter, ranking and connection count. */
async function loadRuns(byBackend: ScaleServers, queries: ScaleQueries, backends: readonly BackendName[]): Promise<ScaleResult["load"]> {
  const load: ScaleResult["load"] = [];
  for (const backend of backends) {
    for (const mode of MODES) {
      for (const filter of FILTER_LEVELS) {
        for (const ranking of rankings) {
          const paths = queries.of(mode).map((q) => searchPath(mode, q, filter, ranking));
          for (const connections of concurrencies) {
            const r = await loadTest(serverOf(byBackend, backend).baseUrl, paths, connections, durationS, warmupS, metersOf(byBackend, backend));
            load.push({ backend, mode, filter, ranking, ...r });
            log(
              `  ${backend.padEnd(13)} ${mode.padEnd(12)} ${filter.padEnd(11)} ${ranking.padEnd(6)} c=${String(connections).padEnd(3)} ` +
                `p50 ${r.latency_ms.p50.toFixed(1)} p95 ${r.latency_ms.p95.toFixed(1)} p99 ${r.latency_ms.p99.toFixed(1)} ms, ${r.requests_per_s.toFixed(1)} req/s` +
                `${r.non_2xx || r.errors || r.timeouts ? ` (non-2xx ${r.non_2xx}, errors ${r.errors}, timeouts ${r.timeouts})` : ""}`,
            );
          }
        }
      }
    }
  }
  return load;
}

/** What a backend's load runs meter: the CPU of its orgsim server (workers included) and, for Elasticsearch, of the node. */
function metersOf(byBackend: ScaleServers, backend: BackendName): CpuMeters {
  const { pid } = serverOf(byBackend, backend);
  const meters: CpuMeters = { server: () => processTreeCpuSeconds(pid) };
  const nodePid = es?.pid;
  if (backend === "elasticsearch" && nodePid) meters.elasticsearch = () => processTreeCpuSeconds(nodePid);
  return meters;
}

/** Names of 200 organizations of the scale (another sample than the search ids), for the type-ahead lookups. */
function scaleNames(dataset: Dataset, scale: number): string[] {
  const random = seededRandom(seed + scale + 1);
  return Array.from({ length: 200 }, () => (dataset.batch(Math.floor(random() * scale), 1)[0] as OrganizationRecord).organization.name);
}

/** The default search (similar to an organization, hybrid, no filter) with explain=true, at the lowest concurrency: its cost against the load run without it. */
async function explainRuns(byBackend: ScaleServers, queries: ScaleQueries, backends: readonly BackendName[]): Promise<NonNullable<ScaleResult["explain"]>> {
  const explain: NonNullable<ScaleResult["explain"]> = [];
  const paths = queries.ids.map((q) => `${searchPath("organization", q, "none", "hybrid")}&explain=true`);
  const low = Math.min(...concurrencies);
  for (const backend of backends.filter((b) => b !== "embedded-exact")) {
    const r = await loadTest(serverOf(byBackend, backend).baseUrl, paths, low, durationS, warmupS, metersOf(byBackend, backend));
    explain.push({ backend, ...r });
    log(`  ${backend.padEnd(13)} organization none hybrid explain=true c=${low} p50 ${r.latency_ms.p50.toFixed(1)} p99 ${r.latency_ms.p99.toFixed(1)} ms`);
  }
  return explain;
}

/** Latency and throughput of type-ahead lookups by name on every backend (the exact server shares the embedded store, so it is left out). */
async function lookupRuns(byBackend: ScaleServers, paths: string[], backends: readonly BackendName[]): Promise<NonNullable<ScaleResult["lookup"]>> {
  const lookup: NonNullable<ScaleResult["lookup"]> = [];
  for (const backend of backends.filter((b) => b !== "embedded-exact")) {
    for (const connections of concurrencies) {
      const r = await loadTest(serverOf(byBackend, backend).baseUrl, paths, connections, durationS, warmupS, metersOf(byBackend, backend));
      lookup.push({ backend, ...r });
      log(
        `  ${backend.padEnd(13)} lookup by name c=${String(connections).padEnd(3)} ` +
          `p50 ${r.latency_ms.p50.toFixed(1)} p95 ${r.latency_ms.p95.toFixed(1)} p99 ${r.latency_ms.p99.toFixed(1)} ms, ${r.requests_per_s.toFixed(1)} req/s` +
          `${r.non_2xx || r.errors || r.timeouts ? ` (non-2xx ${r.non_2xx}, errors ${r.errors}, timeouts ${r.timeouts})` : ""}`,
      );
    }
  }
  return lookup;
}

/** The same recall (and the latency of the search without embedding) once `orgsim optimize` merged the index. */
async function forceMergedRun(
  node: EsNode,
  prefix: string,
  exactUrl: string,
  elasticUrl: string,
  queries: ScaleQueries,
): Promise<ScaleResult["elasticsearch"]["force_merged"]> {
  log("elasticsearch: force-merging as `orgsim optimize` does (one segment up to 100k organizations: one HNSW graph, the hardest case for recall) ...");
  const mergeSeconds = await forceMerge(node, prefix, log);
  log(`  merged in ${mergeSeconds.toFixed(0)} s`);
  const mergedRecall = await recallTable(exactUrl, elasticUrl, queries, "merged: ");
  const mergedLoad: ScaleResult["load"] = [];
  for (const filter of FILTER_LEVELS) {
    const paths = queries.ids.map((q) => searchPath("organization", q, filter, "vector"));
    const low = Math.min(...concurrencies);
    const r = await loadTest(elasticUrl, paths, low, durationS, warmupS);
    mergedLoad.push({ backend: "elasticsearch", mode: "organization", filter, ranking: "vector", ...r });
    log(
      `  merged: organization ${filter} c=${low} p50 ${r.latency_ms.p50.toFixed(1)} p95 ${r.latency_ms.p95.toFixed(1)} p99 ${r.latency_ms.p99.toFixed(1)} ms, ${r.requests_per_s.toFixed(1)} req/s`,
    );
  }
  return { force_merge_s: round(mergeSeconds), index: await indexStats(node, prefix), recall: mergedRecall, load: mergedLoad };
}

/** How many of the first `scale` organizations each filter level matches (hq_only, as the REST default). */
function countMatches(dataset: Dataset, scale: number): ScaleResult["filter_matches"] {
  const northernAmerica = new Set(countriesInRegion("northern-america"));
  const europe = new Set(countriesInRegion("europe"));
  let broad = 0;
  let restrictive = 0;
  for (let start = 0; start < scale; start += LOAD_BATCH) {
    for (const { organization: o } of dataset.batch(start, Math.min(LOAD_BATCH, scale - start))) {
      const hq = o.location.headquarters?.country_code ?? null;
      if (hq && northernAmerica.has(hq)) broad++;
      const employees = o.metrics.employee_count;
      const founded = o.metrics.founded_year;
      if (hq && europe.has(hq) && employees !== null && employees <= 50 && founded !== null && founded >= 2015) restrictive++;
    }
  }
  const share = (n: number) => Math.round((n / scale) * 10_000) / 10_000;
  const level = (n: number) => ({ organizations: n, share: share(n) });
  return { none: level(scale), broad: level(broad), restrictive: level(restrictive) } satisfies Record<FilterLevel, { organizations: number; share: number }>;
}

/** How the data looks: real vs synthetic neighbourhoods (nearest-neighbour cosine among the first 10k). */
function describeData(dataset: Dataset, model: VectorModel): NonNullable<PerfResults["data"]> {
  const n = Math.max(10_000, dataset.real.length);
  const records = dataset.batch(0, n);
  const random = seededRandom(seed + 7);
  /** Cosine of record i's nearest neighbour among records [0, within). */
  const nearest = (i: number, within: number) => {
    const v = (records[i] as OrganizationRecord).profileVector;
    let best = -1;
    for (let j = 0; j < within; j++) {
      if (j === i) continue;
      const w = (records[j] as OrganizationRecord).profileVector;
      let s = 0;
      for (let k = 0; k < v.length; k++) s += (v[k] as number) * (w[k] as number);
      if (s > best) best = s;
    }
    return best;
  };
  const realCount = dataset.real.length;
  const sample = (from: number, to: number, within: number) => Array.from({ length: 100 }, () => nearest(from + Math.floor(random() * (to - from)), within));
  const randomPairs = Array.from({ length: 2000 }, () => {
    const a = (records[Math.floor(random() * n)] as OrganizationRecord).profileVector;
    const b = (records[Math.floor(random() * n)] as OrganizationRecord).profileVector;
    let s = 0;
    for (let k = 0; k < a.length; k++) s += (a[k] as number) * (b[k] as number);
    return s;
  });
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    model,
    real_organizations: dataset.real.length,
    real_by_corpus: {
      // yc ids are its small source ids; equities ids are hashed (up to 2^48).
      yc: dataset.real.filter((r) => r.organization.id < 1e9).length,
      equities: dataset.real.filter((r) => r.organization.id >= 1e9).length,
    },
    real_with_customer_vector: dataset.real.filter((r) => r.customerVector).length,
    synthetic: dataset.options,
    nearest_neighbour_cosine: {
      within_first: n,
      real_among_real: r3(mean(sample(0, realCount, realCount))),
      real: r3(mean(sample(0, realCount, n))),
      synthetic: n > realCount ? r3(mean(sample(realCount, n, n))) : null,
      random_pair_mean: r3(mean(randomPairs)),
    },
  };
}
