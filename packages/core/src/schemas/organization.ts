/** Organizations: what is stored, what a write sends, what a search returns. */
import { z } from "zod";
import { EMPLOYEE_RANGES, FUNDING_STAGES } from "../domain/metrics";
import { isCategorySlug } from "../domain/taxonomy";
import { organizationIssues } from "../domain/organization-checks";
import { isoDate, organizationId } from "./params";

const text = (max: number) => z.string().trim().max(max);
const url = () => z.url({ protocol: /^https?$/ }).max(2048);

export const categorySlug = z
  .string()
  .refine(isCategorySlug, { message: "unknown category slug (see GET /v1/categories)" })
  .meta({ description: "Slug of the product-category taxonomy", example: "industrial-automation" });

/** An entry of the product-category taxonomy (GET /categories). */
export const CategorySchema = z.object({ slug: z.string(), name: z.string(), sector: z.string() }).meta({ id: "Category" });
export const CategoryList = z.object({ data: z.array(CategorySchema) }).meta({ id: "CategoryList" });

/**
 * Bounds every backend can store (Elasticsearch maps id as long, employee_count as integer and
 * founded_year as short; ids also travel as JSON numbers, so they stay safe integers). Writes and
 * reads use the same field schemas below, so whatever a write stores, a read accepts.
 */
export const MAX_ORGANIZATION_ID = Number.MAX_SAFE_INTEGER;
export const MAX_COUNT = 2_147_483_647;
export const MAX_AMOUNT_USD = Number.MAX_SAFE_INTEGER;
export const FOUNDED_YEAR = { min: 1600, max: 2100 } as const;

const organizationIdField = () => z.number().int().positive().max(MAX_ORGANIZATION_ID);
const count = () => z.number().int().nonnegative().max(MAX_COUNT);
const amountUsd = () => z.number().nonnegative().max(MAX_AMOUNT_USD);
const foundedYear = () => z.number().int().min(FOUNDED_YEAR.min).max(FOUNDED_YEAR.max);
const foundedOn = () =>
  isoDate()
    .refine((date) => Number(date.slice(0, 4)) >= FOUNDED_YEAR.min && Number(date.slice(0, 4)) <= FOUNDED_YEAR.max, {
      message: `founded_on must be in the years ${FOUNDED_YEAR.min}..${FOUNDED_YEAR.max}`,
    })
    .meta({ description: `ISO 8601 date, YYYY-MM-DD, in the years ${FOUNDED_YEAR.min}..${FOUNDED_YEAR.max}`, example: "2015-03-01" });

/** The fields shared by writes and reads (a write makes each nullish, a read nullable). */
const field = {
  name: () => text(200).min(1),
  description: () => text(20_000),
  domain: () => text(253),
  logo_url: url,
  categories: () => z.array(categorySlug).max(20),
  customer_description: () => text(5_000),
  address_line: () => text(500),
  city: () => text(200),
  postal_code: () => text(32),
  website: () => text(2048),
  email: () => text(320),
  phone: () => text(64),
  social: () => text(2048),
};

export const FundingRoundSummary = z
  .object({
    stage: z.enum(FUNDING_STAGES).nullable(),
    announced_on: isoDate().nullable(),
    amount_usd: amountUsd().nullable(),
  })
  .meta({ id: "FundingRoundSummary" });

export const Funding = z
  .object({
    total_raised_usd: amountUsd().nullable(),
    rounds_count: count().nullable(),
    last_round: FundingRoundSummary.nullable(),
  })
  .meta({ id: "Funding" });

export const Metrics = z
  .object({
    employee_count: count().nullable(),
    employee_range: z.enum(EMPLOYEE_RANGES).nullable(),
    founded_on: foundedOn().nullable(),
    founded_year: foundedYear().nullable(),
    funding: Funding.nullable(),
  })
  .meta({ id: "Metrics" });

