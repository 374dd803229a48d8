/**
 * The truth for bench:sizing's recall: the dataset's vectors held in the bench process and the
 * exact top k by float cosine, computed by brute force (no Elasticsearch index is trusted for it).
 */
import type { VectorKind } from "@orgsim/core";
import type { Dataset } from "./data";
import type { Hit } from "./stats";

/** The organizations that have a `kind` vector among the first `count` of the dataset, each vector scaled to unit length (as the product stores it). */
export interface VectorTable {
  kind: VectorKind;
  ids: number[];
  dimension: number;
  /** Row-major, ids.length × dimension. */
  vectors: Float32Array;
}

export function vectorTables(dataset: Dataset, count: number): Record<VectorKind, VectorTable> {
  const dimension = dataset.dimension;
  const rows: Record<VectorKind, { ids: number[]; vectors: Float32Array[] }> = { profile: { ids: [], vectors: [] }, customer: { ids: [], vectors: [] } };
  for (let start = 0; start < count; start += 1_000) {
    for (const record of dataset.batch(start, Math.min(1_000, count - start))) {
      rows.profile.ids.push(record.organization.id);
      rows.profile.vectors.push(unit(record.profileVector));
      if (record.customerVector) {
        rows.customer.ids.push(record.organization.id);
        rows.customer.vectors.push(unit(record.customerVector));
      }
    }
  }
  const table = (kind: VectorKind): VectorTable => {
    const vectors = new Float32Array(rows[kind].ids.length * dimension);
    rows[kind].vectors.forEach((v, i) => {
      vectors.set(v, i * dimension);
    });
    return { kind, ids: rows[kind].ids, dimension, vectors };
  };
  return { profile: table("profile"), customer: table("customer") };
}

function unit(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return v.map((x) => x / norm);
}

/** Row i's vector (a view, not a copy). */
export const rowOf = (table: VectorTable, i: number): Float32Array => table.vectors.subarray(i * table.dimension, (i + 1) * table.dimension);

/** The exact top k of `query` by cosine over the table, without `excludeId`; ties by id ascending, as the product orders them. */
export function exactTop(table: VectorTable, query: Float32Array, k: number, excludeId: number): Hit[] {
  const { ids, vectors, dimension } = table;
  const top: { id: number; score: number }[] = [];
  for (let row = 0; row < ids.length; row++) {
    const id = ids[row] as number;
    if (id === excludeId) continue;
    let score = 0;
    const offset = row * dimension;
    for (let d = 0; d < dimension; d++) score += (query[d] as number) * (vectors[offset + d] as number);
    if (top.length === k && !better(score, id, top[k - 1] as Hit)) continue;
    // Insertion into a short sorted list: k is 10.
    let at = top.length < k ? top.length : k - 1;
    while (at > 0 && better(score, id, top[at - 1] as Hit)) at--;
    top.splice(at, 0, { id, score });
    if (top.length > k) top.pop();
  }
  return top;
}

const better = (score: number, id: number, than: Hit): boolean => score > than.score || (score === than.score && id < (than.id as number));
