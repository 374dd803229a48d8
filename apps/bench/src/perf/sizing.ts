/**
 * `pnpm bench:sizing`: how much memory and disk an Elasticsearch cluster needs per quantization.
 *
 *   pnpm bench:sizing [-- --count 100k] [--real .orgsim/bench-perf/real.json] [--queries 100]
 *                     [--quantizations hnsw,int8_hnsw,int4_hnsw,bbq_hnsw] [--es-port 9291]
 *                     [--es-heap 2g] [--shared] [--out apps/bench/results/sizing.json]
 *                     [--skip-docs] [--report-only]
 *
 * For each quantization: the same `count` organizations of bench:perf's dataset (its real
 * organizations, from the real.json an earlier bench:perf run saved, then synthetic ones) are
 * written through OrganizationService.upsertMany with their vectors given into a fresh index the
 * product's Elasticsearch backend creates with that quantization; the index is refreshed and
 * force-merged into one segment, its disk read per field (`_disk_usage`) and per Lucene file type,
 * and recall at 10 of the product's vector ranking measured against exact float cosine. Sizes are
 * deterministic; times depend on the machine's load (recorded). A clean node of its own is started
 * (tools/elasticsearch-node) and stopped at the end. The table is printed and the "Cluster sizing
 * per quantization" section of docs/benchmarks.md rewritten (--report-only: from the saved results
 * alone, measuring nothing).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openElasticsearchBackend, VECTOR_INDEX_TYPES, type VectorIndexType } from "@orgsim/backend-elasticsearch";
import type { VectorKind, VectorModel } from "@orgsim/core";
import { findRepoRoot } from "@orgsim/embeddings";
import { Dataset, DEFAULT_SYNTHETIC, loadReal } from "./data";
import { deleteIndices, type EsNode, forceMerge, indexStats, settle, startEsNode } from "./es-node";
import { formatDuration, loadElasticsearch } from "./load";
import { indexDisk, separateSegmentFiles } from "./sizing-disk";
import { type VectorTable, vectorTables } from "./sizing-exact";
import { measureSizingRecall, type SizingQuery, sizingQueries } from "./sizing-recall";
import { printSizingTable, type QuantizationSizing, SIZING_SECTION, type SizingResults, sizingMarkdown, vectorMemory } from "./sizing-result";
import { parseScale, replaceSection } from "./stats";
import { currentLoad, machine } from "./system";

const argv = process.argv.slice(2).filter((a) => a !== "--");
const { values: args } = parseArgs({
  args: argv,
  options: {
    count: { type: "string", default: "100k" },
    real: { type: "string" },
    queries: { type: "string", default: "100" },
    quantizations: { type: "string", default: "hnsw,int8_hnsw,int4_hnsw,bbq_hnsw" },
    "es-port": { type: "string", default: process.env.ES_PORT ?? "9291" },
    "es-heap": { type: "string", default: "2g" },
    shared: { type: "boolean", default: false },
    out: { type: "string" },
    "report-only": { type: "boolean", default: false },
    "skip-docs": { type: "boolean", default: false },
  },
});

const repo = findRepoRoot();
const realFile = resolve(args.real ?? process.env.ORGSIM_BENCH_REAL ?? join(repo, ".orgsim", "bench-perf", "real.json"));
const outFile = resolve(args.out ?? join(repo, "apps", "bench", "results", "sizing.json"));
const count = parseScale(args.count);
const quantizations = args.quantizations.split(",").map((q) => {
  if (!(VECTOR_INDEX_TYPES as readonly string[]).includes(q)) throw new Error(`--quantizations: ${q} is not one of ${VECTOR_INDEX_TYPES.join(", ")}`);
  return q as VectorIndexType;
});
const started = performance.now();
const log = (line: string) => console.log(`[${formatDuration((performance.now() - started) / 1000).padStart(6)}] ${line}`);

/** The dataset's vectors and the queries with their exact top 10, shared by every quantization. */
interface Truth {
  tables: Record<VectorKind, VectorTable>;
  queries: Record<VectorKind, SizingQuery[]>;
}

