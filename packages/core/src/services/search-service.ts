/** The searches (similar to an organization, to seeds, to a description, to a customer base) over an OrganizationStore, with filters, paging, model checks, hybrid ranking and explanations. */
import { explanationOf, type RankingPlaces } from "../domain/explanation";
import { countriesInRegion, isRegionSlug } from "../domain/geo";
import { distinctiveTerms, lexicalTerms, lexicalTextsOf } from "../domain/lexical";
import { bestFusedScore, fusedRelevance, RRF_K } from "../domain/rank-fusion";
import { OrgsimError } from "../errors";
import type { Embedder } from "../ports/embedder";
import type { OrganizationFilter, OrganizationStore, ScoredOrganization, VectorKind } from "../ports/organization-store";
import type {
  SearchFilterInput,
  SearchResponse,
  SeedSearchResponse,
  SimilarCustomersInput,
  SimilarToDescriptionInput,
  SimilarToOrganizationInput,
  SimilarToSeedsInput,
} from "../schemas/search";
import { MAX_RESULTS_DEPTH } from "../schemas/search";
import type { Organization } from "../schemas/organization";
import { decodeCursor, encodeCursor, fingerprint } from "./cursor";
import { customerBaseRanking } from "./customer-base-ranking";
import { assertSameModel } from "./model-check";
import { seedQuery } from "./seed-query";

/** Turns the validated request filters into store terms. */
export function toStoreFilter(input: SearchFilterInput): OrganizationFilter {
  const filter: OrganizationFilter = {};
  if (input.countries?.length || input.regions?.length) {
    const regionSlugs = (input.regions ?? []).filter(isRegionSlug);
    const subdivisions = (input.regions ?? []).filter((r) => !isRegionSlug(r));
    const countries = new Set([...(input.countries ?? []), ...regionSlugs.flatMap(countriesInRegion)]);
    filter.location = { countries: [...countries].sort(), subdivisions, hqOnly: input.hq_only };
  }
  if (input.employee_ranges?.length) filter.employeeRanges = input.employee_ranges;
  if (input.employees_min !== undefined) filter.employeesMin = input.employees_min;
  if (input.employees_max !== undefined) filter.employeesMax = input.employees_max;
  if (input.founded_year_min !== undefined) filter.foundedYearMin = input.founded_year_min;
  if (input.founded_year_max !== undefined) filter.foundedYearMax = input.founded_year_max;
  if (input.categories?.length) filter.categories = input.categories;
  if (input.funding_stages?.length) filter.fundingStages = input.funding_stages;
  if (input.last_funding_from) filter.lastFundingFrom = input.last_funding_from;
  if (input.last_funding_to) filter.lastFundingTo = input.last_funding_to;
  if (input.exclude_ids?.length) filter.excludeIds = [...new Set(input.exclude_ids)];
  return filter;
}

/**
 * How deep each ranking goes into the fusion. The fused ranking's first FUSION_DEPTH places are the
 * hybrid results; past them the vector ranking continues (without those already shown), so every
 * page of a query comes from one fixed ranking and a cursor never repeats or skips an organization.
 */
export const FUSION_DEPTH = 100;

/** What a search ranks: the query vector, the query words, which vectors and texts to compare. */
interface RankingQuery {
  vector: Float32Array;
  text: string;
  kind: VectorKind;
  filter: OrganizationFilter;
  minScore?: number;
}

/** The three searches; the mode is part of a cursor's fingerprint, so a cursor continues only the search that made it. */
type SearchMode = "organization" | "description" | "customers" | "seeds";

/** One search to answer: which it is, what the caller asked, and what ranks the results. */
interface SearchRun {
  /** When the request arrived: `took_ms` counts from it (embedding the query included). */
  started: number;
  mode: SearchMode;
  /** The organization id, the text or the seeds asked about: with the mode and the filters, it fingerprints the cursors. */
  query: unknown;
  vector: Float32Array;
  /** The query's words, for the word ranking of hybrid search. */
  text: string;
  kind: VectorKind;
  input: SearchFilterInput;
  caller: SearchCaller | undefined;
  /** The organizations the query comes from, for explain's shared facets (none for a text query). */
  seeds: readonly Organization[];
}

/** A ranked id with its relevance and its place in each ranking. */
interface PlacedId {
  id: number;
  relevance: number;
  places: RankingPlaces;
}

const isOffset = (p: unknown): p is number => Number.isInteger(p) && (p as number) > 0 && (p as number) < MAX_RESULTS_DEPTH;

/** Where `exclude_collection_ids` finds the organizations a caller saved (the CollectionService). */
export interface SavedOrganizations {
  organizationIdsIn(tenant: string, collectionIds: readonly string[]): Promise<number[]>;
}

/** Who asks: collections named by `exclude_collection_ids` must be this tenant's. */
export interface SearchCaller {
  tenant: string;
}

