/** Company-size buckets, funding stages and the derivations between raw numbers and them. */

export const EMPLOYEE_RANGES = ["1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001-10000", "10001+"] as const;
export type EmployeeRange = (typeof EMPLOYEE_RANGES)[number];

const RANGE_UPPER_BOUNDS = [10, 50, 200, 500, 1000, 5000, 10000, Number.POSITIVE_INFINITY];

export function employeeRangeOf(count: number): EmployeeRange {
  const index = RANGE_UPPER_BOUNDS.findIndex((upper) => count <= upper);
  return EMPLOYEE_RANGES[index] ?? "10001+";
}

export const FUNDING_STAGES = [
  "pre_seed",
  "seed",
  "series_a",
  "series_b",
  "series_c",
  "series_d",
  "series_e_plus",
  "growth",
  "private_equity",
  "debt",
  "grant",
  "ipo",
  "post_ipo",
] as const;
export type FundingStage = (typeof FUNDING_STAGES)[number];

export const ENTITY_TYPES = ["organization", "product", "person", "address", "funding_round"] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
