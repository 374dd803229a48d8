import { describe, expect, it } from "vitest";
import { seedVector, UNLIKE_WEIGHT } from "../src/domain/seed-vector";

describe("seedVector (Rocchio)", () => {
  const unit = (...xs: number[]) => {
    const n = Math.hypot(...xs);
    return Float32Array.from(xs, (x) => x / n);
  };
  const cos = (p: Float32Array, q: Float32Array) => p.reduce((s, x, i) => s + x * (q[i] as number), 0);

  it("is the normalized mean of the examples", () => {
    expect([...seedVector([unit(1, 0, 0), unit(0, 1, 0)], [])]).toEqual([...unit(1, 1, 0)]);
    expect([...seedVector([unit(3, 4, 0)], [])]).toEqual([...unit(3, 4, 0)]);
  });

  it("moves away from the counter-examples by UNLIKE_WEIGHT of their mean", () => {
    const like = [unit(1, 0, 0), unit(0, 1, 0)];
    const away = unit(0, 1, 1);
    const q = seedVector(like, [away]);
    expect(cos(q, away)).toBeLessThan(cos(seedVector(like, []), away));
    const expected = unit(0.5, 0.5 - UNLIKE_WEIGHT * (away[1] as number), -UNLIKE_WEIGHT * (away[2] as number));
    for (const [i, x] of q.entries()) expect(x).toBeCloseTo(expected[i] as number, 6);
  });

  it("falls back to the examples when the counter-examples cancel them", () => {
    const only = unit(1, 2, 3);
    const q = seedVector(
      [only],
      [only, only].map((v) => v.map((x) => x / UNLIKE_WEIGHT)),
    );
    for (const [i, x] of q.entries()) expect(x).toBeCloseTo(only[i] as number, 6);
  });
});
