/** Synthetic organizations and random unit vectors, seeded so runs repeat. */
import { CATEGORIES, EMPLOYEE_RANGES, employeeRangeOf, FUNDING_STAGES, type FundingStage, type Organization, type OrganizationRecord } from "@orgsim/core";
import { seededRandom } from "@orgsim/sample-data";

/** The repository's seeded generator, under the name the adapter tests use. */
export const rng = seededRandom;

export function unitVector(dimension: number, random: () => number): Float32Array {
  const v = new Float32Array(dimension);
  let norm = 0;
  for (let i = 0; i < dimension; i++) {
    // Box-Muller: gaussian components give directions uniform on the sphere.
    const g = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    v[i] = g;
    norm += g * g;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dimension; i++) v[i] = (v[i] as number) / norm;
  return v;
}

type Place = Organization["location"]["offices"][number];
export const place = (country_code: string | null, subdivision_code: string | null = null): Place => ({
  address_line: null,
  city: null,
  subdivision_code,
  postal_code: null,
  country_code,
  country: null,
  world_region: null,
});

export interface OrgParts {
  hq?: Place | null;
  offices?: Place[];
  employees?: number | null;
  range?: Organization["metrics"]["employee_range"];
  founded?: number | null;
  categories?: string[];
  stage?: FundingStage | null;
  roundOn?: string | null;
  customer?: string | null;
}

export function organization(id: number, parts: OrgParts = {}): Organization {
  const employees = parts.employees ?? null;
  const hasRound = parts.stage !== undefined || parts.roundOn !== undefined;
  return {
    id,
    name: `Org ${id}`,
    description: `Synthetic organization ${id}`,
    domain: `org${id}.example`,
    logo_url: null,
    categories: parts.categories ?? [],
    customer_description: parts.customer ?? null,
    metrics: {
      employee_count: employees,
      employee_range: parts.range !== undefined ? parts.range : employees === null ? null : employeeRangeOf(employees),
      founded_on: null,
      founded_year: parts.founded ?? null,
      funding: hasRound
        ? { total_raised_usd: null, rounds_count: 1, last_round: { stage: parts.stage ?? null, announced_on: parts.roundOn ?? null, amount_usd: null } }
        : null,
    },
    location: { headquarters: parts.hq === undefined ? place("US", "US-CA") : parts.hq, offices: parts.offices ?? [] },
    contact: { website: null, email: null, phone: null, social: { linkedin: null, twitter: null, github: null } },
    fictional: true,
  };
}

const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
const COUNTRIES: [string, string[]][] = [
  ["US", ["US-CA", "US-NY", "US-TX"]],
  ["FR", ["FR-IDF", "FR-ARA"]],
  ["DE", ["DE-BE", "DE-BY"]],
  ["JP", ["JP-13"]],
  ["BR", ["BR-SP"]],
];
const randomPlace = (random: () => number): Place => {
  const [country, subdivisions] = pick(random, COUNTRIES);
  return place(country, random() < 0.7 ? pick(random, subdivisions) : null);
};

/** Organizations with attributes drawn from small domains (so every filter matches a real subset), some nulls. */
export function randomOrganization(id: number, random: () => number): Organization {
  const employees = random() < 0.15 ? null : Math.floor(random() ** 3 * 20_000) + 1;
  const hasRound = random() < 0.8;
  return organization(id, {
    hq: random() < 0.05 ? null : randomPlace(random),
    offices: Array.from({ length: Math.floor(random() * 3) }, () => randomPlace(random)),
    employees,
    range: employees === null && random() < 0.5 ? pick(random, EMPLOYEE_RANGES) : undefined,
    founded: random() < 0.1 ? null : 1950 + Math.floor(random() * 75),
    categories: Array.from({ length: Math.floor(random() * 3) }, () => pick(random, CATEGORIES).slug),
    ...(hasRound
      ? {
          stage: random() < 0.1 ? null : pick(random, FUNDING_STAGES),
          roundOn:
            random() < 0.1
              ? null
              : `${2010 + Math.floor(random() * 15)}-${String(1 + Math.floor(random() * 12)).padStart(2, "0")}-${String(1 + Math.floor(random() * 28)).padStart(2, "0")}`,
        }
      : {}),
    customer: random() < 0.7 ? "Some customers" : null,
  });
}

export function randomRecords(count: number, dimension: number, seed: number, firstId = 1): OrganizationRecord[] {
  const random = rng(seed);
  return Array.from({ length: count }, (_, i) => {
    const organization = randomOrganization(firstId + i, random);
    return {
      organization,
      profileVector: unitVector(dimension, random),
      customerVector: organization.customer_description ? unitVector(dimension, random) : null,
    };
  });
}
