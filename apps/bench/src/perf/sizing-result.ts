/** bench:sizing's result (apps/bench/results/sizing.json), the memory it derives from the disk figures, and its table. */
import { isQuantized, type VectorIndexType } from "@orgsim/backend-elasticsearch";
import type { VectorKind } from "@orgsim/core";
import type { IndexDisk } from "./sizing-disk";
import type { SizingRecall } from "./sizing-recall";
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
