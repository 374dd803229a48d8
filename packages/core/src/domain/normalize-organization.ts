/**
 * Turns a write (OrganizationInput) into the stored Organization: codes
 * normalized and checked, derived fields filled, missing fields null.
 */
import { OrgsimError, type ValidationIssue } from "../errors";
import type { Organization, OrganizationInput, OrganizationWithId, PlaceInput } from "../schemas/organization";
import { countryName, isSubdivisionCode, normalizeCountry, worldRegionOf } from "./geo";
import { employeeRangeOf } from "./metrics";

type Place = Organization["location"]["offices"][number];

function normalizePlace(place: PlaceInput, path: (string | number)[], issues: ValidationIssue[]): Place {
  let countryCode: string | null = null;
  if (place.country_code) {
    countryCode = normalizeCountry(place.country_code);
    if (!countryCode) issues.push({ path: [...path, "country_code"], message: `unknown country code "${place.country_code}"` });
  }
  let subdivision = place.subdivision_code?.toUpperCase() ?? null;
  if (subdivision) {
    if (!isSubdivisionCode(subdivision)) {
      issues.push({ path: [...path, "subdivision_code"], message: `unknown ISO 3166-2 subdivision code "${place.subdivision_code}"` });
      subdivision = null;
    } else if (countryCode && !subdivision.startsWith(`${countryCode}-`)) {
      issues.push({ path: [...path, "subdivision_code"], message: `subdivision ${subdivision} is not in country ${countryCode}` });
    } else if (!countryCode) {
      countryCode = subdivision.slice(0, 2);
    }
  }
  return {
    address_line: place.address_line ?? null,
    city: place.city ?? null,
    subdivision_code: subdivision,
    postal_code: place.postal_code ?? null,
    country_code: countryCode,
    country: countryCode ? countryName(countryCode) : null,
    world_region: countryCode ? worldRegionOf(countryCode) : null,
  };
}

export function normalizeOrganization(input: OrganizationWithId): Organization {
  const issues: ValidationIssue[] = [];
  const organization = { id: input.id, ...normalize(input, issues) };
  if (issues.length > 0) throw OrgsimError.validation(issues);
  return organization;
}

/** What normalizing would refuse (unknown codes, contradictions); the input schema reports these too. */
export function organizationIssues(input: OrganizationInput): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  normalize(input, issues);
  return issues;
}

function normalize(input: OrganizationInput, issues: ValidationIssue[]): Omit<Organization, "id"> {
  const metrics = input.metrics ?? {};
  const foundedYearFromDate = metrics.founded_on ? Number(metrics.founded_on.slice(0, 4)) : null;
  if (metrics.founded_year != null && foundedYearFromDate != null && metrics.founded_year !== foundedYearFromDate) {
    issues.push({ path: ["metrics", "founded_year"], message: `founded_year ${metrics.founded_year} contradicts founded_on ${metrics.founded_on}` });
  }
  const derivedRange = metrics.employee_count != null ? employeeRangeOf(metrics.employee_count) : null;
  if (metrics.employee_range && derivedRange && metrics.employee_range !== derivedRange) {
    issues.push({ path: ["metrics", "employee_range"], message: `employee_range ${metrics.employee_range} contradicts employee_count ${metrics.employee_count}` });
  }
  const funding = metrics.funding;
  const headquarters = input.location?.headquarters ? normalizePlace(input.location.headquarters, ["location", "headquarters"], issues) : null;
  const offices = (input.location?.offices ?? []).map((office, i) => normalizePlace(office, ["location", "offices", i], issues));
  const social = input.contact?.social;
  return {
    name: input.name,
    description: input.description ?? null,
    domain: input.domain?.toLowerCase() ?? null,
    logo_url: input.logo_url ?? null,
    categories: [...new Set(input.categories ?? [])],
    customer_description: input.customer_description ?? null,
    metrics: {
      employee_count: metrics.employee_count ?? null,
      employee_range: metrics.employee_range ?? derivedRange,
      founded_on: metrics.founded_on ?? null,
      founded_year: metrics.founded_year ?? foundedYearFromDate,
      funding: funding
        ? {
            total_raised_usd: funding.total_raised_usd ?? null,
            rounds_count: funding.rounds_count ?? null,
            last_round: funding.last_round
              ? {
                  stage: funding.last_round.stage ?? null,
                  announced_on: funding.last_round.announced_on ?? null,
                  amount_usd: funding.last_round.amount_usd ?? null,
                }
              : null,
          }
        : null,
    },
    location: { headquarters, offices },
    contact: {
      website: input.contact?.website ?? null,
      email: input.contact?.email ?? null,
      phone: input.contact?.phone ?? null,
      social: { linkedin: social?.linkedin ?? null, twitter: social?.twitter ?? null, github: social?.github ?? null },
    },
    fictional: input.fictional ?? false,
  };
}
