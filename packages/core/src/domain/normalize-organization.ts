/**
 * Turns a write (OrganizationInput) into the stored Organization: codes
 * normalized and checked (organization-checks.ts), derived fields filled, missing fields null.
 */
import { OrgsimError, type ValidationIssue } from "../errors";
import type { Organization, OrganizationInput, OrganizationWithId, PlaceInput } from "../schemas/organization";
import { countryName, worldRegionOf } from "./geo";
import { derivedMetricsOf, placeCodesOf } from "./organization-checks";

type Place = Organization["location"]["offices"][number];

function normalizePlace(place: PlaceInput, path: (string | number)[], issues: ValidationIssue[]): Place {
  const { countryCode, subdivision } = placeCodesOf(place, path, issues);
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

function normalize(input: OrganizationInput, issues: ValidationIssue[]): Omit<Organization, "id"> {
  const metrics = input.metrics ?? {};
  const derived = derivedMetricsOf(metrics, issues);
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
      employee_range: metrics.employee_range ?? derived.employeeRange,
      founded_on: metrics.founded_on ?? null,
      founded_year: metrics.founded_year ?? derived.foundedYear,
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
