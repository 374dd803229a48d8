import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mapFile, scoreRows } from "../index.js";

const dir = mkdtempSync(join(tmpdir(), "orgsim-vector-kernel-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A seeded generator, so a failure repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31 - 0.5;
  };
}

describe("scoreRows", () => {
  // 384: whole blocks of 8 floats; 20: blocks and a tail; 5: a tail only.
  it.each([384, 20, 5])("gives each listed row's dot product with the query, in the order listed (dimension %i)", (dimension) => {
    const next = random(dimension);
    const matrix = Float32Array.from({ length: 50 * dimension }, next);
    const query = Float32Array.from({ length: dimension }, next);
    // 23 rows: five batches of four and three rows alone; repeats and any order.
    const rows = Int32Array.from({ length: 23 }, (_, i) => (i * 17) % 50);
    const out = new Float32Array(23);
    scoreRows(matrix, dimension, query, rows, rows.length, out);
    for (const [i, row] of rows.entries()) {
      let dot = 0;
      for (let j = 0; j < dimension; j++) dot += (matrix[row * dimension + j] as number) * (query[j] as number);
      expect(out[i]).toBeCloseTo(dot, 5);
    }
  });

  it("scores only the first `count` rows", () => {
    const out = Float32Array.of(-7, -7);
    scoreRows(Float32Array.of(1, 2, 3, 4), 2, Float32Array.of(1, 1), Int32Array.of(1, 99), 1, out);
    expect(Array.from(out)).toEqual([7, -7]);
  });

  it("refuses rows outside the matrix, a query of another dimension and arrays of the wrong type, by name", () => {
    const matrix = new Float32Array(8);
    const out = new Float32Array(4);
    expect(() => scoreRows(matrix, 4, new Float32Array(4), Int32Array.of(2), 1, out)).toThrow(/row 2 is outside the matrix's 2 rows/);
    expect(() => scoreRows(matrix, 4, new Float32Array(4), Int32Array.of(-1), 1, out)).toThrow(/row -1 is outside/);
    expect(() => scoreRows(matrix, 4, new Float32Array(3), Int32Array.of(0), 1, out)).toThrow(/`dimension` floats/);
    expect(() => scoreRows(matrix, 4, new Float32Array(4), Int32Array.of(0, 1), 2, new Float32Array(1))).toThrow(/at least `count`/);
    expect(() => scoreRows(new Float64Array(8) as unknown as Float32Array, 4, new Float32Array(4), Int32Array.of(0), 1, out)).toThrow(
      /matrix has the wrong element type/,
    );
    expect(() => scoreRows(matrix, 4, new Float32Array(4), [0] as unknown as Int32Array, 1, out)).toThrow(/rows must be a typed array/);
  });
});

describe("mapFile", () => {
  const file = join(dir, "floats.bin");
  // 5,000 floats: more than a page, so a region can start inside one page and end in another.
  const floats = Float32Array.from({ length: 5_000 }, (_, i) => i / 7);
  writeFileSync(file, Buffer.concat([Buffer.from("12345678"), Buffer.from(floats.buffer)]));

  it("maps a region starting anywhere, with the file's bytes", () => {
    const mapped = new Float32Array(mapFile(file, 8 + 4 * 1_500, 4 * 2_000));
    expect(mapped.length).toBe(2_000);
    expect(Array.from(mapped)).toEqual(Array.from(floats.subarray(1_500, 3_500)));
  });

  it("keeps writes in the process: the file does not change, a second mapping sees the file's bytes", () => {
    const before = readFileSync(file);
    const mapped = new Float32Array(mapFile(file, 8, 4 * 5_000));
    mapped.fill(42);
    expect(mapped[4_999]).toBe(42);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(new Float32Array(mapFile(file, 8, 16))[1]).toBe(floats[1]);
  });

  it("stays readable after its file is replaced by a rename or deleted", () => {
    const own = join(dir, "replaced.bin");
    writeFileSync(own, Buffer.from(Float32Array.of(1, 2, 3).buffer));
    const mapped = new Float32Array(mapFile(own, 0, 12));
    writeFileSync(`${own}.tmp`, Buffer.from(Float32Array.of(9).buffer));
    renameSync(`${own}.tmp`, own);
    expect(Array.from(mapped)).toEqual([1, 2, 3]);
    rmSync(own);
    expect(Array.from(mapped)).toEqual([1, 2, 3]);
  });

  it("refuses a region beyond the file's end, a missing file and bad numbers, naming the file", () => {
    expect(() => mapFile(file, 8, 4 * 5_001)).toThrow(/floats\.bin holds no bytes 8 to 20012/);
    expect(() => mapFile(join(dir, "missing.bin"), 0, 4)).toThrow(/cannot open .*missing\.bin: No such file/);
    expect(() => mapFile(file, -4, 4)).toThrow(/two whole numbers of bytes/);
    expect(() => mapFile(file, 0.5, 4)).toThrow(/two whole numbers of bytes/);
    expect(mapFile(file, 8, 0).byteLength).toBe(0);
  });
});
