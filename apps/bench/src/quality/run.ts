/**
 * `pnpm bench:quality`: retrieval quality of the product on real organizations.
 *
 * Imports ../shared/datasets/yc and ../shared/datasets/equities through the product's importer
 * (example mappings, one embedded data dir per model under .orgsim/bench/quality, reused when
 * complete), copies the same organizations with their stored vectors into a benchmark-only
 * Elasticsearch node, and runs through the product's SearchService, for each backend and model:
 *
 * - similar-to-X: leave-one-out P@10 by label (yc: subindustry, industry; equities: industry,
 *   sector) over every labelled organization;
 * - known-item search (yc): each one_liner as the description query; MRR@10 and recall@10 of
 *   its own organization;
 * - customer-base search: each organization's own customer text (customerTextOf) through
 *   similarCustomers, itself excluded; P@10 by the same labels.
 *
 * - several seeds (yc, default model, embedded backend; seeds.ts): 3 organizations of one label value
 *   as the `like` seeds, the others of that value relevant; the product's several-seeds search
 *   against the single-seed search and against the fusion of the single-seed rankings, P@10 by label;
 *   and whether one counter-example (`unlike`) from the results' most frequent other value helps.
 *
 * Each through the product's three rankings: `vector` (cosine alone), the word ranking alone
 * (BM25, the store's own word search) and `hybrid`, the product default (their reciprocal rank
 * fusion, core/services/hybrid-ranking.ts). Writes apps/bench/results/quality.json, the
 * "Retrieval quality" section of docs/benchmarks.md and SVG plots in docs/benchmarks/.
 *
 * Usage: pnpm bench:quality [--models a,b] [--datasets yc,equities] [--sample 5000] [--seed 1]
 *          [--es-port 9280] [--no-es] [--full] [--skip-missing-imports] [--subset equities=10000] [--out path]
 *          [--tasks similar,known-item,customer,seeds]
 *
 * `--tasks` runs only those tasks (all by default) and merges their results into the report
 * already at --out, replacing that corpus's earlier results for the same tasks and keeping every
 * other result; in docs/benchmarks.md the several-seeds and customer-base subsections, the headline,
 * and that task's rows of the comparison, Elasticsearch and run tables are rewritten then.
 */
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, relative } from "node:path";
import { parseArgs } from "node:util";
import { openEmbeddedBackend } from "@orgsim/backend-embedded";
import {
  BM25,
  FUSION_DEPTH,
  fusedRelevance,
  type OrganizationStore,
  type Ranking,
  RRF_K,
  SearchService,
  SimilarToOrganizationInput,
  SimilarToSeedsInput,
} from "@orgsim/core";
import { createEmbedder, DEFAULT_MODEL_ID, findRepoRoot } from "@orgsim/embeddings";
import { type DatasetId, type DatasetSpec, datasetSpecs, type LabelledRow, readLabelledRows, subsetSpec } from "./datasets";
import { loadIntoElasticsearch, startEsNode } from "./es-node";
import { customerSearchBefore, fitQuery, judge, lexicalRanking, productRanking, type Query, QueryCachingEmbedder, type Task } from "./evaluate";
import { benchDataRoot, completeImport, dataDirOf, ensureImport, type ImportRecord } from "./imports";
import { K, precisionAtK, sample } from "./metrics";
import { BENCH_MODELS } from "./models";
import { mergeOutputs, pairedDifference, type QualityReport, type SeedsVariant, summarize, writeOutputs } from "./report";
import {
  BENCH_UNLIKE_WEIGHTS,
  counterExample,
  MIN_GROUP_SIZE,
  rocchioVector,
  SEEDS_PER_QUERY,
  SEEDS_QUERIES,
  type SeedsQuery,
  seedsPrecision,
  seedsQueries,
} from "./seeds";

const { values: args } = parseArgs({
  // `pnpm bench:quality -- --flag` passes the `--` on: skip it, as bench:perf does.
  args: process.argv.slice(2).filter((a) => a !== "--"),
  options: {
    models: { type: "string" },
    datasets: { type: "string" },
    sample: { type: "string" },
    seed: { type: "string" },
    "es-port": { type: "string" },
    "no-es": { type: "boolean" },
    full: { type: "boolean" },
    "skip-missing-imports": { type: "boolean" },
    subset: { type: "string" },
    "max-queries": { type: "string" },
    out: { type: "string" },
    tasks: { type: "string" },
  },
});

