import { BM25, lexicalTerms, lexicalTextsOf, type Organization, type OrganizationFilter, type OrganizationRecord, type VectorKind } from "@orgsim/core";

/** The contract's filter semantics, written the obvious way, to check a store against. */
export function matches(o: Organization, f: OrganizationFilter): boolean {
  const m = o.metrics;
  const last = m.funding?.last_round ?? null;
  if (f.location) {
    const { countries, subdivisions, hqOnly } = f.location;
    const places = (hqOnly ? [o.location.headquarters] : [o.location.headquarters, ...o.location.offices]).filter((p) => p !== null);
    const inside = places.some(
      (p) => (p.country_code !== null && countries.includes(p.country_code)) || (p.subdivision_code !== null && subdivisions.includes(p.subdivision_code)),
    );
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

/**
 * Brute-force expected word search: Okapi BM25 as Lucene defines it over the `kind` texts of the
 * records that have a `kind` vector (statistics over all of them, ranking over the filtered
 * ones), best first, ties by id. Exact for texts under 24 terms, where Lucene's stored lengths
 * are exact.
 */
export function expectedText(records: OrganizationRecord[], text: string, kind: VectorKind, filter: OrganizationFilter) {
  const docs = records.flatMap((r) => {
    const vector = kind === "profile" ? r.profileVector : r.customerVector;
    const body = lexicalTextsOf(r.organization)[kind];
    const terms = body ? lexicalTerms(body) : [];
    return vector && terms.length > 0 ? [{ organization: r.organization, terms }] : [];
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d.terms)) df.set(t, (df.get(t) ?? 0) + 1);
  const avg = docs.reduce((sum, d) => sum + d.terms.length, 0) / docs.length;
  const query = [...new Set(lexicalTerms(text))];
  return docs
    .flatMap((d) => {
      if (!matches(d.organization, filter)) return [];
      let score = 0;
      for (const t of query) {
        const freq = d.terms.filter((x) => x === t).length;
        if (freq === 0) continue;
        const n = df.get(t) as number;
        const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
        score += (idf * freq) / (freq + BM25.k1 * (1 - BM25.b + (BM25.b * d.terms.length) / avg));
      }
      return score > 0 ? [{ id: d.organization.id, score }] : [];
    })
    .sort((a, b) => b.score - a.score || a.id - b.id);
}
