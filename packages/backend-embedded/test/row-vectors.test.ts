import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rng, unitVector } from "@orgsim/testing";
import { afterAll, describe, expect, it } from "vitest";
import { RowVectors } from "../src/row-vectors";
import { readSnapshot, writeSnapshot } from "../src/snapshot-file";

const D = 4;
const dir = mkdtempSync(join(tmpdir(), "orgsim-row-vectors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a row holds. */
const vectorAt = (vectors: RowVectors, row: number) => {
  const vector = vectors.vectorOf(row);
  return vector ? Array.from(vector) : null;
};

/** `vectors` saved to a snapshot file and read back, as a store's start reads them. */
const savedAndRead = (vectors: RowVectors, slotted: boolean, rows: number) => {
  const file = join(dir, `vectors-${slotted}.bin`);
  writeSnapshot(file, {}, vectors.snapshot(rows));
  const reader = readSnapshot(file);
  try {
    return RowVectors.restore(D, slotted, rows, reader);
  } finally {
    reader.close();
  }
};

describe("RowVectors", () => {
  it.each([false, true])("holds what was set, through moves (row removals) and a snapshot, slotted: %s", (slotted) => {
    const random = rng(5);
    // Segments of 64 rows: the matrix spans several memories, saved as one array.
    const vectors = new RowVectors(D, slotted, 64);
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
    const restored = savedAndRead(vectors, slotted, rows);
    check(restored);
    // The restored vectors take writes as the original would (freed slots are reused).
    restored.reserveRows(rows + 1);
    restored.set(rows, new Float32Array([1, 0, 0, 0]));
    expect(vectorAt(restored, rows)).toEqual([1, 0, 0, 0]);
    check(restored);
  });
});

describe("RowVectors.score", () => {
  it("scores each candidate with a vector, in order, in batches (more candidates than BATCH_ROWS)", () => {
    const random = rng(9);
    const rows = 5_000;
    const vectors = new RowVectors(D, true, 1_024);
    vectors.reserveRows(rows);
    const model = Array.from({ length: rows }, (_, row) => (row % 3 === 0 ? null : unitVector(D, random)));
    for (const [row, vector] of model.entries()) vectors.set(row, vector);
    const query = unitVector(D, random);
    const candidates = Int32Array.from({ length: 4_500 }, (_, i) => (i * 7) % rows);
    const seen: [number, number][] = [];
    vectors.score(query, candidates, candidates.length, (rows, scores, n) => {
      for (let i = 0; i < n; i++) seen.push([rows[i] as number, scores[i] as number]);
    });
    const expected = [...candidates].filter((row) => model[row]);
    expect(seen.map(([row]) => row)).toEqual(expected);
    for (const [row, score] of seen) {
      const vector = model[row] as Float32Array;
      expect(score).toBeCloseTo(
        vector.reduce((sum, x, i) => sum + x * (query[i] as number), 0),
        6,
      );
    }
  });
});