const root = findRepoRoot();
const models = args.models ? args.models.split(",").map((s) => s.trim()) : BENCH_MODELS;
const datasetIds = (args.datasets ? args.datasets.split(",") : ["yc", "equities"]) as DatasetId[];
const sampleSize = Number(args.sample ?? 5000);
const seed = Number(args.seed ?? 1);
const esPort = Number(args["es-port"] ?? 9280);
const useEs = !args["no-es"];
/** `--subset equities=10000`: import and judge a seeded subset of a corpus instead of all of it. */
const subsets = new Map(
  (args.subset ? args.subset.split(",") : []).map((s) => {
    const [name, n] = s.split("=");
    return [name as DatasetId, Number(n)];
  }),
);
const outPath = args.out ?? join(root, "apps", "bench", "results", "quality.json");
const ALL_TASKS = ["similar", "known-item", "customer", "seeds"] as const;
/** `--tasks a,b`: only these tasks, merged into the report at outPath (see the header). */
const selectedTasks = args.tasks ? args.tasks.split(",").map((s) => s.trim()) : [...ALL_TASKS];
for (const t of selectedTasks) if (!(ALL_TASKS as readonly string[]).includes(t)) throw new Error(`--tasks: unknown task ${t} (${ALL_TASKS.join(", ")})`);
const partialRun = ALL_TASKS.some((t) => !selectedTasks.includes(t));
/** The corpora the several-seeds task runs on. */
const SEEDS_DATASETS: readonly string[] = ["yc"];
const started = performance.now();

const log = (line: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s] ${line}`);

function gitInfo() {
  const run = (cmd: string) => {
    try {
      return execSync(cmd, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return null;
    }
  };
  return { commit: run("git rev-parse HEAD"), uncommittedChanges: (run("git status --porcelain") ?? "").length > 0 };
}

function machineInfo() {
  const cpuinfo = (() => {
    try {
      return readFileSync("/proc/cpuinfo", "utf8");
    } catch {
      return "";
    }
  })();
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? "unknown";
  return {
    cpu: model.trim(),
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage1mAtStart: Number((loadavg()[0] ?? 0).toFixed(2)),
  };
}

/** The word ranking alone runs every query of a task up to this many (it is fast), else the sample. */
const LEXICAL_FULL_UP_TO = 20_000;

/** `--max-queries n`: only the first n queries of each task (a quick smoke run; never for reported numbers). */
const maxQueries = args["max-queries"] ? Number(args["max-queries"]) : Number.POSITIVE_INFINITY;

/** The queries of each task. */
function buildTasks(spec: DatasetSpec, rows: LabelledRow[]): Task[] {
  const labels = spec.labels.map((l) => l.field);
  const labelled = (r: LabelledRow) => labels.some((l) => r.labels[l] != null);
  const tasks: Task[] = [];
  tasks.push({
    id: "similar",
    queries: rows.filter(labelled).map((r, index) => ({ index, orgId: r.id, text: r.profileText })),
    metrics: labels.map((l) => `p10_${l}`),
    truncated: 0,
  });
  if (spec.knownItemField) {
    const queries: Query[] = [];
    for (const r of rows) {
      // The product refuses queries under 3 characters.
      if (r.knownItem && r.knownItem.length >= 3) queries.push({ index: queries.length, orgId: r.id, text: fitQuery(r.knownItem).text });
    }
    tasks.push({ id: "known-item", queries, metrics: ["mrr10", "recall10"], truncated: 0 });
  }
  const withCustomers = rows.filter((r) => r.customerText);
  let truncated = 0;
  const customerQueries: Query[] = [];
  for (const r of withCustomers) {
    if (!labelled(r) || r.customerText!.trim().length < 3) continue;
    const fitted = fitQuery(r.customerText!);
    if (fitted.truncated) truncated++;
    customerQueries.push({ index: customerQueries.length, orgId: r.id, text: fitted.text });
  }
  tasks.push({ id: "customer", queries: customerQueries, metrics: labels.map((l) => `p10_${l}`), truncated });
  for (const task of tasks) if (task.queries.length > maxQueries) task.queries = task.queries.slice(0, maxQueries);
  return tasks.filter((t) => selectedTasks.includes(t.id));
}

/** Runs `fn` over queries, logging progress about every 30 s; returns seconds. */
async function timed(what: string, queries: readonly Query[], fn: (q: Query) => Promise<void> | void): Promise<number> {
  const t0 = performance.now();
  let last = t0;
  for (const [i, q] of queries.entries()) {
    await fn(q);
    const now = performance.now();
    if (now - last > 30_000) {
      last = now;
      const rate = (now - t0) / (i + 1);
      log(`    ${what}: ${i + 1}/${queries.length} (${rate.toFixed(1)} ms/query, ~${(((queries.length - i - 1) * rate) / 60_000).toFixed(1)} min left)`);
    }
  }
  return (performance.now() - t0) / 1000;
}

interface RankingCache {
  /** The import the rankings came from (its finishedAt): a new import invalidates them. */
  stamp: string;
  limit: number;
  seconds: number;
  orgIds: number[];
  rankings: number[][];
}

/**
 * Runs a configuration's queries, or reuses the rankings an earlier run of the same configuration
 * stored (same import, same depth, covering these queries), so an interrupted or extended
 * benchmark does not search again. Timings of reused runs are those of the run that made them.
 */
async function runOrReuse(
  name: string,
  stamp: string,
  queries: readonly Query[],
  limit: number,
  fn: (q: Query) => Promise<number[]>,
): Promise<{ rankings: Map<number, number[]>; seconds: number; msPerQuery: number; reused: boolean }> {
  const file = join(benchDataRoot(root), "rankings", `${name}.json`);
  if (existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, "utf8")) as RankingCache;
    const byOrg = new Map(cached.orgIds.map((id, i) => [id, cached.rankings[i]!]));
    if (cached.stamp === stamp && cached.limit >= limit && queries.every((q) => byOrg.has(q.orgId))) {
      const rankings = new Map(queries.map((q) => [q.index, byOrg.get(q.orgId)!.slice(0, limit)]));
      return { rankings, seconds: cached.seconds, msPerQuery: (cached.seconds * 1000) / Math.max(1, cached.orgIds.length), reused: true };
    }
  }
  const rankings = new Map<number, number[]>();
  const seconds = await timed(name, queries, async (q) => {
    rankings.set(q.index, await fn(q));
  });
  mkdirSync(dirname(file), { recursive: true });
  const cache: RankingCache = { stamp, limit, seconds, orgIds: queries.map((q) => q.orgId), rankings: queries.map((q) => rankings.get(q.index)!) };
  writeFileSync(file, JSON.stringify(cache));
  return { rankings, seconds, msPerQuery: (seconds * 1000) / Math.max(1, queries.length), reused: false };
}

function newReport(): QualityReport {
  return {
    date: new Date().toISOString(),
    command: `pnpm bench:quality${process.argv.length > 2 ? ` ${process.argv.slice(2).join(" ")}` : ""}`,
    machine: machineInfo(),
    git: gitInfo(),
    settings: {
      k: K,
      rrfK: RRF_K,
      fusionDepth: FUSION_DEPTH,
      bm25: { ...BM25, text: "the profile text the profile vector embeds (customer text for customer search); the product's own word index" },
      sampleSize,
      seed,
      defaultModel: DEFAULT_MODEL_ID,
      elasticsearch: useEs
        ? { port: esPort, indexType: "int8_hnsw (the product default)", numCandidates: 500, vectors: "copied from the embedded store, not re-embedded" }
        : null,
      scopeRule: `every query on the default model's embedded backend (and for BM25 alone on tasks of at most ${LEXICAL_FULL_UP_TO} queries); elsewhere every query when a task has at most ${sampleSize}, else a seeded sample of ${sampleSize} (the same queries for every model and backend)`,
    },
    datasets: {},
    imports: [],
    results: [],
    agreement: [],
    skipped: [],
    timings: { totalSeconds: 0 },
  };
}