export class SearchService {
  constructor(
    private readonly store: OrganizationStore,
    private readonly embedder: Embedder,
    private readonly saved: SavedOrganizations | null = null,
  ) {}

  async similarToOrganization(input: SimilarToOrganizationInput, caller?: SearchCaller): Promise<SearchResponse> {
    const started = performance.now();
    const [vector, organization] = await Promise.all([this.store.getVector(input.organization_id, "profile"), this.store.get(input.organization_id)]);
    if (!vector || !organization) throw OrgsimError.notFound("organization", input.organization_id);
    const { organization_id, ...filters } = input;
    // The organization itself is never among its own results.
    const withSelfExcluded = { ...filters, exclude_ids: [...(filters.exclude_ids ?? []), organization_id] };
    // Its words: the most distinctive terms of the text its profile vector embeds (MoreLikeThis), for hybrid ranking only.
    const text = input.ranking === "vector" ? "" : await this.distinctiveText(lexicalTextsOf(organization).profile ?? organization.name);
    return this.run({
      started,
      mode: "organization",
      query: organization_id,
      vector,
      text,
      kind: "profile",
      input: withSelfExcluded,
      caller,
      seeds: [organization],
    });
  }

  /** Like the `like` seeds and not the `unlike` ones (seed-query.ts); seeds that name no organization are reported in meta. */
  async similarToSeeds(input: SimilarToSeedsInput, caller?: SearchCaller): Promise<SeedSearchResponse> {
    const started = performance.now();
    const { like, unlike, ...filters } = input;
    if (like.some((seed) => "description" in seed) || unlike.some((seed) => "description" in seed)) await assertSameModel(this.store, this.embedder);
    const seeds = await seedQuery(this.store, (texts) => this.embedder.embed(texts, "query"), like, unlike);
    // The seed organizations themselves are never among the results.
    const withSeedsExcluded = { ...filters, exclude_ids: [...(filters.exclude_ids ?? []), ...seeds.seedIds] };
    const text = input.ranking === "vector" ? "" : await this.distinctiveText(seeds.likeText);
    const response = await this.run({
      started,
      mode: "seeds",
      query: { like, unlike },
      vector: seeds.vector,
      text,
      kind: "profile",
      input: withSeedsExcluded,
      caller,
      seeds: seeds.likeOrganizations,
    });
    return { ...response, meta: { ...response.meta, missing_seeds: seeds.missing } };
  }

  async similarToDescription(input: SimilarToDescriptionInput, caller?: SearchCaller): Promise<SearchResponse> {
    const started = performance.now();
    const { description, ...filters } = input;
    const vector = await this.embedQuery(description);
    return this.run({ started, mode: "description", query: description, vector, text: description, kind: "profile", input: filters, caller, seeds: [] });
  }

  async similarCustomers(input: SimilarCustomersInput, caller?: SearchCaller): Promise<SearchResponse> {
    const started = performance.now();
    const { organization_customer, ...filters } = input;
    const vector = await this.embedQuery(organization_customer);
    return this.run({
      started,
      mode: "customers",
      query: organization_customer,
      vector,
      text: organization_customer,
      kind: "customer",
      input: filters,
      caller,
      seeds: [],
    });
  }

  /** `filter` leaving out the organizations the caller's collections hold too. */
  private async withSavedExcluded(filter: OrganizationFilter, collectionIds: readonly string[] | undefined, caller: SearchCaller | undefined) {
    if (!collectionIds?.length) return filter;
    if (!this.saved || !caller) throw new OrgsimError("INTERNAL", "exclude_collection_ids needs the caller's tenant and the collections");
    const held = await this.saved.organizationIdsIn(caller.tenant, collectionIds);
    return held.length ? { ...filter, excludeIds: [...new Set([...(filter.excludeIds ?? []), ...held])] } : filter;
  }

  private async distinctiveText(text: string): Promise<string> {
    const terms = lexicalTerms(text);
    if (terms.length === 0) return "";
    const stats = await this.store.termStatistics([...new Set(terms)], "profile");
    return distinctiveTerms(terms, stats).join(" ");
  }

  private async embedQuery(text: string): Promise<Float32Array> {
    await assertSameModel(this.store, this.embedder);
    const [vector] = await this.embedder.embed([text], "query");
    if (!vector) throw new OrgsimError("INTERNAL", "The embedding model returned no vector");
    return vector;
  }

