/**
 * Which sentence encoder finds better "similar organizations"? Leave-one-out precision at 10
 * on the Y Combinator directory (see ../shared/datasets/README.md), for every known model.
 *
 * Protocol, chosen to be comparable with the README's TF-IDF / USE-lite baselines:
 * - Evaluated companies: a real sub-industry ("Industry -> Sub", not a bare industry such as
 *   "B2B" or "Unspecified") and a long_description of at least 8 words. This reproduces the
 *   README's 4,155 exactly.
 * - Text embedded: name + one_liner + long_description only. Never industry, subindustry,
 *   industries or tags: they are the labels being predicted.
 * - For each evaluated company: exact cosine against the pool, top 10 excluding itself;
 *   P@10 = share of the 10 with the same subindustry (and, separately, the same industry).
 * - Pools: "labelled" = the 4,155 evaluated companies (the README's setting, the headline
 *   number); "all" = every one of the 5,706 rows (harder: unlabelled rows are distractors).
 *
 * Usage: pnpm --filter @orgsim/bench models [--data path] [--models a,b] [--max-tokens n]
 *          [--threads n] [--batch-size n] [--limit n] [--out path]
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { arch, cpus, loadavg, platform, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createEmbedder, findRepoRoot, getModelSpec, MODELS } from "@orgsim/embeddings";

interface YcCompany {
  name: string;
  one_liner: string | null;
  long_description: string | null;
  industry: string | null;
  subindustry: string | null;
}

interface Precision {
  subindustry: number;
  industry: number;
}

const K = 10;
const BASELINES = {
  "TF-IDF (README)": { subindustry: 0.294, industry: 0.683 },
  "USE-lite 512-d (README)": { subindustry: 0.297, industry: 0.748 },
};

const { values: args } = parseArgs({
  options: {
    data: { type: "string" },
    models: { type: "string" },
    "max-tokens": { type: "string" },
    threads: { type: "string" },
    "batch-size": { type: "string" },
    limit: { type: "string" },
    out: { type: "string" },
  },
});
const intArg = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number.parseInt(v, 10));

const here = dirname(fileURLToPath(import.meta.url));
const dataPath = resolve(args.data ?? join(findRepoRoot(), "..", "shared", "datasets", "yc", "companies.ndjson"));
const outPath = resolve(args.out ?? join(here, "..", "results", "models.json"));
const modelIds = args.models ? args.models.split(",").map((s) => s.trim()) : Object.keys(MODELS);
const maxTokens = intArg(args["max-tokens"]);
const threads = intArg(args.threads);
const batchSize = intArg(args["batch-size"]);

function wordCount(s: string | null): number {
  return (s ?? "").trim().split(/\s+/).filter(Boolean).length;
}

/** The text embedded for a company: its own words only, never the labels. */
function textOf(c: YcCompany): string {
  return [c.name, c.one_liner, c.long_description]
    .map((s) => (s ?? "").trim())
    .filter((s) => s.length > 0)
    .map((s) => (/[.!?]$/.test(s) ? s : `${s}.`))
    .join(" ");
}

function isEvaluated(c: YcCompany): boolean {
  return (c.subindustry ?? "").includes("->") && wordCount(c.long_description) >= 8;
}

/** Indices of the K rows of `pool` most cosine-similar to row q (unit vectors), q excluded. */
function topK(vectors: Float32Array, dim: number, q: number, pool: Int32Array): number[] {
  const best: { i: number; s: number }[] = [];
  const qOff = q * dim;
  for (const p of pool) {
    if (p === q) continue;
    const pOff = p * dim;
    let s = 0;
    for (let d = 0; d < dim; d++) s += vectors[qOff + d]! * vectors[pOff + d]!;
    if (best.length === K && s <= best[K - 1]!.s) continue;
    // Insertion into a sorted list of 10 beats a heap at this size.
    let j = Math.min(best.length, K - 1);
    best[j] = { i: p, s };
    while (j > 0 && best[j - 1]!.s < s) {
      best[j] = best[j - 1]!;
      best[j - 1] = { i: p, s };
      j--;
    }
  }
  return best.map((b) => b.i);
}

function precisionAt10(rows: YcCompany[], vectors: Float32Array, dim: number, queries: Int32Array, pool: Int32Array): Precision {
  let sub = 0;
  let ind = 0;
  for (const q of queries) {
    const row = rows[q]!;
    for (const n of topK(vectors, dim, q, pool)) {
      if (rows[n]!.subindustry === row.subindustry) sub++;
      if (rows[n]!.industry === row.industry) ind++;
    }
  }
  const total = queries.length * K;
  return { subindustry: sub / total, industry: ind / total };
}

function machineInfo() {
  const cpu = cpus();
  let onnxruntime = "unknown";
  try {
    const pkg = join(findRepoRoot(), "packages", "embeddings", "node_modules", "onnxruntime-node", "package.json");
    onnxruntime = JSON.parse(readFileSync(pkg, "utf8")).version;
  } catch {
    // informational only
  }
  return {
    cpu: cpu[0]?.model ?? "unknown",
    cores: cpu.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    platform: `${platform()} ${arch()}`,
    node: process.version,
    onnxruntime,
    // The machine may be shared: throughput is only comparable at similar load.
    loadAverage1m: round(loadavg()[0] ?? 0, 2),
  };
}

