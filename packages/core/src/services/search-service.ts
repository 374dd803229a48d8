/** The searches (similar to an organization, to seeds, to a description, to a customer base) over an OrganizationStore, with filters, paging, model checks and explanations; the hybrid ranking is ./hybrid-ranking.ts. */
import { explanationOf } from "../domain/explanation";
import { countriesInRegion, isRegionSlug } from "../domain/geo";
import { distinctiveTerms, lexicalTerms, termFrequency } from "../domain/lexical";
import { OrgsimError } from "../errors";
import type { Embedder } from "../ports/embedder";
import type { OrganizationFilter, OrganizationStore, VectorKind } from "../ports/organization-store";
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
import { HybridRanking, type RankingQuery, round } from "./hybrid-ranking";
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

/** The three searches; the mode is part of a cursor's fingerprint, so a cursor continues only the search that made it. */
type SearchMode = "organization" | "description" | "customers" | "seeds";

/** One search to answer: which it is, what the caller asked, and what ranks the results. */
interface SearchRun {
  /** When the request arrived: `took_ms` counts from it (embedding the query included). */
  started: number;
  mode: SearchMode;
  /** The organization id, the text or the seeds asked about: with the mode and the filters, it fingerprints the cursors. */
  query: unknown;
  /** Pending while the query is embedded (see RankingQuery). */
  vector: Promise<Float32Array>;
  /** The query's words, for the word ranking of hybrid search; pending while its distinctive terms are chosen. */
  text: Promise<string>;
  kind: VectorKind;
  /** See VectorQuery.storedVector. */
  storedVector: boolean;
  input: SearchFilterInput;
  caller: SearchCaller | undefined;
  /** The organizations the query comes from, for explain's shared facets (none for a text query). */
  seeds: readonly Organization[];
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
  private readonly hybrid: HybridRanking;

  constructor(
    private readonly store: OrganizationStore,
    private readonly embedder: Embedder,
    private readonly saved: SavedOrganizations | null = null,
  ) {
    this.hybrid = new HybridRanking(store);
  }

  async similarToOrganization(input: SimilarToOrganizationInput, caller?: SearchCaller): Promise<SearchResponse> {
    const started = performance.now();
    // Its words: the most distinctive terms of the text its profile vector embeds (MoreLikeThis), for
    // hybrid ranking only; asked beside the organization, not after it, to spare a step.
    const text = input.ranking === "vector" ? "" : awaitedLater(this.organizationWords(input.organization_id));
    const [vector, organization] = await Promise.all([this.store.getVector(input.organization_id, "profile"), this.store.get(input.organization_id)]);
    if (!vector || !organization) throw OrgsimError.notFound("organization", input.organization_id);
    const { organization_id, ...filters } = input;
    // The organization itself is never among its own results.
    const withSelfExcluded = { ...filters, exclude_ids: [...(filters.exclude_ids ?? []), organization_id] };
    return this.run({
      started,
      mode: "organization",
      query: organization_id,
      vector: Promise.resolve(vector),
      text: awaitedLater(text),
      kind: "profile",
      storedVector: true,
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
    const text = input.ranking === "vector" ? "" : this.distinctiveText(seeds.likeText);
    const response = await this.run({
      started,
      mode: "seeds",
      query: { like, unlike },
      vector: Promise.resolve(seeds.vector),
      text: awaitedLater(text),
      kind: "profile",
      storedVector: seeds.storedVector,
      input: withSeedsExcluded,
      caller,
      seeds: seeds.likeOrganizations,
    });
    return { ...response, meta: { ...response.meta, missing_seeds: seeds.missing } };
  }

  async similarToDescription(input: SimilarToDescriptionInput, caller?: SearchCaller): Promise<SearchResponse> {
    const started = performance.now();
    const { description, ...filters } = input;
    const vector = awaitedLater(this.embedQuery(description));
    return this.run({
      started,
      mode: "description",
      query: description,
      vector,
      text: Promise.resolve(description),
      kind: "profile",
      storedVector: false,
      input: filters,
      caller,
      seeds: [],
    });
  }

  async similarCustomers(input: SimilarCustomersInput, caller?: SearchCaller): Promise<SearchResponse> {
    const started = performance.now();
    const { organization_customer, ...filters } = input;
    const vector = awaitedLater(this.embedQuery(organization_customer));
    return this.run({
      started,
      mode: "customers",
      query: organization_customer,
      vector,
      text: Promise.resolve(organization_customer),
      kind: "customer",
      storedVector: false,
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
    const frequency = termFrequency(lexicalTerms(text));
    if (frequency.size === 0) return "";
    const stats = await this.store.termStatistics([...frequency.keys()], "profile");
    return distinctiveTerms(frequency, stats).join(" ");
  }

  /** distinctiveText of an organization's profile text, as the store holds it. */
  private async organizationWords(id: number): Promise<string> {
    const text = await this.store.organizationTermStatistics(id, "profile");
    return text ? distinctiveTerms(text.frequency, text.statistics).join(" ") : "";
  }

  private async embedQuery(text: string): Promise<Float32Array> {
    await assertSameModel(this.store, this.embedder);
    const [vector] = await this.embedder.embed([text], "query");
    if (!vector) throw new OrgsimError("INTERNAL", "The embedding model returned no vector");
    return vector;
  }

  private async run({ started, mode, query, vector, text, kind, storedVector, input, caller, seeds }: SearchRun): Promise<SearchResponse> {
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
      storedVector,
      filter: await this.withSavedExcluded(toStoreFilter(input), input.exclude_collection_ids, caller),
      // Cosines are reported rounded to 6 decimals; a floor equal to a reported one must keep that organization.
      ...(floor !== undefined ? { minScore: floor - 5e-7 } : {}),
    };
    // One extra hit tells whether another page exists.
    const hits =
      input.ranking === "vector"
        ? (await this.store.search({ ...ranking, vector: await vector, offset, size: size + 1 })).map((hit, i) => ({
            ...hit,
            relevance: hit.score,
            places: { vector: { rank: offset + i + 1, share: round(hit.score) }, words: null },
          }))
        : await this.hybrid.page(ranking, offset, size + 1);
    const page = hits.slice(0, size);
    const nextOffset = offset + page.length;
    const hasMore = hits.length > size && nextOffset < MAX_RESULTS_DEPTH;
    const queryTerms = explain ? lexicalTerms(await text) : [];
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
}

/**
 * `work` started now and awaited later, once the request's other checks have passed: a failure is
 * thrown where it is awaited, and is not an unhandled rejection (which ends the process) when an
 * earlier check throws first and nothing awaits it.
 */
function awaitedLater<T>(work: T | Promise<T>): Promise<T> {
  const promise = Promise.resolve(work);
  promise.catch(() => undefined);
  return promise;
}