  private async run({ started, mode, query, vector, text, kind, input, caller, seeds }: SearchRun): Promise<SearchResponse> {
    // explain changes what a result carries, not the ranking: a cursor serves both.
    const { limit, cursor, explain, ...filters } = input;
    const queryFingerprint = fingerprint([mode, query, filters]);
    const offset = cursor ? decodeCursor(cursor, queryFingerprint, isOffset) : 0;
    const size = Math.min(limit, MAX_RESULTS_DEPTH - offset);
    const floor = input.min_similarity ?? input.min_score;
    const ranking: RankingQuery = {
      vector,
      text,
      kind,
      filter: await this.withSavedExcluded(toStoreFilter(input), input.exclude_collection_ids, caller),
      // Cosines are reported rounded to 6 decimals; a floor equal to a reported one must keep that organization.
      ...(floor !== undefined ? { minScore: floor - 5e-7 } : {}),
    };
    // One extra hit tells whether another page exists.
    const hits =
      input.ranking === "vector"
        ? (await this.store.search({ ...ranking, offset, size: size + 1 })).map((hit, i) => ({
            ...hit,
            relevance: hit.score,
            places: { vector: { rank: offset + i + 1, share: round(hit.score) }, words: null },
          }))
        : await this.hybridPage(ranking, offset, size + 1);
    const page = hits.slice(0, size);
    const nextOffset = offset + page.length;
    const hasMore = hits.length > size && nextOffset < MAX_RESULTS_DEPTH;
    const queryTerms = explain ? lexicalTerms(text) : [];
    return {
      data: page.map(({ organization, score, relevance, places }, i) => ({
        ...organization,
        similarity: {
          score: round(relevance),
          cosine_similarity: round(score),
          cosine_distance: round(1 - score),
          rank: offset + i + 1,
          ...(explain ? { explanation: explanationOf(organization, places, score, queryTerms, kind, seeds) } : {}),
        },
      })),
      meta: {
        limit,
        next_cursor: hasMore ? encodeCursor(nextOffset, queryFingerprint) : null,
        took_ms: Math.round((performance.now() - started) * 10) / 10,
        backend: this.store.backend,
        model: this.embedder.modelId,
        ranking: input.ranking,
      },
    };
  }

  /** Places offset..offset+size of the hybrid ranking (hybridIds), with their relevance, exact cosines and documents. */
  private async hybridPage(query: RankingQuery, offset: number, size: number): Promise<(ScoredOrganization & Omit<PlacedId, "id">)[]> {
    const minScore = query.minScore ?? Number.NEGATIVE_INFINITY;
    for (let attempt = 1; ; attempt++) {
      const placed = await this.hybridIds(query, offset, size);
      const ids = placed.map((p) => p.id);
      // Exact scores and documents for the page only.
      const [scores, documents] = await Promise.all([this.store.similarities(query.vector, query.kind, ids), this.store.getMany(ids)]);
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
  private async hybridIds(query: RankingQuery, offset: number, size: number): Promise<PlacedId[]> {
    const customers = query.kind === "customer";
    const [vectorIds, wordIds] = await Promise.all([
      customers
        ? customerBaseRanking(this.store, query, FUSION_DEPTH)
        : this.store.rank({ ...query, offset: 0, size: FUSION_DEPTH }).then((hits) => hits.map((h) => h.id)),
      // Customer-base search matches the query's words against whole profiles: the extracted customer sentences are too few words.
      this.store.searchText({ text: query.text, kind: customers ? "profile" : query.kind, filter: query.filter, size: FUSION_DEPTH }),
    ]);
    const words = await this.wordsAboveFloor(query, wordIds, new Set(vectorIds));
    const fused = withPlaces(fusedRelevance([vectorIds, words]).slice(0, FUSION_DEPTH), vectorIds, words);

    if (offset + size <= fused.length) return fused.slice(offset, offset + size);
    const placed = new Set(fused.map((f) => f.id));
    if (customers) {
      const continued = fused.length === FUSION_DEPTH ? await this.customerContinuation(query, placed, offset + size) : [];
      return [...fused, ...continued].slice(offset, offset + size);
    }
    if (vectorIds.length < FUSION_DEPTH) return fused.slice(offset, offset + size);
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
   * The word matches that may be results: outside the vector ranking, one needs a vector of the
   * query's kind (customer-base search: a customer vector) and, with a floor, a cosine at or above it.
   */
  private async wordsAboveFloor(query: RankingQuery, wordIds: number[], ranked: Set<number>): Promise<number[]> {
    if (query.minScore === undefined && query.kind !== "customer") return wordIds;
    const floor = query.minScore ?? Number.NEGATIVE_INFINITY;
    const wordsOnly = await this.store.similarities(
      query.vector,
      query.kind,
      wordIds.filter((id) => !ranked.has(id)),
    );
    return wordIds.filter((id) => {
      const cosine = wordsOnly.get(id);
      return ranked.has(id) || (cosine !== undefined && cosine >= floor);
    });
  }

  /**
   * Customer-base search past its fused places: the customer-vector ranking, less what the fusion
   * placed, the j-th of them at place FUSION_DEPTH + j with that place's share of the fusion, below
   * every fused place (each scores at least 1 / (k + FUSION_DEPTH)), and falling: scores keep
   * descending across the seam and every page comes from one fixed ranking.
   */
  private async customerContinuation(query: RankingQuery, placed: Set<number>, upTo: number): Promise<PlacedId[]> {
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
const round = (value: number) => Math.round(value * 1e6) / 1e6;
