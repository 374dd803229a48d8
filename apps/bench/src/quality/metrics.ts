/** Ranking metrics of the quality bench. Rankings are lists of ids, best first. */
import { seededRandom } from "@orgsim/sample-data";

export const K = 10;

/** Share of the first k results that are relevant; a list shorter than k counts its missing places as misses. */
export function precisionAtK(ranking: readonly number[], isRelevant: (id: number) => boolean, k = K): number {
  let hits = 0;
  for (const id of ranking.slice(0, k)) if (isRelevant(id)) hits++;
  return hits / k;
}

/** 1 / rank of `target` within the first k results (rank counted from 1), 0 when it is not there. */
export function reciprocalRank(ranking: readonly number[], target: number, k = K): number {
  const at = ranking.slice(0, k).indexOf(target);
  return at < 0 ? 0 : 1 / (at + 1);
}

/** Recall at k of one known item: 1 when it is among the first k results, else 0. */
export function recallAtK(ranking: readonly number[], target: number, k = K): number {
  return ranking.slice(0, k).includes(target) ? 1 : 0;
}

/** Mean of a list (0 for an empty one). */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * Half-width of a 95% confidence interval of a mean (normal approximation), so a reader can
 * tell a real difference between two methods from noise.
 */
export function ci95(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return 0;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) ** 2;
  return 1.96 * Math.sqrt(ss / (n - 1) / n);
}

/** A seeded random sample of `size` items (all of them, in order, when size >= length), kept in input order. */
export function sample<T>(items: readonly T[], size: number, seed: number): T[] {
  if (size >= items.length) return [...items];
  const random = seededRandom(seed);
  const index = items.map((_, i) => i);
  // Partial Fisher-Yates: the first `size` places hold a uniform sample.
  for (let i = 0; i < size; i++) {
    const j = i + Math.floor(random() * (index.length - i));
    [index[i], index[j]] = [index[j]!, index[i]!];
  }
  return index
    .slice(0, size)
    .sort((a, b) => a - b)
    .map((i) => items[i]!);
}
