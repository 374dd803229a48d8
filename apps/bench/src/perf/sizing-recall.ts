/**
 * Recall at 10 of the product's vector ranking (ElasticsearchOrganizationStore.rank with the
 * server's defaults: num_candidates 500, float re-scoring of quantized types) against the exact
 * float cosine top 10 computed in the bench process (sizing-exact.ts). Each query is an indexed
 * organization's own vector, that organization excluded, as "similar to this organization" asks.
 */
import type { ElasticsearchOrganizationStore } from "@orgsim/backend-elasticsearch";
import { exactTop, rowOf, type VectorTable } from "./sizing-exact";
import { type Hit, mean, percentile, recallAtK } from "./stats";

export interface SizingQuery {
  id: number;
  vector: Float32Array;
  exact: Hit[];
}

export interface SizingRecall {
  queries: number;
  recall_at_10: number;
  min_recall: number;
  /** Median time of one rank call (the second pass over the queries, the first having read the pages it needs). */
  rank_p50_ms: number;
}

/** `count` organizations evenly spaced over the table, with their exact top 10 (computed once, shared by every quantization). */
export function sizingQueries(table: VectorTable, count: number): SizingQuery[] {
  const step = table.ids.length / Math.min(count, table.ids.length);
  return Array.from({ length: Math.min(count, table.ids.length) }, (_, q) => {
    const row = Math.floor(q * step);
    const id = table.ids[row] as number;
    const vector = rowOf(table, row);
    return { id, vector, exact: exactTop(table, vector, 10, id) };
  });
}

export async function measureSizingRecall(store: ElasticsearchOrganizationStore, table: VectorTable, queries: SizingQuery[]): Promise<SizingRecall> {
  const rank = (q: SizingQuery) => store.rank({ vector: q.vector, kind: table.kind, filter: { excludeIds: [q.id] }, offset: 0, size: 10 });
  const recalls: number[] = [];
  for (const query of queries) recalls.push(recallAtK(await rank(query), query.exact, 10));
  const times: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await rank(query);
    times.push(performance.now() - started);
  }
  return {
    queries: recalls.length,
    recall_at_10: Math.round(mean(recalls) * 10_000) / 10_000,
    min_recall: Math.min(...recalls),
    rank_p50_ms: Math.round(percentile(times, 50) * 100) / 100,
  };
}
