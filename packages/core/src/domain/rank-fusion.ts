/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009): each id scores the sum, over the
 * rankings that hold it, of 1 / (k + rank), rank counted from 1. It needs no score calibration
 * between BM25 and cosine, which is why hybrid search fuses ranks rather than scores.
 */
export const RRF_K = 60;

/** The most an id can score fusing `rankings` rankings: first in each. Relevance is a fused score over it. */
export const bestFusedScore = (rankings: number, k = RRF_K) => rankings / (k + 1);

/**
 * The fused ranking with each id's relevance: its fused score scaled to 0…1 by the most any id can
 * score (1 = first in every ranking). Best first, ties by id ascending.
 */
export function fusedRelevance(rankings: readonly (readonly number[])[], k = RRF_K): { id: number; relevance: number }[] {
  const scores = new Map<number, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, i) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1));
    });
  }
  const best = bestFusedScore(rankings.length, k);
  return [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([id, score]) => ({ id, relevance: score / best }));
}