export const Place = z
  .object({
    address_line: field.address_line().nullable(),
    city: field.city().nullable(),
    subdivision_code: z.string().nullable().meta({ description: "ISO 3166-2 code", example: "FR-ARA" }),
    postal_code: field.postal_code().nullable(),
    country_code: z.string().length(2).nullable().meta({ description: "ISO 3166-1 alpha-2", example: "FR" }),
    country: z.string().nullable(),
    world_region: z.string().nullable().meta({ description: "Most specific UN M49 region", example: "western-europe" }),
  })
  .meta({ id: "Place" });

export const Location = z.object({ headquarters: Place.nullable(), offices: z.array(Place).max(500) }).meta({ id: "Location" });

export const Contact = z
  .object({
    website: field.website().nullable(),
    email: field.email().nullable(),
    phone: field.phone().nullable(),
    social: z.object({ linkedin: field.social().nullable(), twitter: field.social().nullable(), github: field.social().nullable() }),
  })
  .meta({ id: "Contact" });

/** An organization as stored and returned; fields the data lacks are null. */
export const Organization = z
  .object({
    id: organizationIdField(),
    name: field.name(),
    description: field.description().nullable(),
    domain: field.domain().nullable(),
    logo_url: field.logo_url().nullable(),
    categories: field.categories(),
    customer_description: field.customer_description().nullable(),
    metrics: Metrics,
    location: Location,
    contact: Contact,
    /** True for the product's generated sample data. */
    fictional: z.boolean(),
  })
  .meta({ id: "Organization" });
export type Organization = z.infer<typeof Organization>;

/** Where an organization stands in one of the fused rankings. */
const RankingPlace = z.object({
  rank: z.number().int().positive().meta({ description: "Its place in this ranking, from 1" }),
  share: z.number().meta({ description: "This ranking's part of similarity.score (the parts add up to it)" }),
});

/** Where the query's words appear in an organization's text. */
export const WORD_FIELDS = ["name", "description", "categories", "customer_text"] as const;

export const Explanation = z
  .object({
    summary: z
      .string()
      .meta({ description: 'A short reason, e.g. "shares: Fintech, DE, 11-50; words: payroll, invoices"', example: "shares: Fintech, DE; words: payroll" }),
    vector: RankingPlace.nullable().meta({
      description:
        "Its place in the vector ranking (by cosine similarity; in hybrid customer-base search, by its customer-base similarity, past place 100 by its customer vector); null when hybrid ranking took it from the word ranking alone (not among the vector ranking's first 100)",
    }),
    words: RankingPlace.nullable().meta({ description: "Its place in the word ranking (BM25); null when not among its first 100, or with ranking=vector" }),
    matched_words: z
      .array(z.object({ word: z.string(), fields: z.array(z.enum(WORD_FIELDS)) }))
      .meta({ description: "Query words found in the text the search compares, and in which fields (at most 10)" }),
    shared: z
      .object({
        categories: z.array(z.string()),
        hq_country_code: z.string().nullable(),
        hq_world_region: z.string().nullable(),
        employee_range: z.enum(EMPLOYEE_RANGES).nullable(),
        last_round_stage: z.enum(FUNDING_STAGES).nullable(),
        founding_decade: z.number().int().nullable().meta({ description: "e.g. 2010 for 2010–2019" }),
      })
      .nullable()
      .meta({ description: "Facets it shares with the query's seed organizations (any of them); null when the query has none" }),
  })
  .meta({ id: "Explanation" });
export type Explanation = z.infer<typeof Explanation>;

export const Similarity = z
  .object({
    score: z.number().meta({
      description:
        "The relevance that orders the results (descending, ties by id): with ranking=vector the cosine similarity; " +
        "with ranking=hybrid the fused relevance scaled to 0..1 (1 = first in every fused ranking)",
    }),
    cosine_similarity: z.number().meta({
      description:
        "Cosine similarity of the query vector and the organization's vector (-1..1), in every ranking: its profile vector, or in customer-base search its customer vector",
    }),
    cosine_distance: z.number().meta({ description: "1 - cosine_similarity" }),
    rank: z.number().int().positive(),
    explanation: Explanation.optional().meta({ description: "Why it is there: only with explain=true" }),
  })
  .meta({ id: "Similarity" });

export const OrganizationResult = Organization.extend({ similarity: Similarity }).meta({ id: "OrganizationResult" });
export type OrganizationResult = z.infer<typeof OrganizationResult>;

