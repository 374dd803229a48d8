/** How numbers and places of an organization read in a result. */
import type { OrganizationResult } from "../api/types";
import { labelOf } from "../filters/filter-form";

const percent = new Intl.NumberFormat("en", { style: "percent", maximumFractionDigits: 1 });
const decimal = new Intl.NumberFormat("en", { maximumFractionDigits: 3 });
const money = new Intl.NumberFormat("en", { style: "currency", currency: "USD", notation: "compact", maximumFractionDigits: 1 });

export const scoreText = (score: number) => percent.format(score);
export const cosineText = (cosine: number) => decimal.format(cosine);

export function placeOf(org: OrganizationResult): string | null {
  const hq = org.location.headquarters;
  if (!hq) return null;
  return [hq.city, hq.country ?? hq.country_code].filter(Boolean).join(", ") || null;
}

/** Employees, founding year and latest round, as short facts. */
export function factsOf(org: OrganizationResult): string[] {
  const { metrics } = org;
  const facts: string[] = [];
  if (metrics.employee_count != null) facts.push(`${metrics.employee_count.toLocaleString("en")} employees`);
  else if (metrics.employee_range) facts.push(`${metrics.employee_range} employees`);
  if (metrics.founded_year != null) facts.push(`founded ${metrics.founded_year}`);
  const round = metrics.funding?.last_round;
  if (round?.stage) {
    const amount = round.amount_usd != null ? ` ${money.format(round.amount_usd)}` : "";
    facts.push(`${labelOf(round.stage)}${amount}${round.announced_on ? ` (${round.announced_on})` : ""}`);
  }
  return facts;
}
