/**
 * Why a search result is there (explain=true): its place in each ranking, the query's words in its
 * text, and the facets it shares with the query's seed organizations. Computed for the page after
 * the ranking, from what the ranking used, so explaining never changes what is ranked.
 */
import type { VectorKind } from "../ports/organization-store";
import type { Explanation, Organization, WORD_FIELDS } from "../schemas/organization";
import { customerTextOf } from "./embedding-text";
import { lexicalTerms } from "./lexical";
import { categoryName } from "./taxonomy";

/** An organization's place in each ranking the search used (null: not among its fused places, or not used). */
export interface RankingPlaces {
  vector: { rank: number; share: number } | null;
  words: { rank: number; share: number } | null;
}

const MAX_MATCHED_WORDS = 10;
const SUMMARY_WORDS = 5;

type WordField = (typeof WORD_FIELDS)[number];

export function explanationOf(
  organization: Organization,
  places: RankingPlaces,
  cosine: number,
  queryTerms: readonly string[],
  kind: VectorKind,
  seeds: readonly Organization[],
): Explanation {
  const matched = matchedWords(organization, queryTerms, kind);
  const shared = seeds.length ? sharedFacets(organization, seeds) : null;
  return { summary: summaryOf(shared, matched, cosine), vector: places.vector, words: places.words, matched_words: matched, shared };
}

/** The query terms in the texts the search compares (the profile's name, description and categories; for customer-base search also the customer text), by field. */
function matchedWords(o: Organization, queryTerms: readonly string[], kind: VectorKind): Explanation["matched_words"] {
  const fields: [WordField, string][] = [
    ["name", o.name],
    ["description", o.description ?? ""],
    ["categories", o.categories.map(categoryName).join(" ")],
    ...(kind === "customer" ? [["customer_text", customerTextOf(o) ?? ""] as [WordField, string]] : []),
  ];
  const termsOf = fields.map(([field, text]) => [field, new Set(lexicalTerms(text))] as const);
  const out: Explanation["matched_words"] = [];
  for (const word of new Set(queryTerms)) {
    const where = termsOf.flatMap(([field, terms]) => (terms.has(word) ? [field] : []));
    if (where.length) out.push({ word, fields: where });
    if (out.length === MAX_MATCHED_WORDS) break;
  }
  return out;
}

type Shared = NonNullable<Explanation["shared"]>;

/** What the organization has in common with at least one seed. */
function sharedFacets(o: Organization, seeds: readonly Organization[]): Shared {
  const hq = o.location.headquarters;
  const common = <T>(value: T | null | undefined, of: (seed: Organization) => T | null | undefined): T | null =>
    value != null && seeds.some((seed) => of(seed) === value) ? value : null;
  const decade = (year: number | null) => (year === null ? null : Math.floor(year / 10) * 10);
  const seedCategories = new Set(seeds.flatMap((seed) => seed.categories));
  return {
    categories: o.categories.filter((slug) => seedCategories.has(slug)),
    hq_country_code: common(hq?.country_code, (s) => s.location.headquarters?.country_code),
    hq_world_region: common(hq?.world_region, (s) => s.location.headquarters?.world_region),
    employee_range: common(o.metrics.employee_range, (s) => s.metrics.employee_range),
    last_round_stage: common(o.metrics.funding?.last_round?.stage, (s) => s.metrics.funding?.last_round?.stage),
    founding_decade: common(decade(o.metrics.founded_year), (s) => decade(s.metrics.founded_year)),
  };
}

/** "shares: Fintech, DE, 11-50; words: payroll, invoices", or the closeness in meaning when nothing else is shared. */
function summaryOf(shared: Shared | null, matched: Explanation["matched_words"], cosine: number): string {
  const parts: string[] = [];
  if (shared) {
    const facets = [
      ...shared.categories.map(categoryName),
      shared.hq_country_code ?? shared.hq_world_region,
      shared.employee_range,
      shared.last_round_stage,
      shared.founding_decade === null ? null : `founded ${shared.founding_decade}s`,
    ].filter((f): f is string => !!f);
    if (facets.length) parts.push(`shares: ${facets.join(", ")}`);
  }
  if (matched.length)
    parts.push(
      `words: ${matched
        .slice(0, SUMMARY_WORDS)
        .map((m) => m.word)
        .join(", ")}`,
    );
  return parts.length ? parts.join("; ") : `close in meaning (cosine ${cosine.toFixed(2)})`;
}
