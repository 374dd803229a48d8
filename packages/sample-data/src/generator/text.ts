/**
 * Descriptions and customer descriptions, written from the category tables
 * and the shared sentence templates.
 */
import type { FundingStage } from "@orgsim/core";
import type { CategoryContent, Segment } from "../data/categories";
import {
  CAPABILITY_TEMPLATES,
  CUSTOMER_DESCRIPTION_TEMPLATES,
  CUSTOMER_SENTENCE_TEMPLATES,
  FACT_TEMPLATES,
  INTRO_TEMPLATES,
  SECONDARY_TEMPLATES,
  SIZE_QUALIFIERS,
} from "../data/phrases";
import { type City, COUNTRY_TEXT } from "../data/places";
import type { Random } from "../random";

/** Share of descriptions with a sentence naming the customers. */
export const CUSTOMER_SENTENCE_SHARE = 0.7;
/** Share of organizations with a separate `customer_description`. */
export const CUSTOMER_DESCRIPTION_SHARE = 0.6;

export interface TextContext {
  name: string;
  primary: CategoryContent;
  secondaries: readonly CategoryContent[];
  hq: City;
  offices: readonly City[];
  foundedYear: number;
  age: number;
  employees: number;
  stage: FundingStage | null;
}

export interface TextDraft {
  description: string;
  customer_description: string | null;
}

/** Replaces every {slot}; unknown slots are an error, so templates and code stay in step. */
export function fill(template: string, slots: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = slots[key];
    if (value === undefined) throw new Error(`template slot {${key}} has no value: ${template}`);
    return value;
  });
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const withArticle = (label: string) => (/^(?:[aeiou]|AI\b|HR\b)/i.test(label) ? `an ${label}` : `a ${label}`);

/** "Austin", "Austin and Lisbon", "Austin, Lisbon and Tokyo". */
export function listing(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** Fills an audience's optional {size} slot. */
function audience(rng: Random, template: string): string {
  const size = rng.pick(SIZE_QUALIFIERS);
  return template
    .replace("{size}", size)
    .replace(/\s{2,}/g, " ")
    .trim();
}

export function writeTexts(rng: Random, ctx: TextContext): TextDraft {
  const hasCustomerSentence = rng.chance(CUSTOMER_SENTENCE_SHARE);
  const hasCustomerDescription = rng.chance(CUSTOMER_DESCRIPTION_SHARE);

  const product = rng.pick(ctx.primary.products);
  const secondary = ctx.secondaries[0] ?? null;
  const secondaryProduct = secondary ? rng.pick(secondary.products) : null;

  // Whose customers: those of the main product, sometimes of the second line of business.
  const [sold, soldBy] = secondary && secondaryProduct && rng.chance(0.2) ? [secondaryProduct, secondary] : [product, ctx.primary];
  const [key1, key2] = rng.shuffle(sold.fits);
  const segment1 = soldBy.segments[key1 as string] as Segment;
  const segment2 = key2 === undefined ? null : (soldBy.segments[key2] as Segment);
  const country = COUNTRY_TEXT[ctx.hq.country];
  const market = country ? (rng.chance(0.5) ? `in ${country.name}` : `across ${country.area}`) : "";

  const slots: Record<string, string> = {
    name: ctx.name,
    a_label: withArticle(ctx.primary.label),
    kind: ctx.age <= 5 && ctx.stage !== null ? "startup" : "company",
    city: ctx.hq.city,
    year: String(ctx.foundedYear),
    offering: product.offering,
    audience: audience(rng, segment1.audience),
    audience2: segment2 ? audience(rng, segment2.audience) : "",
    goal: rng.pick(segment1.goals),
    market,
  };

  const intro = fill(rng.pick(INTRO_TEMPLATES), slots);
  const [cap1, cap2] = rng.sample(product.capabilities, 2) as [string, string];
  const capability = fill(rng.pick(CAPABILITY_TEMPLATES), { noun: product.noun, cap1, cap2 });
  const secondLine = secondaryProduct ? fill(rng.pick(SECONDARY_TEMPLATES), { offering: secondaryProduct.offering }) : null;
  const [differentiator, extraFact] = differentiators(rng, ctx);

  // 2–4 sentences in all: the intro, 0–3 extras and perhaps the customer sentence.
  let extraCount = hasCustomerSentence
    ? rng.weighted([
        [0, 2],
        [1, 4.5],
        [2, 3.5],
      ] as const)
    : rng.weighted([
        [1, 3.5],
        [2, 4.5],
        [3, 2],
      ] as const);
  if (secondLine && extraCount === 0) extraCount = 1;
  const candidates = secondLine ? [secondLine, capability, differentiator] : [capability, differentiator, extraFact];
  const extras = new Set(candidates.slice(0, extraCount));
  // Narrative order: what it does, what else, what sets it apart.
  const body = [capability, secondLine, differentiator, extraFact].filter((s): s is string => s !== null && extras.has(s));

  const sentences = [intro, ...body];
  if (hasCustomerSentence) {
    const sentence = fill(rng.pick(CUSTOMER_SENTENCE_TEMPLATES), slots);
    if (rng.chance(0.3)) sentences.splice(1, 0, sentence);
    else sentences.push(sentence);
  }

  const usable = CUSTOMER_DESCRIPTION_TEMPLATES.filter((t) => (market || !t.includes("{market}")) && (segment2 || !t.includes("{audience2}")));
  const customer_description = hasCustomerDescription ? capitalize(fill(rng.pick(usable), slots)) : null;
  return { description: sentences.join(" "), customer_description };
}

/** A category-specific differentiator, and a sentence from the organization's own figures. */
function differentiators(rng: Random, ctx: TextContext): [string, string] {
  const facts: string[] = [];
  const slots = { city: ctx.hq.city, year: String(ctx.foundedYear), offices: listing(ctx.offices.map((o) => o.city)), team: String(teamSize(ctx.employees)) };
  if (ctx.offices.length > 0) facts.push(FACT_TEMPLATES.offices);
  if (ctx.age >= 25) facts.push(FACT_TEMPLATES.longevity);
  if (ctx.employees >= 20 && ctx.employees < 1_000) facts.push(FACT_TEMPLATES.team);
  if (ctx.stage === "ipo" || ctx.stage === "post_ipo") facts.push(FACT_TEMPLATES.public);
  if (ctx.stage === null && ctx.age >= 3) facts.push(FACT_TEMPLATES.selfFunded);

  const [specific, specific2] = rng.sample(ctx.primary.differentiators, 2) as [string, string];
  const fact = facts.length > 0 ? fill(rng.pick(facts), slots) : specific2;
  return rng.chance(0.65) ? [specific, fact] : [fact, specific];
}

/** Headcount as people say it: 37 -> 40, 180 -> 180, 640 -> 650. */
function teamSize(employees: number): number {
  const step = employees < 100 ? 10 : employees < 500 ? 20 : 50;
  return Math.max(step, Math.round(employees / step) * step);
}
