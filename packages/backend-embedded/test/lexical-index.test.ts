import { BM25, lexicalTerms } from "@orgsim/core";
import { rng } from "@orgsim/testing";
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

  it("restored, takes writes to terms it has not made yet (compactions too), and saves them again, as an index that was never saved", () => {
    const words = Array.from({ length: 300 }, (_, i) => `t${i}`);
    const textOf = (seed: number) => Array.from({ length: 2 + (seed % 9) }, (_, i) => words[(seed * 13 + i * 7) % words.length]).join(" ");
    const never = new LexicalIndex();
    for (let row = 0; row < 400; row++) never.set(row, lexicalTerms(textOf(row)));
    // Only some terms are asked for between the restore and the writes: the others stay saved, not made.
    // A snapshot holds the index's own arrays (it is written to a file at once): copied here, as a file is.
    const restored = LexicalIndex.restore(structuredClone(never.snapshot()));
    expect(restored.docFrequency("t1")).toBe(never.docFrequency("t1"));
    for (let step = 0; step < 3000; step++) {
      const row = (step * 31) % 600;
      for (const index of [never, restored]) {
        if (step % 4 === 3) index.clear(row);
        else index.set(row, lexicalTerms(`${textOf(step + 1000)} new${step % 50}`));
      }
    }
    const again = LexicalIndex.restore(structuredClone(restored.snapshot()));
    const ids = Float64Array.from({ length: 600 }, (_, row) => row);
    for (const query of ["t1", "t7 t200 t299", "new3 t5", "new49", "t150 t151 t152 t153"]) {
      const want = never.search(lexicalTerms(query), 40, null, ids);
      for (const index of [restored, again]) {
        expect(index.search(lexicalTerms(query), 40, null, ids), query).toEqual(want);
        for (const term of lexicalTerms(query)) expect(index.docFrequency(term)).toBe(never.docFrequency(term));
      }
    }
  });

  it("restored, finds every term it saved, in any script, and no other (terms are looked up by their UTF-8 bytes)", () => {
    // Byte order differs from JavaScript's string order for characters past U+FFFF ("𝔸" sorts before "ｚ" in UTF-16, after it in UTF-8).
    const terms = ["a", "ab", "abc", "b", "café", "cafe", "zürich", "東京", "ｚ", "𝔸", "ß", "1999", "x".repeat(300)];
    const index = new LexicalIndex();
    terms.forEach((term, row) => {
      index.set(row, [term, term, "shared"]);
    });
    const restored = LexicalIndex.restore(structuredClone(index.snapshot()));
    for (const term of [...terms, "shared"]) expect(restored.docFrequency(term), term).toBe(index.docFrequency(term));
    for (const absent of ["", "c", "caf", "cafés", "東", "zz", "𝔹"]) expect(restored.docFrequency(absent), absent).toBe(0);
    const ids = Float64Array.from(terms, (_, row) => row);
    for (const term of terms) expect(restored.search([term], 3, null, ids)).toEqual(index.search([term], 3, null, ids));
  });

  it("counts live documents per term right across reads, removals and new documents in between", () => {
    const index = new LexicalIndex();
    for (let row = 0; row < 10; row++) index.set(row, lexicalTerms(row % 2 ? "alpha beta" : "alpha"));
    index.clear(0);
    expect(index.docFrequency("alpha")).toBe(9);
    index.set(20, lexicalTerms("alpha gamma"));
    expect(index.docFrequency("alpha")).toBe(10);
    index.set(1, lexicalTerms("gamma"));
    expect([index.docFrequency("alpha"), index.docFrequency("beta"), index.docFrequency("gamma")]).toEqual([9, 4, 2]);
  });

  it("ranks exactly as scoring every document does (MaxScore pruning loses nothing), common and rare terms, filters (restrictive ones by slot), ties, after a restore", () => {
    const random = rng(5);
    // Zipf-like vocabulary: a few words in most documents, many in few.
    const vocabulary = Array.from({ length: 2000 }, (_, i) => `w${i}`);
    const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)] as string;
    const texts = Array.from({ length: 3000 }, (_, row) =>
      row % 97 === 0 ? "w1 w2 w3 w500" : Array.from({ length: 3 + Math.floor(random() * 60) }, word).join(" "),
    );
    const index = new LexicalIndex();
    for (const [row, text] of texts.entries()) index.set(row, lexicalTerms(text));
    const ids = Float64Array.from({ length: texts.length }, (_, row) => 10_000 - row);
    const allowed = Uint8Array.from(texts, (_, row) => (row % 3 === 0 ? 1 : 0));
    // A filter passing 2.7 %, given with its rows: the search checks slots, not rows.
    const rare = Uint8Array.from(texts, (_, row) => (row % 37 === 0 ? 1 : 0));
    const rareRows = Int32Array.from(texts.flatMap((_, row) => (row % 37 === 0 ? [row] : [])));
    // Another, right after it: a search's slot flags must not outlive it.
    const other = Uint8Array.from(texts, (_, row) => (row % 41 === 1 ? 1 : 0));
    const otherRows = Int32Array.from(texts.flatMap((_, row) => (row % 41 === 1 ? [row] : [])));
    // A restored index reads its terms' score bounds from the snapshot.
    const restored = LexicalIndex.restore(index.snapshot());
    const corpus = analyzed(texts);
    for (let q = 0; q < 60; q++) {
      const query = q === 0 ? "w1 w2 w3 w500" : Array.from({ length: 2 + Math.floor(random() * 30) }, word).join(" ");
      for (const [size, filter, rows] of [
        [1, null, null],
        [10, null, null],
        [100, null, null],
        [10, allowed, null],
        [100, allowed, null],
        [10, rare, rareRows],
        [100, rare, rareRows],
        [100, other, otherRows],
      ] as const) {
        const want = bruteForce(corpus, query, filter, ids).slice(0, size);
        for (const searched of [index, restored]) {
          const got = searched.search(lexicalTerms(query), size, filter, ids, rows);
          expect(
            got.map((h) => h.row),
            `${query} (${size}${filter ? ", filtered" : ""})`,
          ).toEqual(want.map((h) => h.row));
          for (const [i, hit] of got.entries()) expect(hit.score).toBeCloseTo(want[i]?.score as number, 10);
        }
      }
    }
  });
});

/** Each document's term counts and length, and each term's document count. */
function analyzed(texts: string[]) {
  const docs = texts.map((text) => {
    const terms = lexicalTerms(text);
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    return { counts, length: terms.length };
  });
  const df = new Map<string, number>();
  for (const doc of docs) for (const t of doc.counts.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const avg = docs.reduce((sum, doc) => sum + doc.length, 0) / docs.length;
  return { docs, df, avg };
}

/** BM25 of every document, term by term, as the index defines it (Lucene's norms). */
function bruteForce({ docs, df, avg }: ReturnType<typeof analyzed>, query: string, allowed: Uint8Array | null, ids: Float64Array) {
  const terms = [...new Set(lexicalTerms(query))];
  return docs
    .flatMap((doc, row) => {
      if (allowed && !allowed[row]) return [];
      let score = 0;
      for (const t of terms) {
        const freq = doc.counts.get(t) ?? 0;
        if (freq === 0) continue;
        const n = df.get(t) as number;
        const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
        score += (idf * freq) / (freq + BM25.k1 * (1 - BM25.b + (BM25.b * luceneLength(doc.length)) / avg));
      }
      return score > 0 ? [{ row, score }] : [];
    })
    .sort((a, b) => b.score - a.score || (ids[a.row] as number) - (ids[b.row] as number));
}