async function main(): Promise<void> {
  const specs = datasetSpecs(root);
  const report = newReport();
  const es = useEs ? startEsNode(esPort, root) : null;
  if (es) log(`Elasticsearch node at ${es.url} (state ${relative(root, es.home)})`);
  try {
    for (const corpus of datasetIds) {
      const subset = subsets.get(corpus);
      const spec = subset ? subsetSpec(specs[corpus], subset, seed, join(benchDataRoot(root), "data")) : specs[corpus];
      await runCorpus(report, spec, es);
      report.timings.totalSeconds = Math.round((performance.now() - started) / 1000);
      // Written after each corpus, so a long run leaves its numbers so far.
      if (!partialRun) await writeOutputs(report, outPath, root);
    }
  } finally {
    if (es) {
      log("stopping the Elasticsearch node");
      es.stop();
    }
  }
  report.timings.totalSeconds = Math.round((performance.now() - started) / 1000);
  if (partialRun) await mergeOutputs(report, selectedTasks, outPath, root);
  else await writeOutputs(report, outPath, root);
  log(`done in ${(report.timings.totalSeconds / 60).toFixed(1)} min; wrote ${relative(root, outPath)} and docs/benchmarks.md`);
}

/** One corpus's labelled rows and tasks, as every model's run on it judges them. */
interface Corpus {
  datasetId: string;
  spec: DatasetSpec;
  rows: LabelledRow[];
  byId: Map<number, LabelledRow>;
  labels: string[];
  tasks: Task[];
  /** The several-seeds queries by label (none when the task is not run on this corpus). */
  seeds: Map<string, SeedsQuery[]>;
}

type EsNode = ReturnType<typeof startEsNode>;

