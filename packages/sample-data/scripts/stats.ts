/** Prints a summary of the generated sample data: `npx tsx scripts/stats.ts [count] [seed]`. */
import { CATEGORIES, customerSentences, customerTextOf, normalizeOrganization, OrganizationWithId, regionsOfCountry } from "@orgsim/core";
import { generateSampleOrganizations } from "../src/index";

const count = Number(process.argv[2] ?? 2000);
const seed = Number(process.argv[3] ?? 42);
const t0 = performance.now();
const orgs = generateSampleOrganizations({ count, seed });
const ms = performance.now() - t0;
const stored = orgs.map((o) => normalizeOrganization(OrganizationWithId.parse(o)));

const tally = <T extends string | number>(values: T[]) => {
  const m = new Map<T, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => b[1] - a[1]);
};
const pct = (n: number) => `${((100 * n) / stored.length).toFixed(1)}%`;

console.log(`generated ${orgs.length} in ${ms.toFixed(0)} ms`);
const hqCountries = tally(stored.map((o) => o.location.headquarters?.country_code ?? "?"));
console.log(`HQ countries: ${hqCountries.length}`, hqCountries.map(([c, n]) => `${c}:${n}`).join(" "));
console.log(
  "world regions:",
  tally(stored.map((o) => o.location.headquarters?.world_region ?? "?"))
    .map(([c, n]) => `${c}:${n}`)
    .join(" "),
);
console.log(
  "continents:",
  tally(stored.map((o) => regionsOfCountry(o.location.headquarters?.country_code ?? "").at(-1) ?? "?"))
    .map(([c, n]) => `${c}:${n}`)
    .join(" "),
);
const used = new Set(stored.flatMap((o) => o.categories));
console.log(`categories used: ${used.size}/${CATEGORIES.length}`);
console.log(
  "primary categories:",
  tally(stored.map((o) => o.categories[0] ?? "?"))
    .map(([c, n]) => `${c}:${n}`)
    .join(" "),
);
console.log("categories per org:", tally(stored.map((o) => o.categories.length)));
console.log("customer sentence in description:", pct(stored.filter((o) => customerSentences(o.description ?? "").length > 0).length));
console.log("customer_description:", pct(stored.filter((o) => o.customer_description).length));
console.log("any customer text:", pct(stored.filter((o) => customerTextOf(o)).length));
console.log("employee ranges:", tally(stored.map((o) => o.metrics.employee_range ?? "?")));
console.log("funding stages:", tally(stored.map((o) => o.metrics.funding?.last_round?.stage ?? "none")));
console.log(
  "founded decade:",
  tally(stored.map((o) => Math.floor((o.metrics.founded_year ?? 0) / 10) * 10)).sort((a, b) => a[0] - b[0]),
);
console.log("offices:", tally(stored.map((o) => o.location.offices.length)));
console.log("sentences:", tally(stored.map((o) => (o.description ?? "").split(/(?<=\.)\s+(?=[A-Z])/).length)));
