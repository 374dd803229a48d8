/** The three search modes over an OrganizationStore, with filters, paging and model checks. */
import { countriesInRegion, isRegionSlug } from "../domain/geo";
import { OrgsimError } from "../errors";
import type { Embedder } from "../ports/embedder";
import type { OrganizationFilter, OrganizationStore, VectorKind } from "../ports/organization-store";
import type {
  SearchFilterInput,
  SearchResponse,
  SimilarCustomersInput,
  SimilarToDescriptionInput,
  SimilarToOrganizationInput,
} from "../schemas/search";
import { MAX_RESULTS_DEPTH } from "../schemas/search";
import { decodeCursor, encodeCursor, fingerprint } from "./cursor";
import { assertSameModel } from "./model-check";

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

const isOffset = (p: unknown): p is number => Number.isInteger(p) && (p as number) > 0 && (p as number) < MAX_RESULTS_DEPTH;

export class SearchService {
  constructor(
    private readonly store: OrganizationStore,
    private readonly embedder: Embedder,
  ) {}

  async similarToOrganization(input: SimilarToOrganizationInput): Promise<SearchResponse> {
    const started = performance.now();
    const vector = await this.store.getVector(input.organization_id, "profile");
    if (!vector) throw OrgsimError.notFound("organization", input.organization_id);
    const { organization_id, ...filters } = input;
    // The organization itself is never among its own results.
    const withSelfExcluded = { ...filters, exclude_ids: [...(filters.exclude_ids ?? []), organization_id] };
    return this.run(started, "organization", organization_id, vector, "profile", withSelfExcluded);
  }

  async similarToDescription(input: SimilarToDescriptionInput): Promise<SearchResponse> {
    const started = performance.now();
    const { description, ...filters } = input;
    return this.run(started, "description", description, await this.embedQuery(description), "profile", filters);
  }

  async similarCustomers(input: SimilarCustomersInput): Promise<SearchResponse> {
    const started = performance.now();
    const { organization_customer, ...filters } = input;
    return this.run(started, "customers", organization_customer, await this.embedQuery(organization_customer), "customer", filters);
  }

  private async embedQuery(text: string): Promise<Float32Array> {
    await assertSameModel(this.store, this.embedder);
    const [vector] = await this.embedder.embed([text], "query");
    if (!vector) throw new OrgsimError("INTERNAL", "The embedding model returned no vector");
    return vector;
  }

  private async run(
    started: number,
    mode: string,
    query: string | number,
    vector: Float32Array,
    kind: VectorKind,
    input: SearchFilterInput,
  ): Promise<SearchResponse> {
    const { limit, cursor, ...filters } = input;
    const queryFingerprint = fingerprint([mode, query, filters]);
    const offset = cursor ? decodeCursor(cursor, queryFingerprint, isOffset) : 0;
    const size = Math.min(limit, MAX_RESULTS_DEPTH - offset);
    const hits = await this.store.search({
      vector,
      kind,
      filter: toStoreFilter(input),
      // Scores are reported rounded to 6 decimals; a floor equal to a reported score must keep that organization.
      ...(input.min_score !== undefined ? { minScore: input.min_score - 5e-7 } : {}),
      offset,
      // One extra hit tells whether another page exists.
      size: size + 1,
    });
    const page = hits.slice(0, size);
    const nextOffset = offset + page.length;
    const hasMore = hits.length > size && nextOffset < MAX_RESULTS_DEPTH;
    return {
      data: page.map(({ organization, score }, i) => ({
        ...organization,
        similarity: { score: round(score), cosine_distance: round(1 - score), rank: offset + i + 1 },
      })),
      meta: {
        limit,
        next_cursor: hasMore ? encodeCursor(nextOffset, queryFingerprint) : null,
        took_ms: Math.round((performance.now() - started) * 10) / 10,
        backend: this.store.backend,
        model: this.embedder.modelId,
      },
    };
  }
}

/** Scores are reported to 6 decimals: float32 vectors carry no more. */
const round = (value: number) => Math.round(value * 1e6) / 1e6;
