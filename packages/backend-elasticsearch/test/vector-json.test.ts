/**
 * Vectors are sent as short decimals (organization-document.ts, vectorToJson): each must read back
 * as the very float32 the store was given, or scores would drift from the embedded backend's.
 */
import { describe, expect, it } from "vitest";
import { vectorToJson } from "../src/organization-document";

/** A seeded unit vector; `spread`: its components of every size, from 1e-9 to 0.5, else of one size as an embedding's are. */
function unitVector(seed: number, dimension: number, spread: boolean): Float32Array {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const raw = Array.from({ length: dimension }, (_, i) => (next() - 0.5) * (spread ? 10 ** -(i % 9) : 1));
  const length = Math.hypot(...raw);
  return Float32Array.from(raw, (x) => x / length);
}

const readBack = (vector: Float32Array) => Float32Array.from(JSON.parse(JSON.stringify(vectorToJson(vector))) as number[]);

describe("elasticsearch: vectors as JSON", () => {
  it("read back as the same float32 components", () => {
    for (let seed = 1; seed <= 50; seed++) {
      for (const spread of [true, false]) {
        const vector = unitVector(seed, 384, spread);
        expect(readBack(vector)).toEqual(vector);
      }
    }
  });

  it("keeps components outside the short range as they are, zeros and large values too", () => {
    const vector = new Float32Array([0, -0.0009765625, 2 ** -11, 3.5, -1e6, 1e-30, 2 ** -10, 1.9999999]);
    expect(readBack(vector)).toEqual(vector);
  });

  it("is shorter than the float64 values of the components", () => {
    const vector = unitVector(7, 384, false);
    expect(JSON.stringify(vectorToJson(vector)).length).toBeLessThan(0.75 * JSON.stringify(Array.from(vector)).length);
  });
});
