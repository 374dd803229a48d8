import { rng } from "@orgsim/testing";
import { describe, expect, it } from "vitest";
import { IdRows } from "../src/id-rows";

describe("IdRows", () => {
  it("answers as a Map does through sets, replacements and deletes (growth and rebuilds included), for ids up to 2^53", () => {
    const random = rng(3);
    const model = new Map<number, number>();
    const table = new IdRows();
    // Ids that differ only in their high 32 bits, dense runs, and large ones.
    const idOf = (i: number) => [i + 1, (i % 7) * 0x1_0000_0000 + 5, Number.MAX_SAFE_INTEGER - i, 1000 + i * 4096][i % 4] as number;
    for (let step = 0; step < 40_000; step++) {
      const id = idOf(Math.floor(random() * 3000));
      if (random() < 0.3) expect(table.delete(id)).toBe(model.delete(id));
      else {
        table.set(id, step);
        model.set(id, step);
      }
      if (step % 997 === 0) for (let i = 0; i < 3000; i++) expect(table.get(idOf(i))).toBe(model.get(idOf(i)));
    }
    for (let i = 0; i < 3000; i++) {
      expect(table.get(idOf(i))).toBe(model.get(idOf(i)));
      expect(table.has(idOf(i))).toBe(model.has(idOf(i)));
    }
    expect(table.get(0)).toBeUndefined();
  });

  it("is built from an id column, row by row", () => {
    const ids = Float64Array.from([42, 7, 2 ** 40, 9, 0]);
    const table = IdRows.of(ids, 4);
    expect([42, 7, 2 ** 40, 9].map((id) => table.get(id))).toEqual([0, 1, 2, 3]);
    expect(table.has(0)).toBe(false);
  });
});