async function runCorpus(report: QualityReport, spec: DatasetSpec, es: EsNode | null): Promise<void> {
  const datasetId = spec.id;
  const { rows, mapping, read, refused } = await readLabelledRows(spec);
  const corpus: Corpus = {
    datasetId,
    spec,
    rows,
    byId: new Map(rows.map((r) => [r.id, r])),
    labels: spec.labels.map((l) => l.field),
    tasks: buildTasks(spec, rows),
    seeds: new Map(
      selectedTasks.includes("seeds") && SEEDS_DATASETS.includes(datasetId)
        ? spec.labels.map((l) => [l.field, seedsQueries(rows, l.field, SEEDS_QUERIES, seed).slice(0, maxQueries)])
        : [],
    ),
  };
  report.datasets[datasetId] = describeCorpus(corpus, read, refused);
  log(
    `${datasetId}: ${rows.length} organizations; ${[...corpus.tasks.map((t) => `${t.id} ${t.queries.length} queries`), ...[...corpus.seeds].map(([l, qs]) => `seeds-${l} ${qs.length} queries`)].join(", ")}`,
  );
  // The word ranking does not depend on the model: run once per corpus, on the first model's store.
  let lexicalDone = false;
  for (const modelId of models) {
    const imported = await importedCorpus(modelId, spec, mapping, rows.length);
    if (!imported) {
      report.skipped.push({ dataset: datasetId, model: modelId, reason: "no complete import (run without --skip-missing-imports to embed it)" });
      log(`${modelId}/${datasetId}: skipped, no complete import`);
      continue;
    }
    const embedded = openEmbeddedBackend({ dataDir: dataDirOf(modelId, datasetId, root) });
    const embedder = new QueryCachingEmbedder(await createEmbedder({ modelId }));
    try {
      const withCustomerVector = rows.filter((r) => r.customerText).length;
      report.imports.push({ ...imported.record, reused: imported.reused, dataDir: relative(root, dataDirOf(modelId, datasetId, root)), withCustomerVector });
      const run: ModelRun = { report, corpus, modelId, stamp: imported.record.finishedAt, store: embedded.organizations, embedder };
      if (!lexicalDone) {
        lexicalDone = true;
        await runLexical(run);
      }
      const embeddedTop = await runEmbedded(run);
      if (es) await runElasticsearch(run, es, embeddedTop);
      if (modelId === DEFAULT_MODEL_ID) await runSeeds(run);
      report.timings[`queryEmbeddingCache ${modelId}/${datasetId}`] = embedder.hits;
    } finally {
      await embedder.close();
      await embedded.close();
    }
  }
}

function describeCorpus({ spec, rows, labels, tasks, seeds }: Corpus, read: number, refused: number): Record<string, unknown> {
  const seedsTasks = [...seeds].map(([label, queries]) => {
    const counts = new Map<string, number>();
    for (const r of rows) if (r.labels[label] != null) counts.set(r.labels[label]!, (counts.get(r.labels[label]!) ?? 0) + 1);
    const eligible = [...counts.values()].filter((n) => n >= MIN_GROUP_SIZE);
    return [
      `seeds-${label}`,
      {
        queries: queries.length,
        eligibleQueryOrganizations: eligible.reduce((a, b) => a + b, 0),
        labelValues: eligible.length,
        seedsPerQuery: SEEDS_PER_QUERY,
        minOrganizationsPerValue: MIN_GROUP_SIZE,
      },
    ];
  });
  return {
    file: relative(root, spec.file),
    ...(spec.file !== spec.source ? { subsetOf: relative(root, spec.source), subsetSeed: seed } : {}),
    mapping: relative(root, spec.mappingPath),
    rowsRead: read,
    organizations: rows.length,
    refusedByMapping: refused,
    labelled: Object.fromEntries(labels.map((l) => [l, rows.filter((r) => r.labels[l] != null).length])),
    distinctLabels: Object.fromEntries(labels.map((l) => [l, new Set(rows.map((r) => r.labels[l]).filter((v) => v != null)).size])),
    withCustomerText: rows.filter((r) => r.customerText).length,
    tasks: Object.fromEntries([...tasks.map((t) => [t.id, { queries: t.queries.length, truncatedTo2000Chars: t.truncated }]), ...seedsTasks]),
  };
}

/** The model's import of the corpus: reused when complete, else embedded now (or null with --skip-missing-imports). */
async function importedCorpus(
  modelId: string,
  spec: DatasetSpec,
  mapping: Parameters<typeof ensureImport>[2],
  count: number,
): Promise<{ record: ImportRecord; reused: boolean } | null> {
  if (args["skip-missing-imports"]) {
    const done = await completeImport(modelId, spec, count);
    return done ? { record: done, reused: true } : null;
  }
  log(`${modelId}/${spec.id}: import (reused when complete)`);
  return ensureImport(modelId, spec, mapping, count, log);
}

