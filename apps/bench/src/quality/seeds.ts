/**
 * The several-seeds task: three organizations of one label value (a yc sub-industry, say) as the
 * `like` seeds, the other organizations of that value as the relevant ones. Compares, on the same
 * queries, the product's several-seeds search (similarToSeeds: Rocchio's centroid of the seeds),
 * the single-seed search it extends (similarToOrganization on the first seed, the other two
 * excluded so both result lists leave out the same organizations), and, as a bench-only
 * alternative design, the reciprocal rank fusion of the three single-seed rankings. And a
 * counter-example check: one organization of the other value the three-seed results confuse most
 * (counterExample) as an `unlike` seed, against the same seeds with it merely excluded.
 */
import { seededRandom } from "@orgsim/sample-data";
import type { LabelledRow } from "./datasets";
import type { Query } from "./evaluate";
import { K, precisionAtK, sample } from "./metrics";

/** Seeds per query: the query organization and this many - 1 others of its label value. */
export const SEEDS_PER_QUERY = 3;
/** Only label values with at least this many organizations give queries (3 seeds and at least 2 relevant). */
export const MIN_GROUP_SIZE = 5;
/** Queries per label: a seeded sample of this many query organizations (all eligible ones when fewer). */
export const SEEDS_QUERIES = 1000;

export interface SeedsQuery extends Query {
  /** The seeds, the query organization (orgId) first; distinct, all of one label value. */
  seeds: number[];
  /** The label value the seeds share. */
  value: string;
}

/**
 * A seeded sample of up to `size` query organizations among those whose `label` value has at
 * least MIN_GROUP_SIZE organizations, each with SEEDS_PER_QUERY - 1 other organizations of that
 * value drawn at random. The companions of an organization depend on the seed and its id only,
 * not on the sample, so a smaller sample (or a cached run) asks the same queries.
 */
export function seedsQueries(rows: readonly LabelledRow[], label: string, size: number, seed: number): SeedsQuery[] {
  const groups = new Map<string, number[]>();
  for (const r of rows) {
    const value = r.labels[label];
    if (value == null) continue;
    groups.set(value, [...(groups.get(value) ?? []), r.id]);
  }
  const eligible = rows.filter((r) => {
    const value = r.labels[label];
    return value != null && groups.get(value)!.length >= MIN_GROUP_SIZE;
  });
  return sample(eligible, size, seed).map((r, index) => {
    const value = r.labels[label]!;
    const others = groups.get(value)!.filter((id) => id !== r.id);
    const random = seededRandom((seed * 1_000_003 + r.id) >>> 0);
    // Partial Fisher-Yates over the other members of the group.
    for (let i = 0; i < SEEDS_PER_QUERY - 1; i++) {
      const j = i + Math.floor(random() * (others.length - i));
      [others[i], others[j]] = [others[j]!, others[i]!];
    }
    return { index, orgId: r.id, text: "", seeds: [r.id, ...others.slice(0, SEEDS_PER_QUERY - 1)], value };
  });
}

/** P@10 of a ranking for a several-seeds query: the relevant ones share the seeds' value and are not seeds. */
export function seedsPrecision(q: SeedsQuery, ranking: readonly number[], rows: Map<number, LabelledRow>, label: string, k = K): number {
  return precisionAtK(ranking, (id) => !q.seeds.includes(id) && rows.get(id)?.labels[label] === q.value, k);
}

/**
 * The counter-example a user would pick from a several-seeds result: among the first k results
 * not of the seeds' value, the value met most often (ties: the one met first), and its first
 * organization. Null when every labelled result shares the seeds' value.
 */
export function counterExample(
  q: SeedsQuery,
  ranking: readonly number[],
  rows: Map<number, LabelledRow>,
  label: string,
  k = K,
): { id: number; value: string } | null {
  const counts = new Map<string, number>();
  const first = new Map<string, number>();
  for (const id of ranking.slice(0, k)) {
    const value = rows.get(id)?.labels[label];
    if (value == null || value === q.value || q.seeds.includes(id)) continue;
    counts.set(value, (counts.get(value) ?? 0) + 1);
    if (!first.has(value)) first.set(value, id);
  }
  let best: string | null = null;
  // In order of first appearance: a strict > keeps the earlier value on ties.
  for (const [value, n] of counts) if (best === null || n > counts.get(best)!) best = value;
  return best === null ? null : { id: first.get(best)!, value: best };
}

/** Counter-example weights the bench tries beside the product's (UNLIKE_WEIGHT, core domain/seed-vector.ts), vector ranking only. */
export const BENCH_UNLIKE_WEIGHTS = [0.1, 0.25, 0.5] as const;

/**
 * Rocchio's query vector as the product forms it (core domain/seed-vector.ts, not exported), with
 * the counter-examples' weight as a parameter: normalize(mean(like) − weight · mean(unlike)).
 */
export function rocchioVector(like: readonly Float32Array[], unlike: readonly Float32Array[], weight: number): Float32Array {
  const mean = (vs: readonly Float32Array[]) => {
    const out = new Float64Array(vs[0]!.length);
    for (const v of vs) for (let i = 0; i < out.length; i++) out[i]! += v[i]! / vs.length;
    return out;
  };
  const query = mean(like);
  if (unlike.length > 0) {
    const away = mean(unlike);
    for (let i = 0; i < query.length; i++) query[i]! -= weight * away[i]!;
  }
  const length = Math.sqrt(query.reduce((sum, x) => sum + x * x, 0));
  return Float32Array.from(query, (x) => (length > 0 ? x / length : x));
}
