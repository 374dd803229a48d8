/**
 * Recall at 10 of Elasticsearch's approximate kNN (the server's defaults: int8_hnsw, num_candidates
 * 500, float re-scoring) against exact search: the embedded backend ranks every matching
 * organization by brute force over the same vectors, so its top 10 is the truth. Both servers
 * answer the same REST request.
 */
import { type FilterLevel, type Mode, searchPath } from "./queries";
import { type Hit, mean, recallAtK } from "./stats";

export interface RecallResult {
  queries: number;
  recall_at_10: number;
  /** The lowest recall of a single query. */
  min_recall: number;
  /** Queries whose top 10 was not exactly the exact one. */
  imperfect_queries: number;
  /** Mean of the exact results' sizes (fewer than 10 when fewer organizations match). */
  mean_exact_hits: number;
  /** Largest |score difference| of an organization both returned. */
  max_score_diff: number;
}

interface SearchBody {
  data: { id: number; similarity: { score: number } }[];
}

async function search(baseUrl: string, path: string): Promise<Hit[]> {
  const response = await fetch(`${baseUrl}${path}`);
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as SearchBody;
  return body.data.map((o) => ({ id: o.id, score: o.similarity.score }));
}

export async function measureRecall(
  exactUrl: string,
  approximateUrl: string,
  mode: Mode,
  filter: FilterLevel,
  queries: (number | string)[],
): Promise<RecallResult> {
  const recalls: number[] = [];
  const sizes: number[] = [];
  let maxDiff = 0;
  for (const query of queries) {
    // Recall is about the approximate kNN itself: the vector ranking.
    const path = searchPath(mode, query, filter, "vector", 10);
    const [exact, approximate] = [await search(exactUrl, path), await search(approximateUrl, path)];
    sizes.push(exact.length);
    const recall = recallAtK(approximate, exact, 10);
    if (Number.isFinite(recall)) recalls.push(recall);
    const exactScores = new Map(exact.map((h) => [String(h.id), h.score]));
    for (const hit of approximate) {
      const score = exactScores.get(String(hit.id));
      if (score !== undefined) maxDiff = Math.max(maxDiff, Math.abs(score - hit.score));
    }
  }
  return {
    queries: recalls.length,
    recall_at_10: Math.round(mean(recalls) * 10_000) / 10_000,
    min_recall: recalls.length ? Math.min(...recalls) : Number.NaN,
    imperfect_queries: recalls.filter((r) => r < 1).length,
    mean_exact_hits: Math.round(mean(sizes) * 100) / 100,
    max_score_diff: maxDiff,
  };
}
