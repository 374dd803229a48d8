/**
 * Hybrid ranking: the reciprocal rank fusion of a vector ranking and a word ranking, FUSION_DEPTH
 * deep, continued past the fused places by the vector ranking; customer-base search fuses its own
 * vector side (customer-base-ranking.ts). Pages come with exact cosines and documents.
 */
import type { RankingPlaces } from "../domain/explanation";
import { bestFusedScore, fusedRelevance, RRF_K } from "../domain/rank-fusion";
import type { OrganizationFilter, OrganizationStore, ScoredOrganization, VectorKind } from "../ports/organization-store";
import { customerBaseRanking } from "./customer-base-ranking";

/**
 * How deep each ranking goes into the fusion. The fused ranking's first FUSION_DEPTH places are the
 * hybrid results; past them the vector ranking continues (without those already shown), so every
 * page of a query comes from one fixed ranking and a cursor never repeats or skips an organization.
 */
export const FUSION_DEPTH = 100;

/**
 * What a search ranks: the query vector, the query words, which vectors and texts to compare. The
 * vector and the words may still be on their way (the query being embedded, its distinctive terms
 * being chosen): each ranking starts as soon as its own half is known.
 */
export interface RankingQuery {
  vector: Promise<Float32Array>;
  text: Promise<string>;
  kind: VectorKind;
  filter: OrganizationFilter;
  minScore?: number;
  /** See VectorQuery.storedVector. */
  storedVector?: boolean;
}

/** A RankingQuery whose vector and words are known. */
type KnownQuery = Omit<RankingQuery, "vector" | "text"> & { vector: Float32Array; text: string };

/** A ranked id with its relevance and its place in each ranking. */
export interface PlacedId {
  id: number;
  relevance: number;
  places: RankingPlaces;
}

/** Pages of the hybrid ranking of a query over a store. */
export class HybridRanking {
  constructor(private readonly store: OrganizationStore) {}

  /** Places offset..offset+size of the hybrid ranking (ids), with their relevance, exact cosines and documents. */
  async page(query: RankingQuery, offset: number, size: number): Promise<(ScoredOrganization & Omit<PlacedId, "id">)[]> {
    const minScore = query.minScore ?? Number.NEGATIVE_INFINITY;
    for (let attempt = 1; ; attempt++) {
      const { known, placed, ranked } = await this.ids(query, offset, size);
      const ids = placed.map((p) => p.id);
      // Exact scores and documents for the page only (the store may take the vector ranking's scores for its ids).
      const [scores, documents] = await Promise.all([this.store.similarities(known.vector, query.kind, ids, ranked), this.store.getMany(ids)]);
      // A document gone since the ranking (deleted meanwhile, or unreadable and from now on left out of
      // rankings) would shorten the page and end paging early: rank again.
      if (documents.length < ids.length && attempt < 3) continue;
      const byId = new Map(documents.map((o) => [o.id, o]));
      return placed.flatMap(({ id, relevance, places }) => {
        const organization = byId.get(id);
        const score = scores.get(id);
        return organization && score !== undefined && score >= minScore ? [{ organization, score, relevance, places }] : [];
      });
    }
  }

  /**
   * The ids at offset..offset+size of the hybrid ranking with their relevance: the reciprocal rank
   * fusion of the vector ranking and the word ranking, each FUSION_DEPTH deep and filtered alike
   * (min_similarity too: a word match below the floor is dropped), then the vector ranking past
   * them, each scored as its vector place alone would be in the fusion (never above the fused
   * places: see continuationRelevance). Customer-base search fuses its own vector ranking
   * (customerBaseRanking) with words over whole profiles, keeping only word matches with a
   * customer vector, and continues past the fused places with the customer-vector ranking
   * (customerContinuation).
   */
  private async ids(query: RankingQuery, offset: number, size: number): Promise<{ known: KnownQuery; placed: PlacedId[]; ranked: Map<number, number> }> {
    const known = Promise.all([query.vector, query.text]).then(([vector, text]): KnownQuery => ({ ...query, vector, text }));
    // Whether the word ranking still runs when the vector ranking starts (a description's words are
    // ranked while it is embedded): the store may then rank the vectors on another thread meanwhile.
    let wordsPending = true;
    // Started first, so that where both halves are known already the vectors go to that thread
    // before the words take this one.
    const vectorSide = query.vector.then((vector) => this.vectorRanking({ ...query, vector, concurrent: wordsPending }));
    // Customer-base search matches the query's words against whole profiles: the extracted customer sentences are too few words.
    const wordIds = query.text.then((text) =>
      this.store.searchText({ text, kind: query.kind === "customer" ? "profile" : query.kind, filter: query.filter, size: FUSION_DEPTH }),
    );
    const wordsDone = () => {
      wordsPending = false;
    };
    wordIds.then(wordsDone, wordsDone);
    const [{ ids: vectorIds, scores: ranked }, wordCosines] = await Promise.all([
      vectorSide,
      // Checked while the vector ranking runs (the customer-base one takes several requests).
      Promise.all([known, wordIds]).then(([q, ids]) => this.wordCosines(q, ids)),
    ]);
    const words = wordsAboveFloor(await wordIds, wordCosines, new Set(vectorIds), query.minScore);
    const fused = withPlaces(fusedRelevance([vectorIds, words]).slice(0, FUSION_DEPTH), vectorIds, words);
    const knownQuery = await known;
    return { known: knownQuery, placed: await this.pastFused(knownQuery, fused, vectorIds.length, offset, size), ranked };
  }

