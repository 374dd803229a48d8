/** Organizations: what is stored, what a write sends, what a search returns. */
import { z } from "zod";
import { EMPLOYEE_RANGES, FUNDING_STAGES } from "../domain/metrics";
import { isCategorySlug } from "../domain/taxonomy";
import { organizationIssues } from "../domain/normalize-organization";
import { isoDate } from "./params";

const text = (max: number) => z.string().trim().max(max);
const url = () => z.url({ protocol: /^https?$/ }).max(2048);

export const categorySlug = z
  .string()
  .refine(isCategorySlug, { message: "unknown category slug (see GET /v1/categories)" })
  .meta({ description: "Slug of the product-category taxonomy", example: "industrial-automation" });

/** An entry of the product-category taxonomy (GET /categories). */
export const CategorySchema = z.object({ slug: z.string(), name: z.string(), sector: z.string() }).meta({ id: "Category" });
export const CategoryList = z.object({ data: z.array(CategorySchema) }).meta({ id: "CategoryList" });

export const FundingRoundSummary = z
  .object({
    stage: z.enum(FUNDING_STAGES).nullable(),
    announced_on: isoDate().nullable(),
    amount_usd: z.number().nonnegative().nullable(),
  })
  .meta({ id: "FundingRoundSummary" });

export const Funding = z
  .object({
    total_raised_usd: z.number().nonnegative().nullable(),
    rounds_count: z.number().int().nonnegative().nullable(),
    last_round: FundingRoundSummary.nullable(),
  })
  .meta({ id: "Funding" });

export const Metrics = z
  .object({
    employee_count: z.number().int().nonnegative().nullable(),
    employee_range: z.enum(EMPLOYEE_RANGES).nullable(),
    founded_on: isoDate().nullable(),
    founded_year: z.number().int().min(1600).max(2100).nullable(),
    funding: Funding.nullable(),
  })
  .meta({ id: "Metrics" });

export const Place = z
  .object({
    address_line: text(500).nullable(),
    city: text(200).nullable(),
    subdivision_code: z.string().nullable().meta({ description: "ISO 3166-2 code", example: "FR-ARA" }),
    postal_code: text(32).nullable(),
    country_code: z.string().length(2).nullable().meta({ description: "ISO 3166-1 alpha-2", example: "FR" }),
    country: z.string().nullable(),
    world_region: z.string().nullable().meta({ description: "Most specific UN M49 region", example: "western-europe" }),
  })
  .meta({ id: "Place" });

export const Location = z
  .object({ headquarters: Place.nullable(), offices: z.array(Place) })
  .meta({ id: "Location" });

export const Contact = z
  .object({
    website: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    social: z.object({ linkedin: z.string().nullable(), twitter: z.string().nullable(), github: z.string().nullable() }),
  })
  .meta({ id: "Contact" });

/** An organization as stored and returned; fields the data lacks are null. */
export const Organization = z
  .object({
    id: z.number().int().positive(),
    name: z.string(),
    description: z.string().nullable(),
    domain: z.string().nullable(),
    logo_url: z.string().nullable(),
    categories: z.array(z.string()),
    customer_description: z.string().nullable(),
    metrics: Metrics,
    location: Location,
    contact: Contact,
    /** True for the product's generated sample data. */
    fictional: z.boolean(),
  })
  .meta({ id: "Organization" });
export type Organization = z.infer<typeof Organization>;

export const Similarity = z
  .object({
    score: z.number().meta({ description: "Cosine similarity of the query and the organization (-1..1)" }),
    cosine_distance: z.number().meta({ description: "1 - score" }),
    rank: z.number().int().positive(),
  })
  .meta({ id: "Similarity" });

export const OrganizationResult = Organization.extend({ similarity: Similarity }).meta({ id: "OrganizationResult" });
export type OrganizationResult = z.infer<typeof OrganizationResult>;

// ---- writes: everything but the name is optional; derived fields may be left out ----

const PlaceInput = z.strictObject({
  address_line: text(500).nullish(),
  city: text(200).nullish(),
  subdivision_code: z.string().trim().nullish().meta({ description: "ISO 3166-2 code, e.g. US-CA" }),
  postal_code: text(32).nullish(),
  country_code: z.string().trim().nullish().meta({ description: "ISO 3166-1 alpha-2 or alpha-3 (normalized to alpha-2)" }),
});
export type PlaceInput = z.infer<typeof PlaceInput>;

const FundingRoundSummaryInput = z.strictObject({
  stage: z.enum(FUNDING_STAGES).nullish(),
  announced_on: isoDate().nullish(),
  amount_usd: z.number().nonnegative().nullish(),
});

export const OrganizationInput = z
  .strictObject({
    name: text(200).min(1),
    description: text(20_000).nullish(),
    domain: text(253).nullish(),
    logo_url: url().nullish(),
    categories: z.array(categorySlug).max(20).optional(),
    customer_description: text(5_000).nullish(),
    metrics: z
      .strictObject({
        employee_count: z.number().int().nonnegative().nullish(),
        employee_range: z.enum(EMPLOYEE_RANGES).nullish().meta({ description: "Derived from employee_count when omitted" }),
        founded_on: isoDate().nullish(),
        founded_year: z.number().int().min(1600).max(2100).nullish().meta({ description: "Derived from founded_on when omitted" }),
        funding: z
          .strictObject({
            total_raised_usd: z.number().nonnegative().nullish(),
            rounds_count: z.number().int().nonnegative().nullish(),
            last_round: FundingRoundSummaryInput.nullish(),
          })
          .nullish(),
      })
      .optional(),
    location: z.strictObject({ headquarters: PlaceInput.nullish(), offices: z.array(PlaceInput).max(500).optional() }).optional(),
    contact: z
      .strictObject({
        website: text(2048).nullish(),
        email: text(320).nullish(),
        phone: text(64).nullish(),
        social: z.strictObject({ linkedin: text(2048).nullish(), twitter: text(2048).nullish(), github: text(2048).nullish() }).optional(),
      })
      .optional(),
    fictional: z.boolean().optional(),
  })
  // Codes and cross-field contradictions are checked here too, so one parse reports every problem.
  .superRefine((organization, ctx) => {
    for (const issue of organizationIssues(organization)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message, input: organization });
  })
  .meta({ id: "OrganizationInput" });
export type OrganizationInput = z.infer<typeof OrganizationInput>;

export const OrganizationWithId = OrganizationInput.extend({ id: z.number().int().positive() }).meta({ id: "OrganizationWithId" });
export type OrganizationWithId = z.infer<typeof OrganizationWithId>;
