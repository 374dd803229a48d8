import { rng, unitVector } from "@orgsim/testing";
import { describe, expect, it } from "vitest";
import { KERNEL_MODULE, kernelBinary, kernelModuleText } from "../scripts/kernel-binary";
import { BATCH_ROWS, rowsPerSegmentOf, VectorMatrix } from "../src/vector-matrix/vector-matrix";
import { readFileSync } from "node:fs";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

/** A matrix of `rows` random unit vectors, in segments of `rowsPerSegment`, and the vectors. */
function filled(dimension: number, rows: number, rowsPerSegment: number, seed = 1) {
  const random = rng(seed);
  const matrix = new VectorMatrix(dimension, rowsPerSegment);
  const vectors = Array.from({ length: rows }, () => unitVector(dimension, random));
  matrix.reserve(rows);
  for (const [row, vector] of vectors.entries()) matrix.set(row, vector);
  return { matrix, vectors, random };
}

describe("VectorMatrix", () => {
  it("runs the kernel compiled from score-rows.wat (the committed binary is the text's)", async () => {
    expect(readFileSync(KERNEL_MODULE, "utf8")).toBe(kernelModuleText(await kernelBinary()));
  });

  // 384: whole blocks of 16 floats; 20: a block and a tail; 5: a tail only.
  it.each([384, 20, 5])("scores rows in any order, across segments, as a float64 sum does (dimension %i)", (dimension) => {
    const { matrix, vectors, random } = filled(dimension, 700, 256);
    const query = unitVector(dimension, random);
    // 998: not a multiple of the four rows the kernel takes at a time.
    const rows = Int32Array.from({ length: 998 }, () => Math.floor(random() * 700));
    const out = new Float32Array(rows.length);
    matrix.score(query, rows, rows.length, out);
    for (const [i, row] of rows.entries()) expect(out[i]).toBeCloseTo(dot(query, vectors[row] as Float32Array), 6);
  });

  it("keeps every row through growth, which moves no data and re-makes its views", () => {
    const { matrix, vectors } = filled(8, 10, 1_000);
    for (const rows of [100, 5_000, 40_000]) matrix.reserve(rows);
    expect(matrix.rows).toBeGreaterThanOrEqual(40_000);
    for (const [row, vector] of vectors.entries()) expect(Array.from(matrix.view(row))).toEqual(Array.from(vector));
    matrix.copyRow(3, 39_999);
    expect(Array.from(matrix.view(39_999))).toEqual(Array.from(vectors[3] as Float32Array));
    // Saved as one chunk a segment, in row order.
    const chunks = matrix.chunks(2_500);
    expect(chunks.map((chunk) => chunk.length / 8)).toEqual([1_000, 1_000, 500]);
    expect(Array.from(chunks[0]?.subarray(16, 24) ?? [])).toEqual(Array.from(vectors[2] as Float32Array));
  });

  it("refuses a query of another dimension, a row outside it and a batch too big, by name", () => {
    const { matrix } = filled(4, 10, 1_000);
    const out = new Float32Array(BATCH_ROWS + 1);
    expect(() => matrix.score(new Float32Array(3), Int32Array.of(0), 1, out)).toThrow(/3 dimensions; the matrix holds 4/);
    expect(() => matrix.score(new Float32Array(4), Int32Array.of(5_000), 1, out)).toThrow(/outside the matrix/);
    expect(() => matrix.score(new Float32Array(4), new Int32Array(BATCH_ROWS + 1), BATCH_ROWS + 1, out)).toThrow(/at most 4096 rows/);
    expect(() => matrix.view(-1)).toThrow(/row -1 is outside/);
  });

  it("puts a million 384-d rows in one segment of at most 2 GiB", () => {
    expect(rowsPerSegmentOf(384)).toBe(1_048_576);
    expect(rowsPerSegmentOf(384) * 384 * 4).toBeLessThanOrEqual(2 ** 31);
  });
});