// ---- writes: everything but the name is optional; derived fields may be left out ----

/** Derived from country_code: a write may send them (as a read returns them); they are recomputed. */
const derivedPlaceField = (what: string) =>
  z
    .string()
    .nullish()
    .meta({ description: `Derived from country_code; ignored on writes (${what})` });

const PlaceInput = z.strictObject({
  address_line: field.address_line().nullish(),
  city: field.city().nullish(),
  subdivision_code: z.string().trim().nullish().meta({ description: "ISO 3166-2 code, e.g. US-CA" }),
  postal_code: field.postal_code().nullish(),
  country_code: z.string().trim().nullish().meta({ description: "ISO 3166-1 alpha-2 or alpha-3 (normalized to alpha-2)" }),
  country: derivedPlaceField("the country's name"),
  world_region: derivedPlaceField("its UN M49 region"),
});
export type PlaceInput = z.infer<typeof PlaceInput>;

const FundingRoundSummaryInput = z.strictObject({
  stage: z.enum(FUNDING_STAGES).nullish(),
  announced_on: isoDate().nullish(),
  amount_usd: amountUsd().nullish(),
});

/** Shown in OpenAPI on every write. */
const ROUND_TRIP =
  "A write accepts what a read returns: derived fields may be sent (employee_range and founded_year must agree with employee_count and founded_on; a place's country and world_region are ignored and recomputed from country_code).";

export const OrganizationInput = z
  .strictObject({
    name: field.name(),
    description: field.description().nullish(),
    domain: field.domain().nullish(),
    logo_url: field.logo_url().nullish(),
    categories: field.categories().optional(),
    customer_description: field.customer_description().nullish(),
    metrics: z
      .strictObject({
        employee_count: count().nullish(),
        employee_range: z.enum(EMPLOYEE_RANGES).nullish().meta({ description: "Derived from employee_count when omitted; must agree with it" }),
        founded_on: foundedOn().nullish(),
        founded_year: foundedYear().nullish().meta({ description: "Derived from founded_on when omitted; must agree with it" }),
        funding: z
          .strictObject({
            total_raised_usd: amountUsd().nullish(),
            rounds_count: count().nullish(),
            last_round: FundingRoundSummaryInput.nullish(),
          })
          .nullish(),
      })
      .optional(),
    location: z.strictObject({ headquarters: PlaceInput.nullish(), offices: z.array(PlaceInput).max(500).optional() }).optional(),
    contact: z
      .strictObject({
        website: field.website().nullish(),
        email: field.email().nullish(),
        phone: field.phone().nullish(),
        social: z.strictObject({ linkedin: field.social().nullish(), twitter: field.social().nullish(), github: field.social().nullish() }).optional(),
      })
      .optional(),
    fictional: z.boolean().optional(),
  })
  // Codes and cross-field contradictions are checked here too, so one parse reports every problem.
  .superRefine((organization, ctx) => {
    for (const issue of organizationIssues(organization)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message, input: organization });
  })
  .meta({ id: "OrganizationInput", description: ROUND_TRIP });
export type OrganizationInput = z.infer<typeof OrganizationInput>;

export const OrganizationWithId = OrganizationInput.safeExtend({ id: organizationIdField() }).meta({ id: "OrganizationWithId", description: ROUND_TRIP });
export type OrganizationWithId = z.infer<typeof OrganizationWithId>;

/** PUT /organizations/{organization_id}: the body may repeat the id a read returns, which must then be the path's. */
export const OrganizationReplaceInput = OrganizationInput.safeExtend({
  organization_id: organizationId(),
  id: organizationIdField().optional().meta({ description: "Optional; when sent it must equal organization_id" }),
})
  .superRefine((input, ctx) => {
    if (input.id !== undefined && input.id !== input.organization_id) {
      ctx.addIssue({
        code: "custom",
        path: ["id"],
        message: `id ${input.id} is not the organization_id ${input.organization_id} of the path`,
        input: input.id,
      });
    }
  })
  .meta({ description: ROUND_TRIP });