/** One model's pass over a corpus: its store, its embedder, and the import its cached rankings belong to. */
interface ModelRun {
  report: QualityReport;
  corpus: Corpus;
  modelId: string;
  /** When the import finished: cached rankings of another import are not reused. */
  stamp: string;
  store: OrganizationStore;
  embedder: QueryCachingEmbedder;
}

/** The queries each configuration runs: the same seeded sample for every model and backend. */
function scopeOf(run: ModelRun, task: Task, backend: "embedded" | "elasticsearch" | "lexical") {
  const isDefault = run.modelId === DEFAULT_MODEL_ID;
  return args.full || (isDefault && backend === "embedded") || task.queries.length <= (backend === "lexical" ? LEXICAL_FULL_UP_TO : sampleSize)
    ? { scope: "full" as const, queries: task.queries }
    : { scope: `sample of ${sampleSize} (seed ${seed})` as const, queries: sample(task.queries, sampleSize, seed) };
}

const judged = ({ corpus }: ModelRun, task: Task, queries: readonly Query[], rankings: Map<number, number[]>) =>
  queries.map((q) => judge(task, q, rankings.get(q.index)!, corpus.byId, corpus.labels));

async function runLexical(run: ModelRun): Promise<void> {
  const { datasetId, tasks } = run.corpus;
  for (const task of tasks) {
    // A baseline, not the default: the seeded sample on large tasks, like the other non-default rankings.
    const { scope, queries } = scopeOf(run, task, "lexical");
    const result = await runOrReuse(`${datasetId}__words__embedded__${task.id}`, run.stamp, queries, K, (q) => lexicalRanking(run.store, task.id, q));
    const values = judged(run, task, queries, result.rankings);
    run.report.results.push(
      summarize({
        dataset: datasetId,
        task: task.id,
        method: "bm25",
        model: null,
        backend: "lexical",
        scope,
        queries,
        values,
        metrics: task.metrics,
        seconds: result.seconds,
        msPerQuery: result.msPerQuery,
        reused: result.reused,
      }),
    );
    log(`  bm25 ${task.id}: ${queries.length} queries (${scope}) ${result.reused ? "reused" : `in ${result.seconds.toFixed(0)} s`}`);
    if (task.id === "customer") await runWholeDescriptionWords(run, task, scope, queries);
  }
}

/** The customer task's word baseline over whole descriptions (profile texts) instead of the customer texts. */
async function runWholeDescriptionWords(run: ModelRun, task: Task, scope: string, queries: readonly Query[]): Promise<void> {
  const { datasetId } = run.corpus;
  const result = await runOrReuse(`${datasetId}__words-profile__embedded__${task.id}`, run.stamp, queries, K, (q) =>
    lexicalRanking(run.store, task.id, q, K, "profile"),
  );
  const common = { dataset: datasetId, task: task.id, model: null, backend: "lexical" as const, scope, queries, metrics: task.metrics };
  run.report.results.push(
    summarize({
      ...common,
      method: "bm25-profile",
      values: judged(run, task, queries, result.rankings),
      seconds: result.seconds,
      msPerQuery: result.msPerQuery,
      reused: result.reused,
    }),
  );
  log(`  bm25 over whole descriptions ${task.id}: ${queries.length} queries (${scope}) ${result.reused ? "reused" : `in ${result.seconds.toFixed(0)} s`}`);
}

/** Both rankings through the product's SearchService on the embedded store; returns the rankings by `task|ranking`. */
async function runEmbedded(run: ModelRun): Promise<Map<string, Map<number, number[]>>> {
  const { datasetId, tasks } = run.corpus;
  const search = new SearchService(run.store, run.embedder);
  const embeddedTop = new Map<string, Map<number, number[]>>();
  for (const task of tasks) {
    const { scope, queries } = scopeOf(run, task, "embedded");
    const common = { dataset: datasetId, task: task.id, model: run.modelId, scope, queries, metrics: task.metrics };
    for (const ranking of ["vector", "hybrid"] as const) {
      // Vector rankings keep their old cache name (stored 100 deep), so earlier runs are reused.
      const name = `${datasetId}__${run.modelId}__embedded${ranking === "hybrid" ? `-hybrid${ruleTag(task.id)}` : ""}__${task.id}`;
      const result = await runOrReuse(name, run.stamp, queries, K, (q) => productRanking(search, task.id, q, K, ranking));
      embeddedTop.set(`${task.id}|${ranking}`, result.rankings);
      const values = judged(run, task, queries, result.rankings);
      run.report.results.push(
        summarize({ ...common, method: ranking, backend: "embedded", values, seconds: result.seconds, msPerQuery: result.msPerQuery, reused: result.reused }),
      );
      log(
        `  ${run.modelId} embedded ${ranking} ${task.id}: ${queries.length} queries (${scope}) ${result.reused ? "reused from an earlier run" : `in ${result.seconds.toFixed(0)} s`}`,
      );
    }
  }
  if (tasks.some((t) => t.id === "customer")) await runCustomerBefore(run, tasks.find((t) => t.id === "customer")!);
  return embeddedTop;
}

