/**
 * The vector side of hybrid customer-base search (domain/customer-base.ts): candidates from the
 * customer-vector ranking and the profile-vector ranking, each as deep as the fusion, filtered
 * alike; those without a customer vector or with a customer cosine below the floor dropped; the
 * rest ordered by their customer-base similarity. Built from the store port's rank() and
 * customerBaseFigures() (both cosines and whether the customer text is stated, in one call, no
 * documents read), so both backends rank alike.
 */
import { customerBaseSimilarity } from "../domain/customer-base";
import type { OrganizationFilter, OrganizationStore } from "../ports/organization-store";

interface CustomerBaseQuery {
  vector: Float32Array;
  filter: OrganizationFilter;
  minScore?: number;
}

/** The ids of the first `depth` candidates by customer-base similarity, best first, ties by id. */
export async function customerBaseRanking(store: OrganizationStore, query: CustomerBaseQuery, depth: number): Promise<number[]> {
  const [customerHits, profileHits] = await Promise.all(
    (["customer", "profile"] as const).map((kind) => store.rank({ ...query, kind, offset: 0, size: depth })),
  );
  const ids = [...new Set([...customerHits!, ...profileHits!].map((h) => h.id))];
  // The rank() scores are not reused: on Elasticsearch without re-scoring they are quantized, and the figures cost one request anyway.
  const figures = await store.customerBaseFigures(query.vector, ids);
  const floor = query.minScore ?? Number.NEGATIVE_INFINITY;
  return ids
    .flatMap((id) => {
      const f = figures.get(id);
      return f && f.customer !== null && f.customer >= floor ? [{ id, similarity: customerBaseSimilarity(f.customerStated, f.customer, f.profile) }] : [];
    })
    .sort((a, b) => b.similarity - a.similarity || a.id - b.id)
    .slice(0, depth)
    .map((x) => x.id);
}
