/**
 * Company archetypes and the funding and size figures that go with them.
 * Amounts are USD; ages are years between founding and the latest round.
 */
import type { FundingStage } from "@orgsim/core";

/** The life stories a fictional organization can have; each fixes its funding path. */
export type Archetype = "early" | "venture" | "late" | "public" | "pe" | "debt" | "grant" | "bootstrapped";

/** Base weights of the archetypes (before a category's multipliers). */
export const ARCHETYPE_WEIGHTS: Readonly<Record<Archetype, number>> = {
  early: 22,
  venture: 20,
  late: 4.5,
  public: 3.5,
  pe: 3.5,
  debt: 3,
  grant: 4,
  bootstrapped: 39.5,
};

/** Stages an archetype's latest round can have, with relative weights. */
export const ARCHETYPE_STAGES: Readonly<Record<Exclude<Archetype, "bootstrapped">, readonly [FundingStage, number][]>> = {
  early: [
    ["pre_seed", 4],
    ["seed", 6],
  ],
  venture: [
    ["series_a", 5],
    ["series_b", 3],
    ["series_c", 1.6],
  ],
  late: [
    ["series_d", 4],
    ["series_e_plus", 2.5],
    ["growth", 2],
  ],
  public: [
    ["ipo", 1],
    ["post_ipo", 2],
  ],
  pe: [["private_equity", 1]],
  debt: [["debt", 1]],
  grant: [["grant", 1]],
};

/** Ordinary venture ladder; a company's earlier rounds are drawn from it. */
export const VENTURE_LADDER: readonly FundingStage[] = ["pre_seed", "seed", "series_a", "series_b", "series_c", "series_d", "series_e_plus"];

export interface StageProfile {
  /** Round size range in USD (drawn log-skewed toward the low end). */
  amount: readonly [number, number];
  /** Company age at the time of the round, in years. */
  age: readonly [number, number];
  /** Headcount range of a company whose latest round is this one. */
  employees: readonly [number, number];
  /** How long ago the round was announced, in years before LATEST_ROUND_DATE (skewed recent). */
  recency: readonly [number, number];
}

export const STAGE_PROFILES: Readonly<Record<FundingStage, StageProfile>> = {
  pre_seed: { amount: [100_000, 1_500_000], age: [0.1, 2], employees: [1, 8], recency: [0, 2] },
  seed: { amount: [500_000, 6_000_000], age: [0.3, 3.5], employees: [2, 30], recency: [0, 3] },
  series_a: { amount: [4_000_000, 25_000_000], age: [1.5, 5.5], employees: [8, 90], recency: [0, 3.5] },
  series_b: { amount: [12_000_000, 60_000_000], age: [3, 8], employees: [30, 300], recency: [0, 4] },
  series_c: { amount: [25_000_000, 120_000_000], age: [4, 10], employees: [80, 800], recency: [0, 4] },
  series_d: { amount: [40_000_000, 200_000_000], age: [5, 12], employees: [200, 2_000], recency: [0, 4] },
  series_e_plus: { amount: [60_000_000, 400_000_000], age: [6, 15], employees: [250, 3_000], recency: [0, 4] },
  growth: { amount: [80_000_000, 600_000_000], age: [6, 20], employees: [300, 4_000], recency: [0, 5] },
  ipo: { amount: [60_000_000, 2_000_000_000], age: [6, 40], employees: [500, 15_000], recency: [0, 35] },
  post_ipo: { amount: [30_000_000, 800_000_000], age: [8, 70], employees: [800, 60_000], recency: [0, 5] },
  private_equity: { amount: [20_000_000, 1_500_000_000], age: [5, 60], employees: [80, 8_000], recency: [0, 12] },
  debt: { amount: [2_000_000, 150_000_000], age: [2, 30], employees: [10, 3_000], recency: [0, 8] },
  grant: { amount: [50_000, 3_000_000], age: [0.3, 5], employees: [2, 60], recency: [0, 4] },
};

/** Share of latest rounds whose amount was not disclosed. */
export const UNDISCLOSED_AMOUNT_SHARE = 0.05;

/** The latest date any round can carry. */
export const LATEST_ROUND_DATE = "2026-06-30";
/** The founding window. */
export const EARLIEST_FOUNDING_YEAR = 1950;
export const LATEST_FOUNDING_DATE = "2025-12-31";