/**
 * The hybrid ranking's rule changed for customer-base search (issue 12 item 7; then only organizations
 * with a customer vector, API.md): its cached rankings carry the rule in their name, so rankings
 * of an earlier rule are never reused for it.
 */
const ruleTag = (task: Task["id"]) => (task === "customer" ? "-customer-base-12.7-customer-vector" : "");

/**
 * Customer-base search as ranked before issue 12 item 7 (evaluate.ts customerSearchBefore), on the
 * same queries, and the paired differences the customer section reports: the product's hybrid
 * ranking against it and against BM25 over whole descriptions.
 */
async function runCustomerBefore(run: ModelRun, task: Task): Promise<void> {
  const { datasetId } = run.corpus;
  const { scope, queries } = scopeOf(run, task, "embedded");
  const name = `${datasetId}__${run.modelId}__embedded-hybrid-before-12.7__${task.id}`;
  const result = await runOrReuse(name, run.stamp, queries, K, (q) => customerSearchBefore(run.store, run.embedder, q));
  const common = { dataset: datasetId, task: task.id, model: run.modelId, backend: "embedded" as const, scope, queries, metrics: task.metrics };
  const before = summarize({
    ...common,
    method: "hybrid-before",
    values: judged(run, task, queries, result.rankings),
    seconds: result.seconds,
    msPerQuery: result.msPerQuery,
    reused: result.reused,
  });
  run.report.results.push(before);
  log(
    `  ${run.modelId} embedded hybrid before 12.7 ${task.id}: ${queries.length} queries (${scope}) ${result.reused ? "reused" : `in ${result.seconds.toFixed(0)} s`}`,
  );
  const find = (method: string) =>
    run.report.results.find(
      (r) =>
        r.dataset === datasetId && r.task === task.id && r.backend !== "elasticsearch" && r.method === method && (r.model === run.modelId || r.model === null),
    );
  const [wholeWords, after] = ["bm25-profile", "hybrid"].map(find);
  run.report.customerComparisons ??= [];
  for (const [base, cand] of [
    [before, after],
    [wholeWords, after],
    [wholeWords, before],
  ] as const) {
    for (const metric of task.metrics) {
      const d = base && cand ? pairedDifference(base, cand, metric) : null;
      if (d) run.report.customerComparisons.push(d);
    }
  }
}

/**
 * The several-seeds task on the embedded store (seeds.ts), for each label and both rankings: the
 * first seed alone (the other seeds excluded), the three seeds through similarToSeeds, and the
 * reciprocal rank fusion of the three one-seed rankings (FUSION_DEPTH deep, every seed excluded).
 */
