/**
 * The kNN parameters of a vector search's page: how many hits Elasticsearch keeps (`k`), how many
 * candidates it compares (`num_candidates`), which of the kept hits come back, the re-scoring and
 * the `similarity` floor. Pure, so what a page asks of the cluster is pinned by unit tests.
 */
import type { VectorQuery } from "@orgsim/core";
import { isQuantized, oversampleOf, type ResolvedConfig, type VectorIndexType } from "./config";

/** Elasticsearch's ceiling for `k` and `num_candidates`. */
export const MAX_CANDIDATES = 10_000;
/** `num_candidates` per hit kept, at least (see ResolvedConfig.numCandidates). */
const CANDIDATES_PER_HIT = 4;
/**
 * A profile query off the data (a description's embedding, several seeds blended) is searched with
 * this many times the candidates of a stored organization's vector. At 1M (32 segments), recall@10
 * of the bench's descriptions without a filter was 0.975 at 500 candidates and 1.000 at 1,000
 * (2026-11-28). Searches of the customer vectors re-score 3 times as many (oversampleOf), and
 * customer-base queries found >= 0.9967 there at 500: they stay at the floor.
 */
const OFF_DATA_FACTOR = 2;
/** Hits fetched beyond the page on each side, so exact re-scoring and id tie-breaks see the neighbours. */
const MARGIN = 10;
/** How many times more hits are kept when a tie runs to the end of those kept. */
const TIE_WIDENING = 4;

export interface SearchPlan {
  /** `knn.k`: hits ES keeps (the page, and a margin for ties). */
  k: number;
  numCandidates: number;
  from: number;
  size: number;
  oversample: number | null;
  similarity: number | null;
}

type PageQuery = Pick<VectorQuery, "offset" | "size" | "minScore" | "kind" | "storedVector">;
type PlanConfig = Pick<ResolvedConfig, "exact" | "numCandidates" | "oversample">;

/** The first request for a page: the page and MARGIN hits on each side. */
export function pagePlan(config: PlanConfig, query: PageQuery, type: VectorIndexType): SearchPlan {
  return plan(config, query, type, Math.min(MAX_CANDIDATES, query.offset + query.size + MARGIN), false);
}

/** The request after `previous`, whose page ended in a tie running to its last kept hit: more hits kept, fetched through the last. */
export function widerPlan(config: PlanConfig, query: PageQuery, type: VectorIndexType, previous: SearchPlan): SearchPlan {
  return plan(config, query, type, Math.min(MAX_CANDIDATES, previous.k * TIE_WIDENING), true);
}

/**
 * The knn parameters for a query: ES keeps `keep` hits; the page is fetched with MARGIN hits on
 * each side, or through the last kept hit (`throughLast`) when a tie must be followed.
 */
function plan(config: PlanConfig, query: PageQuery, type: VectorIndexType, keep: number, throughLast: boolean): SearchPlan {
  const k = query.offset + query.size;
  const floor = query.kind === "profile" && !query.storedVector ? OFF_DATA_FACTOR * config.numCandidates : config.numCandidates;
  const numCandidates = config.exact ? MAX_CANDIDATES : Math.min(MAX_CANDIDATES, Math.max(floor, CANDIDATES_PER_HIT * keep));
  const oversample = oversampleOf(config, type, query.kind);
  const rescoring = isQuantized(type) && oversample > 0;
  // The `similarity` floor is the raw cosine (not the (1 + cos) / 2 score); lowered a little below
  // min_score because ES computes in float32 (or, without re-scoring, on quantized vectors), then
  // applied exactly here.
  const slack = isQuantized(type) && !rescoring ? 0.05 : 1e-5;
  const similarity = query.minScore !== undefined && query.minScore - slack > -1 ? query.minScore - slack : null;
  const from = Math.max(0, query.offset - MARGIN);
  return {
    k: keep,
    numCandidates,
    from,
    size: (throughLast ? keep : Math.min(keep, k + MARGIN)) - from,
    oversample: rescoring ? oversample : null,
    similarity,
  };
}