const round = (x: number, digits = 3) => Number(x.toFixed(digits));

/** The companies as read (cut to --limit), their texts, and the two pools of row indices. */
interface Corpus {
  rows: YcCompany[];
  texts: string[];
  evaluated: Int32Array;
  everyone: Int32Array;
}

function readCorpus(): Corpus {
  let rows: YcCompany[] = readFileSync(dataPath, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as YcCompany);
  const limit = intArg(args.limit);
  if (limit) rows = rows.slice(0, limit);
  return {
    rows,
    texts: rows.map(textOf),
    evaluated: Int32Array.from(rows.flatMap((r, i) => (isEvaluated(r) ? [i] : []))),
    everyone: Int32Array.from(rows.keys()),
  };
}

/** One model: load it, embed every row once (both pools read the same vectors), P@10 in both pools, and how long each step took. */
async function evaluateModel(id: string, { rows, texts, evaluated, everyone }: Corpus) {
  const spec = getModelSpec(id);
  const t0 = performance.now();
  const embedder = await createEmbedder({ modelId: id, maxTokens, threads, batchSize });
  const loadMs = performance.now() - t0;
  const t1 = performance.now();
  const vecs = await embedder.embed(texts, "document");
  const embedSeconds = (performance.now() - t1) / 1000;
  const loadAfterEmbedding = loadavg()[0] ?? 0;
  await embedder.close();
  const dim = embedder.dimension;
  const flat = new Float32Array(vecs.length * dim);
  for (const [i, v] of vecs.entries()) flat.set(v, i * dim);

  const t2 = performance.now();
  const labelledPool = precisionAt10(rows, flat, dim, evaluated, evaluated);
  const allPool = precisionAt10(rows, flat, dim, evaluated, everyone);
  const knnSeconds = (performance.now() - t2) / 1000;
  return {
    model: id,
    dimension: dim,
    pooling: spec.pooling,
    maxTokens: maxTokens ?? spec.maxTokens,
    p10: {
      labelledPool: { subindustry: round(labelledPool.subindustry), industry: round(labelledPool.industry) },
      allPool: { subindustry: round(allPool.subindustry), industry: round(allPool.industry) },
    },
    timings: {
      loadMs: Math.round(loadMs),
      embedSeconds: round(embedSeconds, 1),
      docsPerSecond: round(texts.length / embedSeconds, 1),
      exactKnnSeconds: round(knnSeconds, 1),
      loadAverage1mAfterEmbedding: round(loadAfterEmbedding, 2),
    },
  };
}

type ModelResult = Awaited<ReturnType<typeof evaluateModel>>;

function printTable(corpus: Corpus, results: ModelResult[], best: ModelResult | undefined): void {
  console.log(`\nP@${K}, leave-one-out, ${corpus.evaluated.length} companies (pool: labelled ${corpus.evaluated.length} | all ${corpus.rows.length})`);
  console.log("| method | subindustry | industry | subindustry (all) | industry (all) | docs/s |");
  console.log("|---|---|---|---|---|---|");
  for (const [name, p] of Object.entries(BASELINES)) console.log(`| ${name} | ${p.subindustry} | ${p.industry} | | | |`);
  for (const r of results) {
    const { labelledPool: l, allPool: a } = r.p10;
    console.log(`| ${r.model} (${r.maxTokens} tok) | ${l.subindustry} | ${l.industry} | ${a.subindustry} | ${a.industry} | ${r.timings.docsPerSecond} |`);
  }
  console.log(`\nBest on subindustry P@${K}: ${best?.model}`);
}

async function main(): Promise<void> {
  const corpus = readCorpus();
  console.log(`${corpus.rows.length} companies from ${dataPath}; ${corpus.evaluated.length} evaluated`);
  const results: ModelResult[] = [];
  for (const id of modelIds) {
    const r = await evaluateModel(id, corpus);
    console.log(JSON.stringify(r));
    results.push(r);
  }
  const best = [...results].sort((a, b) => b.p10.labelledPool.subindustry - a.p10.labelledPool.subindustry)[0];
  printTable(corpus, results, best);

  const report = {
    date: new Date().toISOString(),
    machine: machineInfo(),
    dataset: {
      path: dataPath,
      rows: corpus.rows.length,
      evaluated: corpus.evaluated.length,
      selection: 'subindustry contains "->" and long_description has >= 8 words',
      text: "name + one_liner + long_description",
      pools: { labelled: "the evaluated companies (headline, as README baselines)", all: "every row" },
    },
    metric: `leave-one-out precision at ${K}, exact cosine`,
    settings: { threads: threads ?? "default (cores, max 4)", batchSize: batchSize ?? "default (1)" },
    baselines: BASELINES,
    results,
    best: best?.model,
  };
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`Wrote ${outPath}`);
}

await main();
