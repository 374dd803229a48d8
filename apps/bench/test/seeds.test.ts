import { describe, expect, it } from "vitest";
import type { LabelledRow } from "../src/quality/datasets";
import { counterExample, MIN_GROUP_SIZE, rocchioVector, SEEDS_PER_QUERY, seedsPrecision, seedsQueries } from "../src/quality/seeds";

/** Organizations 1..n with the given sub-industries, in order (null: unlabelled). */
const rowsOf = (values: (string | null)[]): LabelledRow[] =>
  values.map((value, i) => ({ id: i + 1, labels: { subindustry: value }, knownItem: null, profileText: `org ${i + 1}`, customerText: null }));

// A: 8 organizations, B: 5 (just eligible), C: 4 (too few), 2 unlabelled.
const rows = rowsOf([...Array<string>(8).fill("A"), ...Array<string>(MIN_GROUP_SIZE).fill("B"), ...Array<string>(MIN_GROUP_SIZE - 1).fill("C"), null, null]);
const valueById = new Map(rows.map((r) => [r.id, r.labels.subindustry]));

describe("several-seeds queries", () => {
  it("takes every organization of a value with at least 5, each with 2 distinct others of its value", () => {
    const queries = seedsQueries(rows, "subindustry", 1000, 1);
    expect(queries.map((q) => q.orgId)).toEqual(rows.filter((r) => r.labels.subindustry === "A" || r.labels.subindustry === "B").map((r) => r.id));
    for (const q of queries) {
      expect(q.seeds).toHaveLength(SEEDS_PER_QUERY);
      expect(q.seeds[0]).toBe(q.orgId);
      expect(new Set(q.seeds).size).toBe(SEEDS_PER_QUERY);
      for (const id of q.seeds) expect(valueById.get(id)).toBe(q.value);
      expect(q.value).toBe(valueById.get(q.orgId));
    }
    expect(queries.map((q) => q.index)).toEqual(queries.map((_, i) => i));
  });

  it("samples query organizations without repeats, and the same companions whatever the sample size", () => {
    const all = seedsQueries(rows, "subindustry", 1000, 7);
    const some = seedsQueries(rows, "subindustry", 5, 7);
    expect(some).toHaveLength(5);
    expect(new Set(some.map((q) => q.orgId)).size).toBe(5);
    for (const q of some) expect(q.seeds).toEqual(all.find((a) => a.orgId === q.orgId)!.seeds);
    expect(seedsQueries(rows, "subindustry", 5, 7)).toEqual(some);
    // Another seed draws other companions somewhere.
    expect(seedsQueries(rows, "subindustry", 1000, 8).map((q) => q.seeds)).not.toEqual(all.map((q) => q.seeds));
  });

  it("counts as relevant the other organizations of the value, never a seed", () => {
    const byId = new Map(rows.map((r) => [r.id, r]));
    const q = { index: 0, orgId: 1, text: "", seeds: [1, 2, 3], value: "A" };
    // 2 and 3 are seeds, 4 and 5 relevant, 9 is B, 99 unknown.
    expect(seedsPrecision(q, [2, 3, 4, 5, 9, 99], byId, "subindustry")).toBeCloseTo(0.2);
    expect(seedsPrecision(q, [4, 5, 6, 7, 8], byId, "subindustry")).toBeCloseTo(0.5);
  });

  it("picks as counter-example the other value met most often in the top 10, and its first organization there", () => {
    const byId = new Map(rows.map((r) => [r.id, r]));
    const q = { index: 0, orgId: 1, text: "", seeds: [1, 2, 3], value: "A" };
    // C (14) first, then B twice (9, 10), then C once more is a tie broken by first appearance.
    expect(counterExample(q, [4, 14, 9, 5, 10, 18], byId, "subindustry")).toEqual({ id: 9, value: "B" });
    expect(counterExample(q, [4, 14, 9, 5, 10, 15], byId, "subindustry")).toEqual({ id: 14, value: "C" });
    // Unlabelled (18, 19), same value, or past the first 10: no counter-example.
    expect(counterExample(q, [4, 5, 18, 19, 6, 7, 8, 4, 5, 6, 9], byId, "subindustry")).toBeNull();
  });

  it("forms Rocchio's vector: the likes' mean moved away from the unlikes' by the weight, normalized", () => {
    const like = [Float32Array.of(1, 0), Float32Array.of(0, 1)];
    const unlike = [Float32Array.of(1, 0)];
    const close = (v: Float32Array, expected: number[]) => {
      for (const [i, x] of expected.entries()) expect(v[i]).toBeCloseTo(x, 6);
    };
    close(rocchioVector(like, [], 0.5), [Math.SQRT1_2, Math.SQRT1_2]);
    close(rocchioVector(like, unlike, 0), [Math.SQRT1_2, Math.SQRT1_2]);
    // (0.5, 0.5) - 0.5 * (1, 0) = (0, 0.5)
    close(rocchioVector(like, unlike, 0.5), [0, 1]);
    // (0.5, 0.5) - 0.25 * (1, 0) = (0.25, 0.5)
    close(rocchioVector(like, unlike, 0.25), [0.25 / Math.hypot(0.25, 0.5), 0.5 / Math.hypot(0.25, 0.5)]);
  });
});
