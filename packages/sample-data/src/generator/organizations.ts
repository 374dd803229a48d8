/** Puts categories, metrics, places, names and texts together into organizations. */
import { CATEGORIES, employeeRangeOf, type OrganizationWithId } from "@orgsim/core";
import { CATEGORY_CONTENT, type CategoryContent } from "../data/categories";
import { ARCHETYPE_WEIGHTS, type Archetype } from "../data/funding";
import { Random } from "../random";
import { drawHeadquarters, drawOffices, toPlace } from "./location";
import { drawMetrics } from "./metrics";
import { drawName } from "./names";
import { writeTexts } from "./text";

export interface GenerateOptions {
  /** How many organizations (ids 1..count). Default 2,000. */
  count?: number;
  /** PRNG seed; the same seed gives byte-identical output. Default 42. */
  seed?: number;
}

export const DEFAULT_COUNT = 2_000;
export const DEFAULT_SEED = 42;

function contentOf(slug: string): CategoryContent {
  const content = CATEGORY_CONTENT[slug];
  if (!content) throw new Error(`no sample-data content for category "${slug}"`);
  return content;
}

const CATEGORY_WEIGHTS = CATEGORIES.map((c) => [c.slug, contentOf(c.slug).weight] as const);

/** The primary category and 0–2 of its related ones. */
function drawCategories(rng: Random, primary: string): string[] {
  const extra = rng.weighted([
    [0, 60],
    [1, 30],
    [2, 10],
  ] as const);
  return [primary, ...rng.sample(contentOf(primary).related, extra)];
}

function drawArchetype(rng: Random, content: CategoryContent): Archetype {
  const entries = (Object.keys(ARCHETYPE_WEIGHTS) as Archetype[]).map((a) => [a, ARCHETYPE_WEIGHTS[a] * (content.archetypes?.[a] ?? 1)] as const);
  return rng.weighted(entries);
}

/**
 * Fictional sample organizations: deterministic for a seed, ids 1..count,
 * every one `fictional: true`. Organization n is the same whatever the count,
 * and the first 45 cover every taxonomy category once.
 */
export function generateSampleOrganizations(options: GenerateOptions = {}): OrganizationWithId[] {
  const count = options.count ?? DEFAULT_COUNT;
  const seed = options.seed ?? DEFAULT_SEED;
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`);

  const rng = new Random(seed);
  const coverage = rng.shuffle(CATEGORIES.map((c) => c.slug));
  const taken: TakenNames = { names: new Set<string>(), domains: new Set<string>() };
  const organizations: OrganizationWithId[] = [];
  for (let id = 1; id <= count; id++) organizations.push(drawOrganization(rng, id, coverage[id - 1] ?? rng.weighted(CATEGORY_WEIGHTS), taken));
  return organizations;
}

/** Names and domains already given: every organization gets its own. */
interface TakenNames {
  names: Set<string>;
  domains: Set<string>;
}

/** One organization of the primary category. The order of the draws is the output's: changing it changes every later organization. */
function drawOrganization(rng: Random, id: number, primarySlug: string, taken: TakenNames): OrganizationWithId {
  const categories = drawCategories(rng, primarySlug);
  const primary = contentOf(primarySlug);
  const archetype = drawArchetype(rng, primary);
  const metrics = drawMetrics(rng, archetype);
  const stage = metrics.funding?.last_round.stage ?? null;

  const hq = drawHeadquarters(rng);
  const offices = drawOffices(rng, hq, metrics.employee_count);
  const drawn = drawUniqueName(
    rng,
    { category: primary, country: hq.country, foundedYear: metrics.founded_year, isPublic: stage === "ipo" || stage === "post_ipo" },
    taken,
  );
  const texts = writeTexts(rng, {
    name: drawn.name,
    primary,
    secondaries: categories.slice(1).map(contentOf),
    hq,
    offices,
    foundedYear: metrics.founded_year,
    age: metrics.age,
    employees: metrics.employee_count,
    stage,
  });

  return {
    id,
    name: drawn.name,
    description: texts.description,
    domain: drawn.domain,
    logo_url: null,
    categories,
    customer_description: texts.customer_description,
    metrics: {
      employee_count: metrics.employee_count,
      employee_range: employeeRangeOf(metrics.employee_count),
      founded_on: metrics.founded_on,
      founded_year: metrics.founded_year,
      funding: metrics.funding,
    },
    location: {
      headquarters: toPlace(rng, hq),
      offices: offices.map((office) => toPlace(rng, office, 0.6)),
    },
    contact: {
      website: `https://${drawn.domain}`,
      email: `hello@${drawn.domain}`,
      phone: null,
      social: { linkedin: null, twitter: null, github: null },
    },
    fictional: true,
  };
}

/** A name and domain no earlier organization has, drawn again until both are new. */
function drawUniqueName(rng: Random, context: Parameters<typeof drawName>[1], taken: TakenNames): ReturnType<typeof drawName> {
  let drawn = drawName(rng, context);
  while (taken.names.has(drawn.name.toLowerCase()) || taken.domains.has(drawn.domain)) drawn = drawName(rng, context);
  taken.names.add(drawn.name.toLowerCase());
  taken.domains.add(drawn.domain);
  return drawn;
}
