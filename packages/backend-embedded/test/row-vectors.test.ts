import { rng, unitVector } from "@orgsim/testing";
import { describe, expect, it } from "vitest";
import { RowVectors } from "../src/row-vectors";

const D = 4;

/** What a row holds, read back through offsetOf. */
const vectorAt = (vectors: RowVectors, row: number) => {
  const at = vectors.offsetOf(row);
  return at < 0 ? null : Array.from(vectors.matrix.subarray(at, at + D));
};

describe("RowVectors", () => {
  it.each([false, true])("holds what was set, through moves (row removals) and a snapshot, slotted: %s", (slotted) => {
    const random = rng(5);
    const vectors = new RowVectors(D, slotted);
    const model: (number[] | null)[] = [];
    let rows = 0;
    for (let step = 0; step < 3_000; step++) {
      const action = random();
      if (action < 0.5 || rows === 0) {
        // A new row, or a row's vector replaced (slotted: or dropped).
        const row = action < 0.3 || rows === 0 ? rows++ : Math.floor(random() * rows);
        vectors.reserveRows(rows);
        const vector = slotted && random() < 0.4 ? null : unitVector(D, random);
        vectors.set(row, vector);
        model[row] = vector ? Array.from(vector) : null;
      } else {
        // A removal: the last row takes the removed row's place.
        const row = Math.floor(random() * rows);
        const last = --rows;
        vectors.move(last, row);
        model[row] = model[last] ?? null;
        model.length = rows;
      }
    }
    const check = (v: RowVectors) => {
      for (let row = 0; row < rows; row++) expect(vectorAt(v, row)).toEqual(model[row]);
      expect(v.count(rows)).toBe(model.filter((m) => m !== null).length);
    };
    check(vectors);
    const arrays = vectors.snapshot(rows);
    const restored = RowVectors.restore(D, slotted, rows, (name) => (arrays[name] as Float32Array).slice());
    check(restored);
    // The restored vectors take writes as the original would (freed slots are reused).
    restored.reserveRows(rows + 1);
    restored.set(rows, new Float32Array([1, 0, 0, 0]));
    expect(vectorAt(restored, rows)).toEqual([1, 0, 0, 0]);
    check(restored);
    if (slotted) expect(restored.matrix.length).toBeLessThanOrEqual(vectors.matrix.length);
  });

  it("reads vectors saved densely (snapshot format 2) into slots, leaving out rows marked without one", () => {
    const rows = 5;
    const dense = Float32Array.from({ length: rows * D }, (_, i) => i + 1);
    const has = Uint8Array.from([1, 0, 1, 1, 0]);
    const slotted = RowVectors.fromDense(D, true, rows, dense, has);
    for (let row = 0; row < rows; row++) expect(vectorAt(slotted, row)).toEqual(has[row] ? Array.from(dense.subarray(row * D, (row + 1) * D)) : null);
    expect(slotted.count(rows)).toBe(3);
    const all = RowVectors.fromDense(D, false, rows, dense, new Uint8Array(0));
    expect(vectorAt(all, 4)).toEqual([17, 18, 19, 20]);
  });
});
