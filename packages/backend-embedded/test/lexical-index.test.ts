import { lexicalTerms } from "@orgsim/core";
import { describe, expect, it } from "vitest";
import { LexicalIndex, luceneLength } from "../src/lexical-index";

describe("LexicalIndex", () => {
  it("stores lengths as Lucene's one-byte norms do: exact under 24, then 4 significant bits", () => {
    expect([0, 1, 23, 24, 25, 31, 39, 40, 100, 1000].map(luceneLength)).toEqual([0, 1, 23, 24, 25, 31, 39, 40, 96, 984]);
  });

  it("after many replacements and removals (compactions included) ranks as an index built fresh", () => {
    const words = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split(" ");
    const textOf = (seed: number) => Array.from({ length: 1 + (seed % 7) }, (_, i) => words[(seed * 7 + i * 3) % words.length]).join(" ");
    const churned = new LexicalIndex();
    const current = new Map<number, string>();
    for (let step = 0; step < 6000; step++) {
      const row = (step * 37) % 500;
      if (step % 5 === 4) {
        churned.clear(row);
        current.delete(row);
      } else {
        churned.set(row, lexicalTerms(textOf(step)));
        current.set(row, textOf(step));
      }
    }
    const fresh = new LexicalIndex();
    for (const [row, text] of current) fresh.set(row, lexicalTerms(text));
    expect(churned.size).toBe(current.size);
    const ids = Float64Array.from({ length: 500 }, (_, row) => row);
    for (const query of ["alpha", "beta gamma", "theta kappa alpha", "nothing"]) {
      const a = churned.search(lexicalTerms(query), 50, null, ids);
      const b = fresh.search(lexicalTerms(query), 50, null, ids);
      expect(a.map((h) => h.row)).toEqual(b.map((h) => h.row));
    }
  });
});
