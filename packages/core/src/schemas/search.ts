/** Search inputs (filters, paging) and the search response. */
import { z } from "zod";
import { isRegionSlug, isSubdivisionCode, normalizeCountry } from "../domain/geo";
import { domainKey } from "../domain/lookup-keys";
import { EMPLOYEE_RANGES, FUNDING_STAGES } from "../domain/metrics";
import { CollectionId } from "./collections";
import { categorySlug, MAX_COUNT, OrganizationResult } from "./organization";
import { boolParam, intParam, isoDate, listParam, numberParam, organizationId } from "./params";

export const MAX_RESULTS_DEPTH = 1000;

/**
 * How results are ordered. `hybrid` (the default, measured best in docs/benchmarks.md): the
 * reciprocal rank fusion of the vector ranking and a BM25 word ranking of the same texts, each
 * filtered the same way. `vector`: by `similarity.score` alone.
 */
export const RANKINGS = ["hybrid", "vector"] as const;
export type Ranking = (typeof RANKINGS)[number];

const countryCode = z
  .string()
  .transform((value, ctx) => {
    const code = normalizeCountry(value);
    if (!code) {
      ctx.addIssue({ code: "custom", message: `unknown country code "${value}" (ISO 3166-1 alpha-2 or alpha-3)`, input: value });
      return z.NEVER;
    }
    return code;
  })
  .meta({ description: "ISO 3166-1 alpha-2 (alpha-3 accepted)", example: "FR" });

const regionCode = z
  .string()
  .transform((value, ctx) => {
    if (isRegionSlug(value.toLowerCase())) return value.toLowerCase();
    if (isSubdivisionCode(value)) return value.toUpperCase();
    ctx.addIssue({
      code: "custom",
      message: `unknown region "${value}" (UN M49 region slug such as "europe" or ISO 3166-2 code such as "US-CA")`,
      input: value,
    });
    return z.NEVER;
  })
  .meta({ description: "UN M49 region or sub-region slug, or ISO 3166-2 subdivision code", example: "western-europe" });

const year = () => intParam(z.number().int().min(1600).max(2100));

/** How many collections one search may leave out the organizations of. */
export const MAX_EXCLUDED_COLLECTIONS = 20;

/** The standard filters and paging every search takes. */
export const searchFilterShape = {
  countries: listParam(countryCode).optional().meta({ description: "Headquarters (or any office, with hq_only=false) in one of these countries" }),
  regions: listParam(regionCode).optional().meta({ description: "UN M49 region slugs or ISO 3166-2 subdivision codes; alternatives to `countries`" }),
  employee_ranges: listParam(z.enum(EMPLOYEE_RANGES)).optional(),
  // Bounded as stored counts are (MAX_COUNT): a backend compares them with its own integer type.
  employees_min: intParam(z.number().int().nonnegative().max(MAX_COUNT)).optional(),
  employees_max: intParam(z.number().int().nonnegative().max(MAX_COUNT)).optional(),
  founded_year_min: year().optional(),
  founded_year_max: year().optional(),
  categories: listParam(categorySlug).optional().meta({ description: "Any of these category slugs (GET /v1/categories)" }),
  funding_stages: listParam(z.enum(FUNDING_STAGES)).optional().meta({ description: "Stage of the latest funding round" }),
  last_funding_from: isoDate().optional().meta({ description: "Latest round announced on or after this date" }),
  last_funding_to: isoDate().optional().meta({ description: "Latest round announced on or before this date" }),
  hq_only: boolParam().default(true).meta({ description: "true: location filters look at the headquarters only; false: at any office" }),
  exclude_ids: listParam(organizationId()).optional().meta({ description: "Organization ids to leave out" }),
  exclude_collection_ids: listParam(CollectionId, MAX_EXCLUDED_COLLECTIONS)
    .optional()
    .meta({
      description: `Up to ${MAX_EXCLUDED_COLLECTIONS} collections of yours (col_…): the organizations they hold are left out, so what you saved is not shown again`,
    }),
  min_similarity: numberParam(z.number().min(-1).max(1)).optional().meta({ description: "Floor on similarity.cosine_similarity" }),
  min_score: numberParam(z.number().min(-1).max(1))
    .optional()
    .meta({ deprecated: true, description: "Deprecated alias of min_similarity (a floor on similarity.cosine_similarity), for one version" }),
  ranking: z
    .enum(RANKINGS)
    .default("hybrid")
    .meta({
      description:
        "hybrid (default): vector similarity fused with word matching (BM25) by reciprocal rank fusion; vector: cosine similarity alone. " +
        "Either way results come in similarity.score order, descending, ties by id",
    }),
  explain: boolParam().default(false).meta({
    description:
      "true: each result carries similarity.explanation (its place in each ranking, matched words, facets shared with the seeds); the ranking is the same",
  }),
  limit: intParam(z.number().int().min(1).max(100)).default(10),
  cursor: z.string().max(2000).optional().meta({ description: "next_cursor of the previous page" }),
};