async function measure(node: EsNode, quantization: VectorIndexType, dataset: Dataset, model: VectorModel, { tables, queries }: Truth) {
  const prefix = `sizing-${quantization}`;
  await deleteIndices(node, prefix);
  log(`=== ${quantization}: writing ${count.toLocaleString("en")} organizations ===`);
  const load = await loadElasticsearch(node.url, prefix, dataset, count, model, log, quantization);
  await settle(node, prefix, log);
  await separateSegmentFiles(node, prefix);
  const mergeSeconds = await forceMerge(node, prefix, log);
  const stats = await indexStats(node, prefix);
  log(`  force-merged in ${formatDuration(mergeSeconds)}: ${stats.docs} documents, ${stats.segments} segment(s); reading disk usage ...`);
  const disk = await indexDisk(node, prefix);
  const backend = await openElasticsearchBackend({ url: node.url, indexPrefix: prefix, quantization, requestTimeoutMs: 120_000 });
  try {
    const recall = {
      profile: await measureSizingRecall(backend.organizations, tables.profile, queries.profile),
      customer: await measureSizingRecall(backend.organizations, tables.customer, queries.customer),
    };
    log(`  recall@10 profile ${recall.profile.recall_at_10}, customer ${recall.customer.recall_at_10}`);
    const result: QuantizationSizing = {
      docs: stats.docs,
      segments: stats.segments,
      load_s: Math.round(load.seconds),
      force_merge_s: Math.round(mergeSeconds),
      disk,
      memory: vectorMemory(quantization, disk),
      recall,
    };
    return result;
  } finally {
    await backend.close();
    // Each quantization is measured alone: the next one's pages do not compete with this index's.
    await deleteIndices(node, prefix);
  }
}

/** Prints the table and rewrites the docs section from the results. */
function report(results: SizingResults): void {
  printSizingTable(results);
  if (args["skip-docs"]) return;
  const doc = join(repo, "docs", "benchmarks.md");
  writeFileSync(doc, replaceSection(readFileSync(doc, "utf8"), SIZING_SECTION, sizingMarkdown(results)));
  log(`"${SIZING_SECTION}" of ${doc} rewritten`);
}

if (args["report-only"]) {
  report(JSON.parse(readFileSync(outFile, "utf8")) as SizingResults);
  process.exit(0);
}

const real = loadReal(realFile);
const dataset = new Dataset(real.records, DEFAULT_SYNTHETIC);
log(`data: ${count.toLocaleString("en")} organizations (${dataset.real.length} real from ${realFile}, then synthetic); exact top 10 of the queries ...`);
const tables = vectorTables(dataset, count);
const queryCount = Number(args.queries);
const queries = { profile: sizingQueries(tables.profile, queryCount), customer: sizingQueries(tables.customer, queryCount) };
const results: SizingResults = {
  run: { command: `pnpm bench:sizing -- ${argv.join(" ")}`.trim(), machine: machine(repo, args.shared), real_file: realFile },
  organizations: count,
  queries: { profile: queries.profile.length, customer: queries.customer.length },
  quantizations: {},
};
const save = () => {
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
};

const node = await startEsNode(repo, { port: Number(args["es-port"]), heap: args["es-heap"], keep: false, log });
results.run.machine.elasticsearch = node.version;
results.run.machine.java = node.jvm;
try {
  for (const quantization of quantizations) {
    results.quantizations[quantization] = await measure(node, quantization, dataset, real.model, { tables, queries });
    save();
  }
} finally {
  node.stop();
}
results.run.machine.load_at_end = currentLoad();
results.run.seconds = Math.round((performance.now() - started) / 1000);
save();
report(results);
log(`done; results in ${outFile}`);