async function runSeeds(run: ModelRun): Promise<void> {
  const { datasetId, byId } = run.corpus;
  const search = new SearchService(run.store, run.embedder);
  run.report.seedComparisons ??= [];
  for (const [label, queries] of run.corpus.seeds) {
    if (queries.length === 0) continue;
    const task = `seeds-${label}` as const;
    const eligible = seedsQueries(run.corpus.rows, label, Number.POSITIVE_INFINITY, seed).length;
    const scope = queries.length === eligible ? "full" : `sample of ${queries.length} (seed ${seed})`;
    const metric = `p10_${label}`;
    const asQueries = new Map(queries.map((q) => [q.index, q]));
    for (const ranking of ["hybrid", "vector"] as const satisfies Ranking[]) {
      const base = `${datasetId}__${run.modelId}__embedded-${ranking}__${task}-seed${seed}`;
      // Seed i of each query alone, the other seeds excluded (the query organization itself is never a result).
      const oneSeed = (i: number) =>
        runOrReuse(`${base}__one-seed-${i}`, run.stamp, queries, FUSION_DEPTH, async (q) => {
          const s = asQueries.get(q.index)!.seeds;
          const input = { organization_id: s[i]!, exclude_ids: s.filter((_, j) => j !== i), limit: FUSION_DEPTH, ranking };
          return (await search.similarToOrganization(SimilarToOrganizationInput.parse(input))).data.map((o) => o.id);
        });
      const first = await oneSeed(0);
      const three = await runOrReuse(`${base}__three-seeds`, run.stamp, queries, K, async (q) => {
        const like = asQueries.get(q.index)!.seeds.map((id) => ({ organization_id: id }));
        return (await search.similarToSeeds(SimilarToSeedsInput.parse({ like, limit: K, ranking }))).data.map((o) => o.id);
      });
      const others = [];
      for (let i = 1; i < SEEDS_PER_QUERY; i++) others.push(await oneSeed(i));
      const perSeed = [first, ...others];
      const rrf = new Map(
        queries.map((q) => [
          q.index,
          fusedRelevance(perSeed.map((r) => r.rankings.get(q.index)!))
            .slice(0, K)
            .map((x) => x.id),
        ]),
      );
      const judgedSeeds = (rankings: Map<number, number[]>) =>
        queries.map((q) => new Map([[metric, seedsPrecision(q, rankings.get(q.index)!.slice(0, K), byId, label)]]));
      const common = { dataset: datasetId, task, method: ranking, model: run.modelId, backend: "embedded" as const, scope, queries, metrics: [metric] };
      const variant = (v: SeedsVariant, rankings: Map<number, number[]>, r: Awaited<ReturnType<typeof runOrReuse>> | null) =>
        summarize({
          ...common,
          variant: v,
          values: judgedSeeds(rankings),
          seconds: r?.seconds ?? null,
          msPerQuery: r?.msPerQuery ?? null,
          reused: r?.reused ?? false,
        });
      const one = variant("one seed", first.rankings, first);
      const threeSeeds = variant("three seeds", three.rankings, three);
      const fused = variant("RRF of one-seed rankings", rrf, null);
      run.report.results.push(one, threeSeeds, fused);
      for (const [b, c] of [
        [one, threeSeeds],
        [threeSeeds, fused],
        [one, fused],
      ] as const) {
        const d = pairedDifference(b, c, metric);
        if (d) run.report.seedComparisons.push(d);
      }
      // Counter-example check: the most frequent other value of the three-seed top 10, its first organization as an `unlike` seed.
      const counters = new Map(
        queries.flatMap((q) => {
          const c = counterExample(q, three.rankings.get(q.index)!, byId, label);
          return c ? [[q.index, c] as const] : [];
        }),
      );
      const withCounter = queries.filter((q) => counters.has(q.index));
      const seedsSearch = (q: Query, unlike: boolean) => {
        const like = asQueries.get(q.index)!.seeds.map((id) => ({ organization_id: id }));
        const counter = counters.get(q.index)!.id;
        const input = unlike ? { like, unlike: [{ organization_id: counter }] } : { like, exclude_ids: [counter] };
        return search.similarToSeeds(SimilarToSeedsInput.parse({ ...input, limit: K, ranking })).then((r) => r.data.map((o) => o.id));
      };
      const excluded = await runOrReuse(`${base}__three-seeds-counter-excluded`, run.stamp, withCounter, K, (q) => seedsSearch(q, false));
      const unliked = await runOrReuse(`${base}__three-seeds-counter-unlike`, run.stamp, withCounter, K, (q) => seedsSearch(q, true));
      const other = `other10_${label}`;
      const judgedCounter = (rankings: Map<number, number[]>) =>
        withCounter.map((q) => {
          const top = rankings.get(q.index)!.slice(0, K);
          const counterValue = counters.get(q.index)!.value;
          return new Map([
            [metric, seedsPrecision(q, top, byId, label)],
            [other, precisionAtK(top, (id) => byId.get(id)?.labels[label] === counterValue)],
          ]);
        });
      const counterCommon = { ...common, queries: withCounter, metrics: [metric, other] };
      const counterVariant = (v: SeedsVariant, r: Awaited<ReturnType<typeof runOrReuse>>) =>
        summarize({ ...counterCommon, variant: v, values: judgedCounter(r.rankings), seconds: r.seconds, msPerQuery: r.msPerQuery, reused: r.reused });
      const withoutUnlike = counterVariant("three seeds, counter-example excluded", excluded);
      const withUnlike = counterVariant("three seeds + counter-example", unliked);
      run.report.results.push(withoutUnlike, withUnlike);
      for (const m of [metric, other]) {
        const d = pairedDifference(withoutUnlike, withUnlike, m);
        if (d) run.report.seedComparisons.push(d);
      }
      if (ranking === "vector") {
        // Bench only: other counter-example weights, through the bench's Rocchio vector and the store's vector ranking.
        for (const weight of BENCH_UNLIKE_WEIGHTS) {
          const r = await runOrReuse(`${base}__three-seeds-counter-weight-${weight}`, run.stamp, withCounter, K, async (q) => {
            const seeds = asQueries.get(q.index)!.seeds;
            const counter = counters.get(q.index)!.id;
            const [like, unlike] = await Promise.all([
              Promise.all(seeds.map((id) => run.store.getVector(id, "profile"))),
              run.store.getVector(counter, "profile"),
            ]);
            const vector = rocchioVector(like as Float32Array[], [unlike as Float32Array], weight);
            const hits = await run.store.rank({ vector, kind: "profile", filter: { excludeIds: [...seeds, counter] }, offset: 0, size: K });
            return hits.map((h) => h.id);
          });
          const weighted = counterVariant(`three seeds + counter-example, weight ${weight} (bench)`, r);
          run.report.results.push(weighted);
          for (const m of [metric, other]) {
            const d = pairedDifference(withoutUnlike, weighted, m);
            if (d) run.report.seedComparisons.push(d);
          }
        }
      }
      log(
        `  ${run.modelId} embedded ${ranking} ${task}: ${queries.length} queries (${scope}); P@10 one seed ${one.metrics[metric]!.mean.toFixed(3)}, three seeds ${threeSeeds.metrics[metric]!.mean.toFixed(3)}, RRF ${fused.metrics[metric]!.mean.toFixed(3)}; with a counter-example (${withCounter.length} queries) ${withoutUnlike.metrics[metric]!.mean.toFixed(3)} → ${withUnlike.metrics[metric]!.mean.toFixed(3)}`,
      );
    }
  }
}

