/**
 * Founding date, headcount and funding of one organization, drawn together so
 * they agree: a seed-stage company is young and small, a post-IPO one old and
 * large, and every round is announced after the founding.
 */
import type { FundingStage } from "@orgsim/core";
import {
  ARCHETYPE_STAGES,
  type Archetype,
  EARLIEST_FOUNDING_YEAR,
  LATEST_FOUNDING_DATE,
  LATEST_ROUND_DATE,
  STAGE_PROFILES,
  UNDISCLOSED_AMOUNT_SHARE,
  VENTURE_LADDER,
} from "../data/funding";
import { DAYS_PER_YEAR, toDays, toIsoDate, yearOf } from "../dates";
import type { Random } from "../random";

export interface FundingDraft {
  total_raised_usd: number | null;
  rounds_count: number;
  last_round: { stage: FundingStage; announced_on: string; amount_usd: number | null };
}

export interface MetricsDraft {
  founded_on: string;
  founded_year: number;
  /** Years between founding and LATEST_ROUND_DATE. */
  age: number;
  employee_count: number;
  funding: FundingDraft | null;
}

const TODAY = toDays(LATEST_ROUND_DATE);
const LATEST_FOUNDING = toDays(LATEST_FOUNDING_DATE);
const EARLIEST_FOUNDING = toDays(`${EARLIEST_FOUNDING_YEAR}-01-01`);
/** A round is announced at least this many days after the founding. */
const MIN_DAYS_TO_FIRST_ROUND = 30;

export function drawMetrics(rng: Random, archetype: Archetype): MetricsDraft {
  return archetype === "bootstrapped" ? drawBootstrapped(rng) : drawFunded(rng, archetype);
}

/** No outside funding: any age, headcount growing slowly with age. */
function drawBootstrapped(rng: Random): MetricsDraft {
  const year = rng.chance(0.72) ? rng.int(2000, 2025) : Math.floor(EARLIEST_FOUNDING_YEAR + 50 * rng.next() ** 0.7);
  const founded = Math.min(toDays(`${year}-01-01`) + rng.int(0, 364), LATEST_FOUNDING);
  const age = (TODAY - founded) / DAYS_PER_YEAR;
  const ceiling = Math.min(8 + age * 30, 4_000);
  return { ...founding(founded), age, employee_count: Math.round(rng.logSkewed(1, ceiling, 1.2)), funding: null };
}

function drawFunded(rng: Random, archetype: Exclude<Archetype, "bootstrapped">): MetricsDraft {
  const stage = rng.weighted(ARCHETYPE_STAGES[archetype]);
  const profile = STAGE_PROFILES[stage];

  // Date the latest round, then the founding from the company's age at that round.
  const [recentMost, recentLeast] = profile.recency;
  const yearsAgo = recentMost + (recentLeast - recentMost) * rng.next() ** 1.3;
  let announced = TODAY - Math.round(yearsAgo * DAYS_PER_YEAR);
  let founded = announced - Math.round(rng.float(...profile.age) * DAYS_PER_YEAR);
  founded = Math.max(EARLIEST_FOUNDING, Math.min(founded, LATEST_FOUNDING));
  announced = Math.min(TODAY, Math.max(announced, founded + MIN_DAYS_TO_FIRST_ROUND));

  const earlier = earlierRounds(rng, stage, yearOf(toIsoDate(founded)));
  const earlierTotal = earlier.reduce((sum, s) => sum + roundAmount(rng, s), 0);
  const disclosed = !rng.chance(UNDISCLOSED_AMOUNT_SHARE);
  const amount = disclosed ? roundAmount(rng, stage) : null;
  const total = amount === null && earlier.length === 0 ? null : earlierTotal + (amount ?? 0);

  const age = (TODAY - founded) / DAYS_PER_YEAR;
  return {
    ...founding(founded),
    age,
    employee_count: Math.round(rng.logSkewed(profile.employees[0], profile.employees[1], 1.5)),
    funding: {
      total_raised_usd: total,
      rounds_count: earlier.length + 1,
      last_round: { stage, announced_on: toIsoDate(announced), amount_usd: amount },
    },
  };
}

function founding(days: number) {
  const founded_on = toIsoDate(days);
  return { founded_on, founded_year: yearOf(founded_on) };
}

/** The rounds before the latest one, oldest first. */
function earlierRounds(rng: Random, last: FundingStage, foundedYear: number): FundingStage[] {
  const ladderUpTo = (stage: FundingStage): FundingStage[] => {
    const end = VENTURE_LADDER.indexOf(stage);
    return VENTURE_LADDER.slice(0, end).filter((s) => rng.chance(s === "pre_seed" ? 0.4 : s === "seed" ? 0.85 : 0.95));
  };
  const repeat = (stage: FundingStage, min: number, max: number): FundingStage[] => Array<FundingStage>(rng.int(min, max)).fill(stage);

  switch (last) {
    case "pre_seed":
      return [];
    case "seed":
      return [...ladderUpTo("seed"), ...repeat("seed", 0, 1)];
    case "series_a":
    case "series_b":
    case "series_c":
    case "series_d":
      return ladderUpTo(last);
    case "series_e_plus":
      return [...ladderUpTo("series_e_plus"), ...repeat("series_e_plus", 0, 2)];
    case "growth":
      return ladderUpTo(rng.pick(["series_c", "series_d", "series_e_plus"] as const));
    case "ipo":
      return foundedYear < 1990 ? repeat("private_equity", 0, 1) : ladderUpTo(rng.pick(["series_b", "series_c", "series_d", "series_e_plus"] as const));
    case "post_ipo": {
      const before = foundedYear < 1990 ? [] : ladderUpTo(rng.pick(["series_b", "series_c", "series_d", "series_e_plus"] as const));
      return [...before, "ipo", ...repeat("post_ipo", 0, 2)];
    }
    case "private_equity":
      return [...(rng.chance(0.4) ? ladderUpTo(rng.pick(["seed", "series_a", "series_b"] as const)) : []), ...repeat("private_equity", 0, 1)];
    case "debt":
      return [...(rng.chance(0.6) ? ladderUpTo(rng.pick(["seed", "series_a", "series_b", "series_c"] as const)) : []), ...repeat("debt", 0, 1)];
    case "grant":
      return [...repeat("grant", 0, 2), ...(rng.chance(0.2) ? (["pre_seed"] as FundingStage[]) : [])];
  }
  return [];
}

/** A round size for the stage, rounded to two significant digits. */
function roundAmount(rng: Random, stage: FundingStage): number {
  const [min, max] = STAGE_PROFILES[stage].amount;
  const raw = rng.logSkewed(min, max, 1.2);
  const magnitude = 10 ** (Math.floor(Math.log10(raw)) - 1);
  return Math.round(raw / magnitude) * magnitude;
}
