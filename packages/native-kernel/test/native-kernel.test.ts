import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import usearch from "usearch";
import {
  accumulatePostings,
  bestSlots,
  clearSlots,
  completePostings,
  countAbove,
  filteredGraphSearch,
  mapFile,
  openGraphView,
  scoreRows,
  slotsAbove,
  slotsReaching,
} from "../index.js";

const dir = mkdtempSync(join(tmpdir(), "orgsim-native-kernel-"));
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

describe("the word search's posting walks", () => {
  // 40 slots; a term held by every third slot, 1 to 3 times.
  const slotCount = 40;
  const slots = Int32Array.from({ length: 14 }, (_, i) => i * 3);
  const freqs = Uint16Array.from(slots, (slot) => 1 + ((slot % 3 === 0 ? slot % 4 : 0) % 3));
  const normalization = Float64Array.from({ length: 256 }, (_, norm) => 0.3 + norm / 100);
  const slotNorm = Uint8Array.from({ length: slotCount }, (_, slot) => (slot * 7) % 256);
  const idf = 1.7;
  const bm25 = (slot: number, freq: number) => (idf * freq) / (freq + (normalization[slotNorm[slot] as number] as number));
  const walk = () => ({ scores: new Float64Array(slotCount), touched: new Int32Array(slotCount), high: new Int32Array(slotCount) });

  it("adds a term's BM25 to each allowed live slot, listing first touches and rises above the floor, as LexicalIndex did in JavaScript", () => {
    const { scores, touched, high } = walk();
    // Slot 3 already scored (not touched again), slot 6's row is dead, row 9 (slot 9) is filtered out.
    scores[3] = 0.5;
    touched[0] = 3;
    const slotRow = Int32Array.from({ length: slotCount }, (_, slot) => (slot === 6 ? -1 : slot));
    const allowed = Uint8Array.from({ length: slotCount }, (_, row) => (row === 9 ? 0 : 1));
    const state = Float64Array.of(1, 0, 1.0);
    const top = accumulatePostings(slots, freqs, slots.length, idf, normalization, slotNorm, scores, allowed, false, slotRow, touched, high, state);
    const expected = new Float64Array(slotCount);
    expected[3] = 0.5;
    for (const [j, slot] of slots.entries()) if (slot !== 6 && slot !== 9) expected[slot] = (expected[slot] as number) + bm25(slot, freqs[j] as number);
    expect(Array.from(scores)).toEqual(Array.from(expected));
    expect(top).toBe(Math.max(...expected));
    const scored = [...slots].filter((slot) => slot !== 6 && slot !== 9);
    expect(state[0]).toBe(scored.length);
    expect(Array.from(touched.subarray(0, state[0]))).toEqual([3, ...scored.filter((slot) => slot !== 3)]);
    expect(Array.from(high.subarray(0, state[1]))).toEqual(scored.filter((slot) => (expected[slot] as number) > 1.0));
  });

  it("filters by slot when asked to, walks only `length` postings and completes only slots that can still reach the bar", () => {
    const { scores, touched, high } = walk();
    const bySlot = Uint8Array.from({ length: slotCount }, (_, slot) => (slot < 20 ? 1 : 0));
    const state = Float64Array.of(0, 0, Number.POSITIVE_INFINITY);
    accumulatePostings(slots, freqs, 10, idf, normalization, slotNorm, scores, bySlot, true, new Int32Array(slotCount), touched, high, state);
    expect(Array.from(touched.subarray(0, state[0]))).toEqual([0, 3, 6, 9, 12, 15, 18]);
    expect(state[1]).toBe(0);
    const before = Float64Array.from(scores);
    completePostings(slots, freqs, slots.length, idf, normalization, slotNorm, scores, 0.2, 1.0);
    for (const [j, slot] of slots.entries()) {
      const reaches = (before[slot] as number) > 0 && (before[slot] as number) + 0.2 >= 1.0;
      expect(scores[slot]).toBe(reaches ? (before[slot] as number) + bm25(slot, freqs[j] as number) : before[slot]);
    }
  });

  it("selects and counts listed slots by score", () => {
    const scores = Float64Array.of(0, 0.5, 1, 1.5, 2);
    const listed = Int32Array.of(4, 2, 0, 3, 1);
    const out = new Int32Array(5);
    expect(Array.from(out.subarray(0, slotsReaching(listed, 5, scores, 0.5, 2, out)))).toEqual([4, 3]);
    expect(Array.from(out.subarray(0, slotsAbove(listed, 4, scores, 0.9, out)))).toEqual([4, 2, 3]);
    expect(countAbove(listed, 5, scores, 0.9, 10)).toBe(3);
    expect(countAbove(listed, 5, scores, 0.9, 2)).toBe(2);
    // In place: `out` may be the list itself.
    const inPlace = Int32Array.from(listed);
    expect(Array.from(inPlace.subarray(0, slotsReaching(inPlace, 5, scores, 0, 1, inPlace)))).toEqual([4, 2, 3]);
  });

  it("picks the best listed slots by score, the first listed of equal scores, as LexicalIndex did in JavaScript", () => {
    const next = random(7);
    // Scores on a coarse grid: many ties.
    const scores = Float64Array.from({ length: 300 }, () => Math.round((next() + 0.5) * 20) / 4);
    const listed = Int32Array.from({ length: 250 }, (_, i) => (i * 37) % 300);
    for (const k of [1, 10, 100]) {
      const best = new Int32Array(k);
      bestSlots(listed, 240, scores, best);
      // The insertion the word index made in JavaScript before: the reference.
      const expectedTop = new Float64Array(k).fill(Number.NEGATIVE_INFINITY);
      const expected = new Int32Array(k);
      for (const slot of listed.subarray(0, 240)) {
        const score = scores[slot] as number;
        if (score <= (expectedTop[k - 1] as number)) continue;
        let i = k - 1;
        for (; i > 0 && (expectedTop[i - 1] as number) < score; i--) {
          expectedTop[i] = expectedTop[i - 1] as number;
          expected[i] = expected[i - 1] as number;
        }
        expectedTop[i] = score;
        expected[i] = slot;
      }
      expect(Array.from(best)).toEqual(Array.from(expected));
      expect(Array.from(best, (slot) => scores[slot])).toEqual(Array.from(expectedTop));
    }
    expect(() => bestSlots(listed, 1, scores, new Int32Array(0))).toThrow(/best must hold at least 1 slot/);
    expect(() => bestSlots(Int32Array.of(300), 1, scores, new Int32Array(1))).toThrow(/slot is outside scores/);
  });

  it("clears the listed slots' scores and no others", () => {
    const scores = Float64Array.of(1, 2, 3, 4, 5);
    clearSlots(Int32Array.of(3, 0, 4), 2, scores);
    expect(Array.from(scores)).toEqual([0, 2, 3, 0, 5]);
    expect(() => clearSlots(Int32Array.of(5), 1, scores)).toThrow(/slot is outside scores/);
    expect(() => clearSlots(Int32Array.of(1), 2, scores)).toThrow(/count is past the end/);
  });

  it("refuses slots outside the arrays, short lists and arrays of the wrong type, by name", () => {
    const { scores, touched, high } = walk();
    const state = Float64Array.of(0, 0, 1);
    const call = (postings: Int32Array, norm = normalization, length = postings.length) =>
      accumulatePostings(
        postings,
        new Uint16Array(postings.length),
        length,
        idf,
        norm,
        slotNorm,
        scores,
        null,
        false,
        new Int32Array(slotCount),
        touched,
        high,
        state,
      );
    expect(() => call(Int32Array.of(slotCount))).toThrow(/slot is outside slotNorm or scores/);
    expect(() => call(Int32Array.of(-1))).toThrow(/slot is outside/);
    expect(() => call(Int32Array.of(1), normalization, 2)).toThrow(/`length` slots and freqs/);
    expect(() => call(Int32Array.of(1), new Float64Array(3))).toThrow(/normalization 256 numbers/);
    expect(() => call(Float64Array.of(1) as unknown as Int32Array)).toThrow(/slots has the wrong element type/);
    expect(() =>
      accumulatePostings(slots, freqs, 1, idf, normalization, slotNorm, scores, null, true, new Int32Array(slotCount), touched, high, state),
    ).toThrow(/must cover every slot/);
    expect(() => slotsReaching(Int32Array.of(99), 1, scores, 0, 0, new Int32Array(1))).toThrow(/slot is outside scores/);
    expect(() => completePostings(Int32Array.of(1, slotCount), Uint16Array.of(1, 1), 2, idf, normalization, slotNorm, scores, 0, 0)).toThrow(
      /slot is outside slotNorm or scores/,
    );
    expect(() => countAbove(Int32Array.of(-3), 1, scores, 0, 1)).toThrow(/slot is outside scores/);
    expect(() => slotsAbove(Int32Array.of(1, 2), 2, scores, 0, new Int32Array(1))).toThrow(/out must hold `count` slots/);
    expect(() => countAbove(Int32Array.of(1), 2, scores, 0, 1)).toThrow(/count is past the end/);
    expect(() => (completePostings as (...args: unknown[]) => void)(slots, freqs, 1)).toThrow(/completePostings takes \(slots, freqs, length/);
    expect(() => (countAbove as (...args: unknown[]) => number)(Int32Array.of(1), 1, scores)).toThrow(/countAbove takes \(slots, count, scores, bound/);
    expect(() => (bestSlots as (...args: unknown[]) => void)(Int32Array.of(1), 1, scores)).toThrow(/bestSlots takes \(slots, count, scores, best\)/);
  });
});

describe("filtered searches of a saved graph", () => {
  // The search itself, its filter and IdRows' hash are tested with the store's graphs (packages/backend-embedded, graph-walk-filter.test.ts).
  const { Index, MetricKind, ScalarKind } = usearch;
  const saved = (name: string, quantization: (typeof ScalarKind)[keyof typeof ScalarKind]) => {
    const index = new Index({ dimensions: 4, metric: MetricKind.Cos, quantization, connectivity: 16, multi: false, expansion_add: 16, expansion_search: 16 });
    index.add(BigUint64Array.from([1n, 2n, 3n]), Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]));
    const file = join(dir, name);
    index.save(file);
    return file;
  };
  // IdRows' table of one slot, holding id 2 at row 0: every id is looked up there (the probe stops after one slot).
  const table = { ids: Float64Array.of(2), rows: Int32Array.of(0) };

  it("finds the nearest passing node, and nothing when no node passes", () => {
    const view = openGraphView(saved("f16.usearch", ScalarKind.F16));
    const [keys, distances] = [new Float64Array(3), new Float32Array(3)];
    const query = Float32Array.from([1, 0.1, 0, 0]);
    expect(filteredGraphSearch(view, query, 3, 3, table.ids, table.rows, Uint8Array.of(1), new Float64Array(0), keys, distances)).toBe(1);
    expect(keys[0]).toBe(2);
    expect(filteredGraphSearch(view, query, 3, 3, table.ids, table.rows, Uint8Array.of(0), Float64Array.of(3), keys, distances)).toBe(1);
    expect(keys[0]).toBe(3);
    expect(filteredGraphSearch(view, query, 3, 3, table.ids, table.rows, Uint8Array.of(0), new Float64Array(0), keys, distances)).toBe(0);
  });

  it("refuses a missing file, a graph of another kind and arguments that do not fit, by name", () => {
    expect(() => openGraphView(join(dir, "missing.usearch"))).toThrow(/missing\.usearch/);
    expect(() => openGraphView(saved("f32.usearch", ScalarKind.F32))).toThrow(/not a graph of f16 vectors by cosine/);
    const view = openGraphView(saved("f16-again.usearch", ScalarKind.F16));
    const [keys, distances] = [new Float64Array(3), new Float32Array(3)];
    const none = new Float64Array(0);
    expect(() => filteredGraphSearch(view, new Float32Array(5), 3, 3, table.ids, table.rows, Uint8Array.of(1), none, keys, distances)).toThrow(RangeError);
    expect(() => filteredGraphSearch(view, new Float32Array(4), 4, 4, table.ids, table.rows, Uint8Array.of(1), none, keys, distances)).toThrow(RangeError);
    expect(() => filteredGraphSearch(view, new Float32Array(4), 3, 3, table.ids, new Uint32Array(1) as never, Uint8Array.of(1), none, keys, distances)).toThrow(
      /rowTable/,
    );
    expect(() => filteredGraphSearch({} as never, new Float32Array(4), 3, 3, table.ids, table.rows, Uint8Array.of(1), none, keys, distances)).toThrow(
      /openGraphView/,
    );
  });
});
