import { describe, expect, it } from "vitest";
import { percentile, parseScale, recallAtK, replaceSection, scaleLabel, summarize } from "../src/perf/stats";

describe("percentile (nearest rank)", () => {
  const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100, unsorted

  it("picks the smallest sample with at least p % at or below it", () => {
    expect(percentile(samples, 50)).toBe(50);
    expect(percentile(samples, 95)).toBe(95);
    expect(percentile(samples, 99)).toBe(99);
    expect(percentile(samples, 100)).toBe(100);
    expect(percentile(samples, 0.5)).toBe(1);
  });

  it("handles small and empty sets", () => {
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([3, 1, 2], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 0)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });

  it("summarize agrees with percentile", () => {
    const s = summarize(samples);
    expect(s).toEqual({ count: 100, mean: 50.5, p50: 50, p95: 95, p99: 99, max: 100 });
    expect(summarize([]).count).toBe(0);
    expect(summarize([]).p50).toBeNaN();
  });
});

describe("recallAtK", () => {
  const exact = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, score: 1 - i / 100 }));

  it("is 1 for the same list in any order, and counts misses", () => {
    expect(recallAtK([...exact].reverse(), exact)).toBe(1);
    const twoMissed = [...exact.slice(0, 8), { id: 99, score: 0.5 }, { id: 98, score: 0.4 }];
    expect(recallAtK(twoMissed, exact)).toBeCloseTo(0.8);
    expect(recallAtK([], exact)).toBe(0);
  });

  it("counts a hit tied with the exact k-th score as found", () => {
    const tied = [...exact.slice(0, 9), { id: 42, score: exact[9]!.score }];
    expect(recallAtK(tied, exact)).toBe(1);
    const justBelow = [...exact.slice(0, 9), { id: 42, score: exact[9]!.score - 1e-3 }];
    expect(recallAtK(justBelow, exact)).toBeCloseTo(0.9);
  });

  it("uses the number of existing hits when fewer than k match, and NaN when none", () => {
    const few = exact.slice(0, 3);
    expect(recallAtK(few, few)).toBe(1);
    expect(recallAtK(few.slice(0, 2), few)).toBeCloseTo(2 / 3);
    // With fewer than k exact hits there is no k-th score: an unknown id is a miss, not a tie.
    expect(recallAtK([...few.slice(0, 2), { id: 77, score: 0.99 }], few)).toBeCloseTo(2 / 3);
    expect(recallAtK([], [])).toBeNaN();
  });

  it("only looks at the first k of the approximate list", () => {
    const padded = [...Array.from({ length: 10 }, (_, i) => ({ id: 100 + i, score: 0 })), ...exact];
    expect(recallAtK(padded, exact)).toBe(0);
  });
});

describe("scales", () => {
  it("parses and labels", () => {
    expect(["10k", "100k", "1m", "1M", "2500", "1.5k"].map(parseScale)).toEqual([10_000, 100_000, 1_000_000, 1_000_000, 2_500, 1_500]);
    expect(() => parseScale("ten")).toThrow();
    expect(() => parseScale("0")).toThrow();
    expect([10_000, 100_000, 1_000_000, 2_500].map(scaleLabel)).toEqual(["10k", "100k", "1m", "2500"]);
  });
});

describe("replaceSection", () => {
  const doc = ["# Benchmarks", "", "## Retrieval quality", "", "quality text", "", "## Speed and scale", "", "old", "", "## Later", "", "later text", ""].join(
    "\n",
  );

  it("replaces only its own section", () => {
    const out = replaceSection(doc, "Speed and scale", "new body");
    expect(out).toBe(
      ["# Benchmarks", "", "## Retrieval quality", "", "quality text", "", "## Speed and scale", "", "new body", "", "## Later", "", "later text", ""].join(
        "\n",
      ),
    );
  });

  it("appends the section when absent and creates the document when empty", () => {
    const without = "# Benchmarks\n\n## Retrieval quality\n\nquality text\n";
    expect(replaceSection(without, "Speed and scale", "body")).toBe(`${without}\n## Speed and scale\n\nbody\n`);
    expect(replaceSection("", "Speed and scale", "body")).toBe("# Benchmarks\n\n## Speed and scale\n\nbody\n");
  });

  it("is idempotent and keeps a last section's end", () => {
    const once = replaceSection("# Benchmarks\n\n## Speed and scale\n\nold\n", "Speed and scale", "body");
    expect(once).toBe("# Benchmarks\n\n## Speed and scale\n\nbody\n");
    expect(replaceSection(once, "Speed and scale", "body")).toBe(once);
  });
});
