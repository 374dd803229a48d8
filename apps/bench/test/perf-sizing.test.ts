import { describe, expect, it } from "vitest";
import type { IndexDisk } from "../src/perf/sizing-disk";
import { exactTop, type VectorTable } from "../src/perf/sizing-exact";
import { vectorMemory } from "../src/perf/sizing-result";

const table: VectorTable = {
  kind: "profile",
  ids: [5, 3, 9, 1],
  dimension: 2,
  // Unit vectors at 0°, 0° (a tie), 90° and 45°.
  vectors: Float32Array.from([1, 0, 1, 0, 0, 1, Math.SQRT1_2, Math.SQRT1_2]),
};

describe("exactTop (the truth of bench:sizing's recall)", () => {
  it("ranks by cosine, ties by id ascending, without the excluded organization", () => {
    const query = Float32Array.from([1, 0]);
    expect(exactTop(table, query, 3, -1).map((h) => h.id)).toEqual([3, 5, 1]);
    expect(exactTop(table, query, 2, 3).map((h) => h.id)).toEqual([5, 1]);
    expect(exactTop(table, query, 10, 5).map((h) => h.id)).toEqual([3, 1, 9]);
  });
});

describe("vectorMemory", () => {
  const disk: IndexDisk = {
    store_bytes: 1_000,
    fields: {
      profile_vector: { total_bytes: 600, knn_vectors_bytes: 600, stored_fields_bytes: 0, inverted_index_bytes: 0, doc_values_bytes: 0, points_bytes: 0 },
    },
    files: { vex: { bytes: 100, files: 2 }, vec: { bytes: 400, files: 2 }, veq: { bytes: 100, files: 2 } },
  };

  it("counts the graphs and the quantized copies for a quantized type, the floats for hnsw", () => {
    expect(vectorMemory("int8_hnsw", disk)).toMatchObject({ page_cache_bytes: 200, knn_vectors_bytes: 600 });
    expect(vectorMemory("hnsw", { ...disk, files: { vex: { bytes: 100, files: 2 }, vec: { bytes: 400, files: 2 } } }).page_cache_bytes).toBe(500);
  });
});
