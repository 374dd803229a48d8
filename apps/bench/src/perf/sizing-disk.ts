/**
 * Where an index's bytes are, for bench:sizing: per field from Elasticsearch's analyze-index-disk-
 * usage API (`_disk_usage`), and per Lucene file type from the shard's files (which split a vector
 * field's bytes into its graph, its quantized copy and its float copy).
 */
import { readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import type { EsNode } from "./es-node";

export interface FieldDisk {
  total_bytes: number;
  /** Lucene's vector files of the field: graph, quantized copy (if any) and float copy. */
  knn_vectors_bytes: number;
  stored_fields_bytes: number;
  inverted_index_bytes: number;
  doc_values_bytes: number;
  points_bytes: number;
}

export interface IndexDisk {
  /** The store size `_disk_usage` reports for the index. */
  store_bytes: number;
  /** Every field, `_source` and `_id` included (the API counts the stored document as the field `_source`). */
  fields: Record<string, FieldDisk>;
  /** Bytes per Lucene file extension over every segment (vex: HNSW graph, vec: float vectors, veq/veb: quantized ones, ...). */
  files: Record<string, { bytes: number; files: number }>;
}

interface DiskUsageField {
  total_in_bytes: number;
  knn_vectors_in_bytes?: number;
  stored_fields_in_bytes?: number;
  inverted_index?: { total_in_bytes: number };
  doc_values_in_bytes?: number;
  points_in_bytes?: number;
}

async function call<T>(url: string, method: "GET" | "POST"): Promise<T> {
  const response = await fetch(url, { method });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Reads every document's fields once (expensive: it is why the API wants run_expensive_tasks). */
export async function indexDisk(node: EsNode, prefix: string): Promise<IndexDisk> {
  const alias = `${prefix}-organizations`;
  const usage = await call<Record<string, { store_size_in_bytes: number; fields: Record<string, DiskUsageField> }>>(
    `${node.url}/${alias}/_disk_usage?run_expensive_tasks=true`,
    "POST",
  );
  // The answer is keyed by the concrete index behind the alias (plus `_shards`).
  const index = Object.entries(usage).find(([name]) => name !== "_shards")?.[1];
  if (!index) throw new Error(`_disk_usage of ${alias} named no index`);
  const fields: Record<string, FieldDisk> = {};
  for (const [name, f] of Object.entries(index.fields)) {
    fields[name] = {
      total_bytes: f.total_in_bytes,
      knn_vectors_bytes: f.knn_vectors_in_bytes ?? 0,
      stored_fields_bytes: f.stored_fields_in_bytes ?? 0,
      inverted_index_bytes: f.inverted_index?.total_in_bytes ?? 0,
      doc_values_bytes: f.doc_values_in_bytes ?? 0,
      points_bytes: f.points_in_bytes ?? 0,
    };
  }
  return { store_bytes: index.store_size_in_bytes, fields, files: await segmentFiles(node, alias) };
}

/**
 * Bytes per file extension of the index's live segments, read from the shard's directory: the
 * segment statistics' `file_sizes` keep one file per extension, and the two vector fields each
 * write their own `.vec`/`.vex`/... files, so those statistics drop one field's.
 */
async function segmentFiles(node: EsNode, alias: string): Promise<IndexDisk["files"]> {
  const settings = await call<Record<string, { settings: { index: { uuid: string } } }>>(`${node.url}/${alias}/_settings/index.uuid`, "GET");
  const uuid = Object.values(settings)[0]?.settings.index.uuid;
  const segments = await call<{ segment: string; shard: string }[]>(`${node.url}/_cat/segments/${alias}?format=json&h=segment,shard`, "GET");
  const files: IndexDisk["files"] = {};
  for (const { segment, shard } of segments) {
    const dir = join(node.home, "data", "indices", String(uuid), shard, "index");
    for (const name of readdirSync(dir).filter((f) => f.startsWith(`${segment}.`) || f.startsWith(`${segment}_`))) {
      const extension = extname(name).slice(1);
      const entry = files[extension] ?? { bytes: 0, files: 0 };
      entry.bytes += statSync(join(dir, name)).size;
      entry.files++;
      files[extension] = entry;
    }
  }
  return files;
}

/**
 * Makes merges write each Lucene file on its own instead of one compound file (`.cfs`), so that
 * the files split the vectors into graph, quantized and float files. Called before
 * the force merge; the bytes are the same either way (a compound file concatenates the others).
 */
export async function separateSegmentFiles(node: EsNode, prefix: string): Promise<void> {
  const response = await fetch(`${node.url}/${prefix}-organizations/_settings`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ index: { compound_format: false } }),
  });
  if (!response.ok) throw new Error(`compound_format: ${response.status} ${await response.text()}`);
}
