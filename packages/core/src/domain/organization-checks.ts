/**
 * What a write must satisfy beyond its shape: known country and subdivision codes, and derived
 * fields that agree with what they derive from. Written over plain types so that the input schema
 * (its refinement) and the normalization both use it, and neither imports the other.
 */
import type { ValidationIssue } from "../errors";
import { isSubdivisionCode, normalizeCountry } from "./geo";
import { type EmployeeRange, employeeRangeOf } from "./metrics";

/** The codes a written place may carry. */
export interface PlaceCodes {
  country_code?: string | null;
  subdivision_code?: string | null;
}

/** The metrics a write may send whose derived fields must agree. */
export interface MetricFacts {
  employee_count?: number | null;
  employee_range?: EmployeeRange | null;
  founded_on?: string | null;
  founded_year?: number | null;
}

/** The parts of an organization write that these checks read. */
export interface CheckedOrganization {
  metrics?: MetricFacts | null;
  location?: { headquarters?: PlaceCodes | null; offices?: PlaceCodes[] | null } | null;
}

type Path = (string | number)[];

/** A place's codes, normalized (alpha-2 country, upper-case subdivision); what is wrong goes to `issues`. */
export function placeCodesOf(place: PlaceCodes, path: Path, issues: ValidationIssue[]): { countryCode: string | null; subdivision: string | null } {
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
  return { countryCode, subdivision };
}

/** The employee range and founding year the other metrics imply; a contradiction goes to `issues`. */
export function derivedMetricsOf(metrics: MetricFacts, issues: ValidationIssue[]): { employeeRange: EmployeeRange | null; foundedYear: number | null } {
  const foundedYear = metrics.founded_on ? Number(metrics.founded_on.slice(0, 4)) : null;
  if (metrics.founded_year != null && foundedYear != null && metrics.founded_year !== foundedYear) {
    issues.push({ path: ["metrics", "founded_year"], message: `founded_year ${metrics.founded_year} contradicts founded_on ${metrics.founded_on}` });
  }
  const employeeRange = metrics.employee_count != null ? employeeRangeOf(metrics.employee_count) : null;
  if (metrics.employee_range && employeeRange && metrics.employee_range !== employeeRange) {
    issues.push({
      path: ["metrics", "employee_range"],
      message: `employee_range ${metrics.employee_range} contradicts employee_count ${metrics.employee_count}`,
    });
  }
  return { employeeRange, foundedYear };
}

/** What normalizing would refuse (unknown codes, contradictions); the input schema reports these too. */
export function organizationIssues(input: CheckedOrganization): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  derivedMetricsOf(input.metrics ?? {}, issues);
  if (input.location?.headquarters) placeCodesOf(input.location.headquarters, ["location", "headquarters"], issues);
  for (const [i, office] of (input.location?.offices ?? []).entries()) placeCodesOf(office, ["location", "offices", i], issues);
  return issues;
}
