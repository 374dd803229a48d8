import { describe, expect, it } from "vitest";
import { ci95, mean, precisionAtK, reciprocalRank, recallAtK, sample } from "../src/quality/metrics";

describe("precision at k", () => {
  const relevant = new Set([2, 4, 6]);
  const isRelevant = (id: number) => relevant.has(id);

  it("counts the relevant ids among the first k", () => {
    expect(precisionAtK([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], isRelevant)).toBeCloseTo(0.3);
    expect(precisionAtK([2, 4, 6, 1], isRelevant, 3)).toBe(1);
    expect(precisionAtK([1, 3, 5, 2], isRelevant, 3)).toBe(0);
  });

  it("ignores results past k and counts missing places as misses", () => {
    expect(precisionAtK([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 6], isRelevant)).toBe(0);
    expect(precisionAtK([2, 4], isRelevant)).toBeCloseTo(0.2);
    expect(precisionAtK([], isRelevant)).toBe(0);
  });
});

describe("known-item metrics", () => {
  it("reciprocal rank is 1/rank of the item within k, else 0", () => {
    expect(reciprocalRank([7, 8, 9], 7)).toBe(1);
    expect(reciprocalRank([7, 8, 9], 9)).toBeCloseTo(1 / 3);
    expect(reciprocalRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 11)).toBe(0);
    expect(reciprocalRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 10)).toBeCloseTo(0.1);
    expect(reciprocalRank([1, 2], 3)).toBe(0);
  });

  it("recall at k is whether the item is among the first k", () => {
    expect(recallAtK([5, 6, 7], 7)).toBe(1);
    expect(recallAtK([5, 6, 7], 7, 2)).toBe(0);
    expect(recallAtK([], 7)).toBe(0);
  });

  it("MRR averages the reciprocal ranks", () => {
    const rankings = [
      [1, 2, 3],
      [2, 1, 3],
      [3, 2, 4],
    ];
    expect(mean(rankings.map((r) => reciprocalRank(r, 1)))).toBeCloseTo((1 + 1 / 2 + 0) / 3);
  });
});

describe("sampling and intervals", () => {
  it("draws the same sample for the same seed, in input order", () => {
    const items = Array.from({ length: 100 }, (_, i) => i);
    const a = sample(items, 10, 42);
    expect(a).toEqual(sample(items, 10, 42));
    expect(new Set(a).size).toBe(10);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
    expect(sample(items, 200, 1)).toEqual(items);
  });

  it("a 95% interval shrinks with n and is 0 for constant values", () => {
    expect(ci95([1, 1, 1])).toBe(0);
    expect(ci95([0, 1, 0, 1])).toBeGreaterThan(ci95([0, 1, 0, 1, 0, 1, 0, 1]));
  });
});
