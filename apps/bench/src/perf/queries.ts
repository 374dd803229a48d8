/**
 * The fixed queries of the load and recall runs: varied business descriptions and customer-base
 * descriptions (embedded by the server on every request), the three filter levels, and the
 * search modes with their REST paths.
 */

/** Free-text business descriptions, short and long, across sectors and regions. */
export const DESCRIPTION_QUERIES = [
  "robots for food packaging",
  "industrial IoT sensors for predictive maintenance of factory equipment",
  "payment processing for online marketplaces",
  "B2B software that automates accounts payable and invoice matching for mid-sized companies",
  "gene therapy for rare inherited diseases",
  "electric vehicle charging networks",
  "a mobile bank for freelancers and gig workers with instant payouts",
  "cloud security posture management",
  "organic fertilizer and crop protection products for farmers",
  "commercial real estate investment trust owning office buildings",
  "regional airline operating short-haul passenger flights",
  "semiconductor equipment for wafer inspection",
  "online marketplace for second-hand fashion",
  "telemedicine platform connecting patients with licensed doctors by video",
  "developer tools for testing APIs",
  "lithium mining and battery materials",
  "a large language model assistant for customer support teams",
  "logistics software for trucking companies: route planning, dispatch and load tracking",
  "specialty chemicals for coatings and adhesives",
  "insurance for small businesses sold online",
  "solar panel installation for homeowners",
  "video game studio making mobile puzzle games",
  "dental practice management software",
  "fresh meal kit delivery",
  "cybersecurity training for employees, phishing simulations",
  "steel production and rolled products",
  "bank holding company offering commercial and retail banking services in its home region",
  "applicant tracking system and hiring platform for recruiters",
  "satellite imagery analytics for agriculture and insurance",
  "water utility providing drinking water and wastewater services",
  "construction company building roads and bridges",
  "open-source database with a managed cloud service",
  "pharmaceutical company developing oncology drugs",
  "restaurant point of sale and online ordering",
  "edtech platform teaching coding to kids",
  "wealth management and brokerage app for retail investors",
  "hotel chain and resorts",
  "data labeling and annotation services for machine learning",
  "medical devices for minimally invasive cardiac surgery",
  "gold exploration company with projects in West Africa",
] as const;

/** Who an organization's customers are (the similar-customers mode compares with customer-base vectors). */
export const CUSTOMER_QUERIES = [
  "dental clinics",
  "small e-commerce merchants selling on Shopify",
  "hospitals and health systems",
  "logistics teams at large retailers",
  "software developers",
  "farmers and agricultural cooperatives",
  "banks and credit unions",
  "parents of young children",
  "restaurants and cafes",
  "enterprise security teams",
  "homeowners",
  "property managers and landlords",
  "students and universities",
  "HR departments of mid-sized companies",
  "online sellers and direct-to-consumer brands",
  "manufacturers of industrial equipment",
  "insurance companies",
  "government agencies and cities",
  "freelancers and independent contractors",
  "pharmacies",
  "trucking companies and freight brokers",
  "sales teams at B2B software companies",
  "consumers who want to save money",
  "investors and asset managers",
  "travelers booking hotels",
  "content creators and influencers",
  "construction contractors",
  "law firms",
  "utilities and energy companies",
  "gamers",
] as const;

import { nameWords } from "@orgsim/core";

export type FilterLevel = "none" | "broad" | "restrictive";

/**
 * The filters as REST query parameters. Both use fields the real organizations have (the yc rows
 * carry employee counts and founding years, the equities rows headquarters only), so the share
 * of matches stays about the same at every scale.
 */
export const FILTERS: Record<FilterLevel, Record<string, string>> = {
  none: {},
  // Headquarters in the United States, Canada (and the other Northern America codes).
  broad: { regions: "northern-america" },
  // Headquarters in Europe, at most 50 people, founded 2015 or later.
  restrictive: { regions: "europe", employees_max: "50", founded_year_min: "2015" },
};

export const FILTER_LEVELS: FilterLevel[] = ["none", "broad", "restrictive"];

export type Mode = "organization" | "description" | "customers";
export const MODES: Mode[] = ["organization", "description", "customers"];

export const MODE_LABELS: Record<Mode, string> = {
  organization: "similar to an organization (no embedding)",
  description: "by description (query embedded per request)",
  customers: "by customer base (query embedded per request)",
};

/** The two rankings: hybrid (the product default) and vector alone (what the recall of the approximate kNN is about). */
export type RankingName = "hybrid" | "vector";
export const RANKINGS: RankingName[] = ["hybrid", "vector"];

/**
 * Type-ahead lookups (GET /v1/organizations?name=…) for names of the data: in turn the first three
 * letters of the first word, the whole first word, and the first word with two letters of the next.
 */
export function lookupPaths(names: string[], limit = 10): string[] {
  return names.flatMap((name, i) => {
    const [first, second] = nameWords(name);
    if (!first) return [];
    const typed = i % 3 === 0 ? first.slice(0, 3) : i % 3 === 1 || !second ? first : `${first} ${second.slice(0, 2)}`;
    return [`/v1/organizations?${new URLSearchParams({ name: typed, limit: String(limit) })}`];
  });
}

/** The REST path (with query string) of one search. */
export function searchPath(mode: Mode, query: number | string, filter: FilterLevel, ranking: RankingName, limit = 10): string {
  const params = new URLSearchParams({ limit: String(limit), ranking, ...FILTERS[filter] });
  if (mode === "organization") return `/v1/search/organizations/${query}/similar?${params}`;
  if (mode === "description") return `/v1/search/organizations/similar?description=${encodeURIComponent(String(query))}&${params}`;
  return `/v1/search/organizations/similar-customers?organization_customer=${encodeURIComponent(String(query))}&${params}`;
}
