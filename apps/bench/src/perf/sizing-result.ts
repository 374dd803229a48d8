/** bench:sizing's result (apps/bench/results/sizing.json), the memory it derives from the disk figures, and its table. */
import { isQuantized, type VectorIndexType } from "@orgsim/backend-elasticsearch";
import type { VectorKind } from "@orgsim/core";
import type { IndexDisk } from "./sizing-disk";
import type { SizingRecall } from "./sizing-recall";
import { scaleLabel } from "./stats";
import type { Machine } from "./system";

/** Both vector fields together, split by what a search reads. */
export interface VectorMemory {
  /** HNSW graphs (`.vex`). */
  graph_bytes: number;
  /** The float copies (`.vec`): what hnsw searches; quantized types read them only to re-score a few candidates per query. */
  float_bytes: number;
  /** The quantized copies (`.veq` int8/int4, `.veb` bbq); 0 for hnsw. */
  quantized_bytes: number;
  /** What the graph search reads, so what must stay in the OS page cache for fast search: graphs + the copy they compare against. */
  page_cache_bytes: number;
  /** Every vector file of both fields (`_disk_usage`'s knn_vectors). */
  knn_vectors_bytes: number;
}

export interface QuantizationSizing {
  docs: number;
  segments: number;
  load_s: number;
  force_merge_s: number;
  disk: IndexDisk;
  memory: VectorMemory;
  recall: Record<VectorKind, SizingRecall>;
}

export interface SizingResults {
  run: { command: string; machine: Machine; real_file: string; seconds?: number };
  organizations: number;
  queries: Record<VectorKind, number>;
  quantizations: Partial<Record<VectorIndexType, QuantizationSizing>>;
}

const QUANTIZED_FILES = ["veq", "veb"];

export function vectorMemory(quantization: VectorIndexType, disk: IndexDisk): VectorMemory {
  const bytes = (extension: string) => disk.files[extension]?.bytes ?? 0;
  const graph = bytes("vex");
  const float = bytes("vec");
  const quantized = QUANTIZED_FILES.reduce((sum, extension) => sum + bytes(extension), 0);
  const knn = Object.values(disk.fields).reduce((sum, field) => sum + field.knn_vectors_bytes, 0);
  return {
    graph_bytes: graph,
    float_bytes: float,
    quantized_bytes: quantized,
    page_cache_bytes: graph + (isQuantized(quantization) ? quantized : float),
    knn_vectors_bytes: knn,
  };
}

const mib = (bytes: number) => Math.round(bytes / 2 ** 20).toLocaleString("en");
/** Linear extrapolation to a million organizations. */
const perMillion = (bytes: number, organizations: number) => (bytes * 1_000_000) / organizations;

export function printSizingTable(results: SizingResults): void {
  const n = results.organizations;
  const rows = Object.entries(results.quantizations).map(([quantization, s]) => {
    const source = s.disk.fields._source?.total_bytes ?? 0;
    return {
      quantization,
      "page cache MiB": mib(s.memory.page_cache_bytes),
      "per 1M": mib(perMillion(s.memory.page_cache_bytes, n)),
      "graph MiB": mib(s.memory.graph_bytes),
      "quantized MiB": mib(s.memory.quantized_bytes),
      "float MiB": mib(s.memory.float_bytes),
      "store MiB": mib(s.disk.store_bytes),
      "store per 1M": mib(perMillion(s.disk.store_bytes, n)),
      "_source %": Math.round((100 * source) / s.disk.store_bytes),
      "recall profile": s.recall.profile.recall_at_10,
      "recall customer": s.recall.customer.recall_at_10,
      "rank p50 ms": s.recall.profile.rank_p50_ms,
    };
  });
  console.log(`\n${n.toLocaleString("en")} organizations, one segment; "per 1M" extrapolated linearly`);
  console.table(rows);
}

export const SIZING_SECTION = "Cluster sizing per quantization";

/** The section of docs/benchmarks.md that bench:sizing writes (bench:perf's report leaves it alone: it replaces only its own section). */
export function sizingMarkdown(results: SizingResults): string {
  const n = results.organizations;
  const { machine } = results.run;
  const row = (quantization: string, s: QuantizationSizing) => {
    const source = s.disk.fields._source?.total_bytes ?? 0;
    const m = s.memory;
    return `| ${quantization} | ${mib(m.page_cache_bytes)} | ${mib(perMillion(m.page_cache_bytes, n))} | ${mib(m.graph_bytes)} / ${mib(m.quantized_bytes)} / ${mib(m.float_bytes)} | ${mib(s.disk.store_bytes)} | ${mib(perMillion(s.disk.store_bytes, n))} | ${Math.round((100 * source) / s.disk.store_bytes)} % | ${s.recall.profile.recall_at_10} / ${s.recall.customer.recall_at_10} | ${s.recall.profile.rank_p50_ms.toFixed(1)} |`;
  };
  return [
    `\`pnpm bench:sizing\` writes the same ${n.toLocaleString("en")} organizations of the bench dataset (its real organizations first, then synthetic ones: see Speed and scale, *Data*) through \`OrganizationService.upsertMany\` into a fresh index per quantization (\`ORGSIM_ES_VECTOR_INDEX\`), one shard, no replica, force-merged into one segment, and reads its disk per field (\`_disk_usage\`) and per Lucene file. Generated from \`apps/bench/results/sizing.json\`.`,
    "",
    `- **Machine**: ${machine.cpu}, ${machine.cores} cores; Elasticsearch ${machine.elasticsearch}. **When**: ${machine.date.slice(0, 10)} (commit \`${machine.git_commit?.slice(0, 12)}\`), load average ${machine.load_at_start.join(", ")} → ${machine.load_at_end?.join(", ")}${machine.shared ? " (shared machine: times are noisy; sizes are not)" : ""}.`,
    `- **Command**: \`${results.run.command}\`.`,
    "",
    `| quantization | page cache for vector search, MiB at ${scaleLabel(n)} | per 1M | graphs / quantized / float MiB | index store MiB | per 1M | \`_source\` | recall@10 profile / customer | rank p50 ms |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...Object.entries(results.quantizations).map(([q, s]) => row(q, s)),
    "",
    "*Page cache for vector search*: both vector fields' HNSW graphs (`.vex`) plus the copy the graph search compares against: the float vectors (`.vec`) for `hnsw`, the quantized ones (`.veq`, bbq `.veb`) otherwise. Quantized types keep the float vectors too, on disk, and read them only to re-score `oversample × k` candidates per query (the product's default `oversample`: 3 for every quantized type before commit 687aae0, since then 1 for int8, 3 for its customer vectors). What must fit in the OS page cache (RAM outside the JVM heap) for searches not to wait on disk. *Per 1M*: linear extrapolation from the measured size, not a measurement at 1M. *Index store*: the whole index, `_source` (which keeps every float vector) included. *Recall@10*: the product's vector ranking (`num_candidates` 500, float re-scoring) against the exact float cosine top 10 computed in the bench process, for " +
      `${results.queries.profile} / ${results.queries.customer} organizations' own vectors, each organization excluded. *Rank p50*: one \`rank\` call from the bench process, the second pass over the queries.`,
  ].join("\n");
}