type FilterFields = {
  employees_min?: number;
  employees_max?: number;
  founded_year_min?: number;
  founded_year_max?: number;
  last_funding_from?: string;
  last_funding_to?: string;
  min_similarity?: number;
  min_score?: number;
};

/** min > max is an impossible range: a 400 naming the parameter. So is a floor given twice, under its name and its deprecated alias. */
function checkRanges(value: FilterFields, ctx: z.RefinementCtx) {
  if (value.min_similarity !== undefined && value.min_score !== undefined) {
    ctx.addIssue({ code: "custom", path: ["min_score"], message: "give min_similarity only: min_score is its deprecated alias", input: value.min_score });
  }
  const pairs: [keyof FilterFields, keyof FilterFields][] = [
    ["employees_min", "employees_max"],
    ["founded_year_min", "founded_year_max"],
    ["last_funding_from", "last_funding_to"],
  ];
  for (const [min, max] of pairs) {
    const low = value[min];
    const high = value[max];
    if (low !== undefined && high !== undefined && low > high) {
      ctx.addIssue({ code: "custom", path: [min], message: `${min} (${low}) is greater than ${max} (${high})`, input: low });
    }
  }
}

const text = z.string().trim().min(3).max(2000);

export const SimilarToOrganizationInput = z.strictObject({ organization_id: organizationId(), ...searchFilterShape }).superRefine(checkRanges);
export const SimilarToDescriptionInput = z
  .strictObject({ description: text.meta({ description: "What the organizations do, in plain words" }), ...searchFilterShape })
  .superRefine(checkRanges);
export const SimilarCustomersInput = z
  .strictObject({
    organization_customer: text.meta({ description: "Who the customers are, in plain words" }),
    ...searchFilterShape,
  })
  .superRefine(checkRanges);

/** How many seeds of each kind (`like`, `unlike`) one search takes. */
export const MAX_SEEDS = 20;

/** An example to resemble (`like`) or not (`unlike`): a stored organization by id or domain, or a description. */
export const Seed = z
  .union([
    z.strictObject({ organization_id: organizationId() }),
    z.strictObject({
      domain: z
        .string()
        .max(2048)
        .refine((domain) => domainKey(domain) !== null, { message: "domain must name a host, such as stripe.com" })
        .meta({ description: "The domain or website of a stored organization (scheme, www. and path ignored)", example: "stripe.com" }),
    }),
    z.strictObject({ description: text.meta({ description: "What such an organization does, in plain words" }) }),
  ])
  .meta({ id: "Seed", description: "One of organization_id, domain or description" });
export type Seed = z.output<typeof Seed>;

export const SimilarToSeedsInput = z
  .strictObject({
    like: z
      .array(Seed)
      .min(1)
      .max(MAX_SEEDS)
      .meta({ description: `1–${MAX_SEEDS} examples the results should resemble` }),
    unlike: z
      .array(Seed)
      .max(MAX_SEEDS)
      .default([])
      .meta({ description: `0–${MAX_SEEDS} counter-examples the results should not resemble` }),
    ...searchFilterShape,
  })
  .superRefine(checkRanges);

export type SimilarToOrganizationInput = z.output<typeof SimilarToOrganizationInput>;
export type SimilarToSeedsInput = z.output<typeof SimilarToSeedsInput>;
export type SimilarToDescriptionInput = z.output<typeof SimilarToDescriptionInput>;
export type SimilarCustomersInput = z.output<typeof SimilarCustomersInput>;
export type SearchFilterInput = Omit<SimilarToDescriptionInput, "description">;

export const SearchResponse = z
  .object({
    data: z.array(OrganizationResult),
    meta: z.object({
      limit: z.number().int(),
      next_cursor: z.string().nullable(),
      took_ms: z.number(),
      backend: z.string().meta({ description: "The storage backend that answered, by its own name" }),
      model: z.string(),
      ranking: z.enum(RANKINGS),
    }),
  })
  .meta({ id: "SearchResponse" });
export type SearchResponse = z.infer<typeof SearchResponse>;

/** A seed that named no stored organization, and why: the search ran without it. */
export const MissingSeed = z.object({ list: z.enum(["like", "unlike"]), index: z.number().int(), seed: Seed, reason: z.string() });
export type MissingSeed = z.infer<typeof MissingSeed>;

export const SeedSearchResponse = SearchResponse.extend({
  meta: SearchResponse.shape.meta.extend({
    missing_seeds: z.array(MissingSeed).meta({ description: "Seeds that name no stored organization: the search used the others" }),
  }),
}).meta({ id: "SeedSearchResponse" });
export type SeedSearchResponse = z.infer<typeof SeedSearchResponse>;
