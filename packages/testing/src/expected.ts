import type { Organization, OrganizationFilter, OrganizationRecord, VectorKind } from "@orgsim/core";

/** The contract's filter semantics, written the obvious way, to check a store against. */
export function matches(o: Organization, f: OrganizationFilter): boolean {
  const m = o.metrics;
  const last = m.funding?.last_round ?? null;
  if (f.location) {
    const { countries, subdivisions, hqOnly } = f.location;
    const places = (hqOnly ? [o.location.headquarters] : [o.location.headquarters, ...o.location.offices]).filter((p) => p !== null);
    const inside = places.some((p) => (p.country_code !== null && countries.includes(p.country_code)) || (p.subdivision_code !== null && subdivisions.includes(p.subdivision_code)));
    if (!inside) return false;
  }
  if (f.employeeRanges && !(m.employee_range && f.employeeRanges.includes(m.employee_range))) return false;
  if (f.employeesMin !== undefined && !(m.employee_count !== null && m.employee_count >= f.employeesMin)) return false;
  if (f.employeesMax !== undefined && !(m.employee_count !== null && m.employee_count <= f.employeesMax)) return false;
  if (f.foundedYearMin !== undefined && !(m.founded_year !== null && m.founded_year >= f.foundedYearMin)) return false;
  if (f.foundedYearMax !== undefined && !(m.founded_year !== null && m.founded_year <= f.foundedYearMax)) return false;
  if (f.categories && !o.categories.some((c) => f.categories?.includes(c))) return false;
  if (f.fundingStages && !(last?.stage && f.fundingStages.includes(last.stage))) return false;
  if (f.lastFundingFrom && !(last?.announced_on && last.announced_on >= f.lastFundingFrom)) return false;
  if (f.lastFundingTo && !(last?.announced_on && last.announced_on <= f.lastFundingTo)) return false;
  if (f.excludeIds?.includes(o.id)) return false;
  return true;
}

export const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

/** Brute-force expected hits: filter, score, order by score desc then id asc. */
export function expected(records: OrganizationRecord[], vector: Float32Array, kind: VectorKind, filter: OrganizationFilter, minScore = -Infinity) {
  return records
    .flatMap((r) => {
      const v = kind === "profile" ? r.profileVector : r.customerVector;
      if (!v || !matches(r.organization, filter)) return [];
      const score = dot(vector, v);
      return score >= minScore ? [{ id: r.organization.id, score }] : [];
    })
    .sort((a, b) => b.score - a.score || a.id - b.id);
}

/** A location filter. */
export const location = (countries: string[], subdivisions: string[], hqOnly = true) => ({ location: { countries, subdivisions, hqOnly } });
