/** The filter panel's state (as the form holds it: numbers as typed) and the search filters it stands for. */
import type { EmployeeRange, FundingStage } from "@orgsim/core/browser";
import type { SearchFilters } from "../api/types";

export interface FilterForm {
  countries: string[];
  regions: string[];
  hq_only: boolean;
  employee_ranges: EmployeeRange[];
  employees_min: string;
  employees_max: string;
  founded_year_min: string;
  founded_year_max: string;
  categories: string[];
  funding_stages: FundingStage[];
  last_funding_from: string;
  last_funding_to: string;
}

export const EMPTY_FILTERS: FilterForm = {
  countries: [],
  regions: [],
  hq_only: true,
  employee_ranges: [],
  employees_min: "",
  employees_max: "",
  founded_year_min: "",
  founded_year_max: "",
  categories: [],
  funding_stages: [],
  last_funding_from: "",
  last_funding_to: "",
};

const list = <T>(values: T[]) => (values.length > 0 ? values : undefined);
/** A number as typed; what is not a number goes to the server as typed, so its 400 names the field. */
const number = (value: string) => (value.trim() === "" ? undefined : (Number(value) as number));
const text = (value: string) => (value === "" ? undefined : value);

export function toSearchFilters(form: FilterForm): SearchFilters {
  return {
    countries: list(form.countries),
    regions: list(form.regions),
    hq_only: form.hq_only,
    employee_ranges: list(form.employee_ranges),
    employees_min: number(form.employees_min),
    employees_max: number(form.employees_max),
    founded_year_min: number(form.founded_year_min),
    founded_year_max: number(form.founded_year_max),
    categories: list(form.categories),
    funding_stages: list(form.funding_stages),
    last_funding_from: text(form.last_funding_from),
    last_funding_to: text(form.last_funding_to),
  };
}

/** How many filters are set, for the panel's heading. */
export function activeFilterCount(form: FilterForm): number {
  const filters = toSearchFilters(form);
  return Object.entries(filters).filter(([key, value]) => key !== "hq_only" && value !== undefined).length + (form.hq_only ? 0 : 1);
}

/** A slug as words: "series_e_plus" -> "Series E plus", "south-eastern-asia" -> "South eastern asia", "post_ipo" -> "Post IPO". */
export function labelOf(slug: string): string {
  return slug
    .replace(/[-_]+/g, " ")
    .replace(/^\w/, (c) => c.toUpperCase())
    .replace(/\bipo\b/i, "IPO")
    .replace(/\bseries (\w)\b/i, (_m, letter: string) => `Series ${letter.toUpperCase()}`);
}
