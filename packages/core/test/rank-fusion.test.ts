import { describe, expect, it } from "vitest";
import { fusedRelevance } from "../src/domain/rank-fusion";

/** The fused ranking's ids, best first. */
const reciprocalRankFusion = (rankings: number[][], k?: number) => fusedRelevance(rankings, k).map((hit) => hit.id);

describe("reciprocal rank fusion", () => {
  it("sums 1/(k + rank) over the rankings", () => {
    // id 2: 1/62 + 1/61 = 0.03252; id 1: 1/61 + 1/63 = 0.03227; id 3: 1/63 + 1/62 = 0.03200.
    expect(
      reciprocalRankFusion([
        [1, 2, 3],
        [2, 3, 1],
      ]),
    ).toEqual([2, 1, 3]);
  });

  it("rewards agreement over a single first place", () => {
    // id 9 is first in one list only; id 5 is second in both.
    expect(
      reciprocalRankFusion([
        [9, 5, 1],
        [2, 5, 3],
      ])[0],
    ).toBe(5);
  });

  it("keeps ids found by one ranking only, and breaks ties by id", () => {
    const fused = reciprocalRankFusion([[4], [3]]);
    expect(fused).toEqual([3, 4]);
  });

  it("uses k = 60 unless told otherwise", () => {
    // With k = 0, first place (1/1) beats two second places (1/2 + 1/2 ties; id order decides).
    expect(
      reciprocalRankFusion(
        [
          [7, 8],
          [6, 8],
        ],
        0,
      ),
    ).toEqual([6, 7, 8]);
    expect(
      reciprocalRankFusion([
        [7, 8],
        [6, 8],
      ])[0],
    ).toBe(8);
  });

  it("scales the fused score to 0..1: 1 for first in every ranking, descending, ties by id", () => {
    const fused = fusedRelevance([
      [7, 2, 3],
      [7, 3, 2],
    ]);
    expect(fused.map((f) => f.id)).toEqual([7, 2, 3]);
    expect(fused[0]?.relevance).toBe(1);
    // 2 and 3 tie (1/62 + 1/63 each), each 61 (1/62 + 1/63) / 2 of the best.
    expect(fused[1]?.relevance).toBeCloseTo((61 * (1 / 62 + 1 / 63)) / 2, 12);
    expect(fused[2]?.relevance).toBe(fused[1]?.relevance);
    expect(fusedRelevance([[4], []])[0]?.relevance).toBe(0.5);
  });
});