  /** The ids of the vector side of the fusion, FUSION_DEPTH deep, with rank()'s scores (none for customer-base search). */
  private async vectorRanking(query: Omit<KnownQuery, "text"> & { concurrent: boolean }): Promise<{ ids: number[]; scores: Map<number, number> }> {
    if (query.kind === "customer") return { ids: await customerBaseRanking(this.store, query, FUSION_DEPTH), scores: new Map() };
    const hits = await this.store.rank({ ...query, offset: 0, size: FUSION_DEPTH });
    return { ids: hits.map((h) => h.id), scores: new Map(hits.map((h) => [h.id, h.score])) };
  }

  /** Places offset..offset+size: the fused places, continued past them (see ids) when the page reaches beyond. */
  private async pastFused(query: KnownQuery, fused: PlacedId[], vectorRanked: number, offset: number, size: number): Promise<PlacedId[]> {
    if (offset + size <= fused.length) return fused.slice(offset, offset + size);
    const placed = new Set(fused.map((f) => f.id));
    if (query.kind === "customer") {
      const continued = fused.length === FUSION_DEPTH ? await this.customerContinuation(query, placed, offset + size) : [];
      return [...fused, ...continued].slice(offset, offset + size);
    }
    if (vectorRanked < FUSION_DEPTH) return fused.slice(offset, offset + size);
    // Past the fused places: the vector ranking continues, less what the fusion already placed.
    const deeper = await this.store.rank({ ...query, offset: 0, size: offset + size + fused.length });
    const continued = deeper.flatMap((hit, i) => {
      if (placed.has(hit.id)) return [];
      const relevance = continuationRelevance(i + 1);
      return [{ id: hit.id, relevance, places: { vector: { rank: i + 1, share: round(relevance) }, words: null } }];
    });
    return [...fused, ...continued].slice(offset, offset + size);
  }

  /**
   * The cosines of the word matches with the query, where wordsAboveFloor needs them: with a floor,
   * or for customer-base search (a word match without a customer vector is not a result); else null.
   */
  private async wordCosines(query: KnownQuery, wordIds: number[]): Promise<Map<number, number> | null> {
    if (query.minScore === undefined && query.kind !== "customer") return null;
    return this.store.similarities(query.vector, query.kind, wordIds);
  }

  /**
   * Customer-base search past its fused places: the customer-vector ranking, less what the fusion
   * placed, the j-th of them at place FUSION_DEPTH + j with that place's share of the fusion, below
   * every fused place (each scores at least 1 / (k + FUSION_DEPTH)), and falling: scores keep
   * descending across the seam and every page comes from one fixed ranking.
   */
  private async customerContinuation(query: KnownQuery, placed: Set<number>, upTo: number): Promise<PlacedId[]> {
    const deeper = await this.store.rank({ ...query, offset: 0, size: upTo + placed.size });
    return deeper
      .filter((hit) => !placed.has(hit.id))
      .map((hit, j) => {
        const relevance = continuationRelevance(FUSION_DEPTH + j + 1);
        return { id: hit.id, relevance, places: { vector: { rank: FUSION_DEPTH + j + 1, share: round(relevance) }, words: null } };
      });
  }
}

/**
 * The word matches that may be results: outside the vector ranking, one needs a vector of the
 * query's kind (customer-base search: a customer vector) and, with a floor, a cosine at or above it.
 * Without `cosines` (no floor, not customer-base search), all of them.
 */
function wordsAboveFloor(wordIds: number[], cosines: Map<number, number> | null, ranked: Set<number>, minScore: number | undefined): number[] {
  if (!cosines) return wordIds;
  const floor = minScore ?? Number.NEGATIVE_INFINITY;
  return wordIds.filter((id) => {
    const cosine = cosines.get(id);
    return ranked.has(id) || (cosine !== undefined && cosine >= floor);
  });
}

/**
 * The relevance of the organization at `vectorRank` in the vector ranking past the fused places: its
 * vector place's share of the fusion, 1 / (k + rank), scaled as fusedRelevance scales. It is at most
 * its fused score (without its word place), which is at most the last fused place's, and falls
 * with the rank: scores keep descending across the seam. An equal score at the seam is a tie the
 * fusion broke by id, as the results are.
 */
function continuationRelevance(vectorRank: number): number {
  return 1 / (RRF_K + vectorRank) / bestFusedScore(2);
}

/** The fused places with each one's place in the vector and word rankings, and their shares of its relevance. */
function withPlaces(fused: { id: number; relevance: number }[], vectorIds: number[], wordIds: number[]): PlacedId[] {
  const share = (rank: number) => round(1 / (RRF_K + rank) / bestFusedScore(2));
  const placeIn = (ids: number[]) => {
    const rankOf = new Map(ids.map((id, i) => [id, i + 1]));
    return (id: number) => {
      const rank = rankOf.get(id);
      return rank === undefined ? null : { rank, share: share(rank) };
    };
  };
  const [vectorPlace, wordPlace] = [placeIn(vectorIds), placeIn(wordIds)];
  return fused.map(({ id, relevance }) => ({ id, relevance, places: { vector: vectorPlace(id), words: wordPlace(id) } }));
}

/** Scores are reported to 6 decimals: float32 vectors carry no more. */
export const round = (value: number) => Math.round(value * 1e6) / 1e6;
