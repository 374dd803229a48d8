import { rng, unitVector } from "@orgsim/testing";
import { describe, expect, it } from "vitest";
import { BATCH_ROWS, VectorMatrix } from "../src/vector-matrix";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);

/** A matrix of `rows` random unit vectors, in chunks of `rowsPerChunk`, and the vectors. */
function filled(dimension: number, rows: number, rowsPerChunk: number, seed = 1) {
  const random = rng(seed);
  const matrix = new VectorMatrix(dimension, rowsPerChunk);
  const vectors = Array.from({ length: rows }, () => unitVector(dimension, random));
  matrix.reserve(rows);
  for (const [row, vector] of vectors.entries()) matrix.set(row, vector);
  return { matrix, vectors, random };
}

describe("VectorMatrix", () => {
  // 384: whole blocks of 16 floats; 20: a block and a tail; 5: a tail only.
  it.each([384, 20, 5])("scores rows in any order, across chunks, as a float64 sum does (dimension %i)", (dimension) => {
    const { matrix, vectors, random } = filled(dimension, 700, 256);
    const query = unitVector(dimension, random);
    // 998: not a multiple of the four rows the kernel takes at a time.
    const rows = Int32Array.from({ length: 998 }, () => Math.floor(random() * 700));
    const out = new Float32Array(rows.length);
    matrix.score(query, rows, rows.length, out);
    for (const [i, row] of rows.entries()) expect(out[i]).toBeCloseTo(dot(query, vectors[row] as Float32Array), 6);
  });

  it("keeps every row through growth", () => {
    const { matrix, vectors } = filled(8, 10, 1_000);
    const first = matrix.view(0);
    for (const rows of [100, 5_000, 40_000]) matrix.reserve(rows);
    expect(matrix.rows).toBe(40_000);
    for (const [row, vector] of vectors.entries()) expect(Array.from(matrix.view(row))).toEqual(Array.from(vector));
    matrix.copyRow(3, 39_999);
    expect(Array.from(matrix.view(39_999))).toEqual(Array.from(vectors[3] as Float32Array));
    // A full chunk never moves: a view of it stays the matrix's.
    matrix.reserve(41_000);
    matrix.set(0, vectors[5] as Float32Array);
    expect(Array.from(matrix.view(0))).toEqual(Array.from(first));
    // Saved as one part a chunk, in row order.
    const chunks = matrix.chunks(2_500);
    expect(chunks.map((chunk) => chunk.length / 8)).toEqual([1_000, 1_000, 500]);
    expect(Array.from(chunks[0]?.subarray(16, 24) ?? [])).toEqual(Array.from(vectors[2] as Float32Array));
  });

  it("makes a chunk small while a small store fills it, then at its full size at once (no doubling)", () => {
    const matrix = new VectorMatrix(8, 65_536);
    matrix.reserve(1_000);
    expect(matrix.rows).toBe(1_024);
    const vector = Float32Array.from({ length: 8 }, (_, i) => i);
    matrix.set(1_000, vector);
    matrix.reserve(1_025);
    expect(matrix.rows).toBe(65_536);
    expect(Array.from(matrix.view(1_000))).toEqual(Array.from(vector));
  });

  it("refuses a query of another dimension, a row outside it and a batch too big, by name", () => {
    const { matrix } = filled(4, 10, 1_000);
    const out = new Float32Array(BATCH_ROWS + 1);
    expect(() => matrix.score(new Float32Array(3), Int32Array.of(0), 1, out)).toThrow(/3 dimensions; the matrix holds 4/);
    expect(() => matrix.score(new Float32Array(4), Int32Array.of(5_000), 1, out)).toThrow(/outside the matrix/);
    expect(() => matrix.score(new Float32Array(4), new Int32Array(BATCH_ROWS + 1), BATCH_ROWS + 1, out)).toThrow(/at most 4096 rows/);
    expect(() => matrix.view(-1)).toThrow(/row -1 is outside/);
  });

  it("adopts parts as its chunks, scores and grows them, and refuses parts that are not whole chunks", () => {
    const { matrix: source, vectors, random } = filled(8, 250, 100);
    const adopted = new VectorMatrix(8, 100);
    adopted.adopt(source.chunks(250).map((chunk) => chunk.slice()));
    expect(adopted.rows).toBe(250);
    const query = unitVector(8, random);
    const rows = Int32Array.of(249, 0, 120, 99, 100);
    const out = new Float32Array(rows.length);
    adopted.score(query, rows, rows.length, out);
    for (const [i, row] of rows.entries()) expect(out[i]).toBeCloseTo(dot(query, vectors[row] as Float32Array), 6);
    // The last, partly filled part grows into a chunk of its own, its rows kept.
    adopted.reserve(300);
    adopted.set(299, vectors[1] as Float32Array);
    expect(Array.from(adopted.view(249))).toEqual(Array.from(vectors[249] as Float32Array));
    expect(() => new VectorMatrix(8, 100).adopt([new Float32Array(8 * 50), new Float32Array(8 * 10)])).toThrow(/part 0 of 2 holds 400 floats/);
    expect(() => new VectorMatrix(8, 100).adopt([new Float32Array(7)])).toThrow(/not whole 8-d rows/);
  });
});