/** Both rankings on Elasticsearch (the same organizations and vectors), and how far their top 10s agree with the embedded ones. */
async function runElasticsearch(run: ModelRun, es: EsNode, embeddedTop: Map<string, Map<number, number[]>>): Promise<void> {
  const { datasetId, rows, tasks } = run.corpus;
  const { modelId, report } = run;
  // Loaded on first use only: a re-run whose Elasticsearch rankings are all stored needs no node work.
  let loaded: Awaited<ReturnType<typeof loadIntoElasticsearch>> | null = null;
  let esSearch: SearchService | null = null;
  const esSearchOf = async () => {
    if (!esSearch) {
      loaded = await loadIntoElasticsearch(
        es.url,
        run.store,
        rows.map((r) => r.id),
        { modelId, dimension: run.embedder.dimension },
        datasetId,
        log,
      );
      report.timings[`esLoad ${modelId}/${datasetId}`] = Math.round(loaded.seconds);
      esSearch = new SearchService(loaded.store, run.embedder);
    }
    return esSearch;
  };
  try {
    for (const task of tasks) {
      for (const ranking of ["vector", "hybrid"] as const) {
        const { scope, queries } = scopeOf(run, task, "elasticsearch");
        const name = `${datasetId}__${modelId}__elasticsearch${ranking === "hybrid" ? `-hybrid${ruleTag(task.id)}` : ""}__${task.id}`;
        const result = await runOrReuse(name, run.stamp, queries, K, async (q) => productRanking(await esSearchOf(), task.id, q, K, ranking));
        const { rankings, seconds } = result;
        const values = judged(run, task, queries, rankings);
        report.results.push(
          summarize({
            dataset: datasetId,
            task: task.id,
            method: ranking,
            model: modelId,
            backend: "elasticsearch",
            scope,
            queries,
            values,
            metrics: task.metrics,
            seconds,
            msPerQuery: result.msPerQuery,
            reused: result.reused,
          }),
        );
        const agreement = topTenAgreement(embeddedTop.get(`${task.id}|${ranking}`)!, rankings, queries);
        report.agreement.push({ dataset: datasetId, task: task.id, model: modelId, ranking, ...agreement });
        log(
          `  ${modelId} elasticsearch ${ranking} ${task.id}: ${queries.length} queries (${scope}) ${result.reused ? "reused" : `in ${seconds.toFixed(0)} s`}; identical top-10 ${(100 * (agreement.identicalTop10 ?? 0)).toFixed(1)}%`,
        );
      }
    }
  } finally {
    await (loaded as { close(): Promise<void> } | null)?.close();
  }
}

/** Do both backends return the same top 10? Over the queries the embedded run answered. */
function topTenAgreement(mine: Map<number, number[]>, theirs: Map<number, number[]>, queries: readonly Query[]) {
  let sameList = 0;
  let overlap = 0;
  let compared = 0;
  for (const q of queries) {
    const a = mine.get(q.index);
    if (!a) continue;
    const top = a.slice(0, K);
    const b = theirs.get(q.index)!;
    compared++;
    if (top.length === b.length && top.every((id, i) => b[i] === id)) sameList++;
    overlap += top.filter((id) => b.includes(id)).length / Math.max(1, Math.min(K, top.length));
  }
  return { queries: compared, identicalTop10: compared ? sameList / compared : null, meanTop10Overlap: compared ? overlap / compared : null };
}

await main();
