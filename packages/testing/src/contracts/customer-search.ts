/**
 * Customer-base search over a real store (domain/customer-base.ts, services/customer-base-ranking.ts):
 * the rule lives in the core, so every backend must give the same ids and scores, the ones written
 * out here. Vectors are built with known cosines to the query vector.
 */
import { type Embedder, type OrganizationRecord, RRF_K, SearchService, SimilarCustomersInput } from "@orgsim/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organization } from "../synthetic";
import type { OpenedOrganizationStore, OrganizationStoreContractOptions } from "./organization-store";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };

/** A unit vector at cosine `cos` to the query vector (axis 0), leaning on axis `axis`. */
function atCosine(cos: number, axis: number): Float32Array {
  const v = new Float32Array(DIM);
  v[0] = cos;
  v[axis] = Math.sqrt(1 - cos * cos);
  return v;
}

/** Every query text embeds as the query vector: the test fixes the cosines, not the model. */
const queryEmbedder: Embedder = {
  ...MODEL,
  embed: async (texts) => texts.map(() => atCosine(1, 1)),
  close: async () => {},
};

const record = (id: number, parts: { customer?: string; description: string; customerCos?: number; profileCos: number }): OrganizationRecord => ({
  organization: { ...organization(id, { customer: parts.customer }), description: parts.description },
  profileVector: atCosine(parts.profileCos, 2 + (id % 7)),
  customerVector: parts.customerCos === undefined ? null : atCosine(parts.customerCos, 9 + (id % 7)),
});

// 1: stated customers (judged by the customer vector alone); 2, 4: customer sentences extracted
// from the description (the mean of both cosines); 3, 5: no customer text, no customer vector (never a result).
const RECORDS = [
  record(1, { customer: "Dental clinics", description: "Scheduling software.", customerCos: 0.9, profileCos: 0.1 }),
  record(2, { description: "Billing software. We serve hospitals.", customerCos: 0.95, profileCos: 0.2 }),
  record(3, { description: "Practice management.", profileCos: 0.8 }),
  record(4, { description: "Claims tools. Built for insurers.", customerCos: 0.7, profileCos: 0.7 }),
  record(5, { description: "Zeppelin maintenance.", profileCos: 0.05 }),
];

/** The relevance of the fused places: place i of the vector ranking alone, or also place j of the word ranking. */
const fused = (...places: number[]) => places.reduce((sum, p) => sum + 1 / (RRF_K + p), 0) / (2 / (RRF_K + 1));

export function describeCustomerSearchContract(options: OrganizationStoreContractOptions): void {
  describe("customer-base search (SearchService over this store)", () => {
    let opened: OpenedOrganizationStore;
    let search: SearchService;
    const similarCustomers = async (input: Record<string, unknown>) =>
      (await search.similarCustomers(SimilarCustomersInput.parse({ organization_customer: "clinics", ...input }))).data;

    beforeAll(async () => {
      opened = await options.open();
      await opened.store.upsert(RECORDS, MODEL);
      search = new SearchService(opened.store, queryEmbedder);
    });
    afterAll(() => opened.cleanup());

    it("ranks stated customers by the customer vector, extracted ones by both vectors; none without a customer vector", async () => {
      // Customer-base similarity: 1 → 0.9 (not (0.9 + 0.1) / 2), 4 → 0.7, 2 → (0.95 + 0.2) / 2; no query word is in any text.
      const got = await similarCustomers({ organization_customer: "nothing matches" });
      expect(got.map((o) => o.id)).toEqual([1, 4, 2]);
      expect(got.map((o) => o.similarity.score)).toEqual([1, 2, 3].map((p) => round(fused(p))));
      // The cosine reported is the customer vector's.
      expect(got.map((o) => o.similarity.cosine_similarity)).toEqual([0.9, 0.7, 0.95]);
    });

    it("matches the query's words against whole descriptions, but a word match without a customer vector is no result", async () => {
      // 5 (no customer vector) matches "zeppelin", 4 matches "claims": 4 is the first word match left.
      const got = await similarCustomers({ organization_customer: "zeppelin claims", explain: true });
      expect(got.map((o) => o.id)).toEqual([4, 1, 2]);
      expect(got[0]!.similarity.score).toBe(round(fused(2, 1)));
      expect(got[0]!.similarity.explanation).toMatchObject({ vector: { rank: 2 }, words: { rank: 1 } });
      expect((await similarCustomers({ organization_customer: "zeppelin practice" })).map((o) => o.id)).toEqual([1, 4, 2]);
    });

    it("pages through the same ranking, scores descending", async () => {
      const first = await search.similarCustomers(SimilarCustomersInput.parse({ organization_customer: "nothing matches", limit: 2 }));
      const next = await search.similarCustomers(
        SimilarCustomersInput.parse({ organization_customer: "nothing matches", limit: 2, cursor: first.meta.next_cursor }),
      );
      expect([...first.data, ...next.data].map((o) => [o.id, o.similarity.score])).toEqual([1, 4, 2].map((id, i) => [id, round(fused(i + 1))]));
      expect(next.meta.next_cursor).toBeNull();
    });

    it("ranking=vector ranks customer vectors alone, as before", async () => {
      const got = await similarCustomers({ ranking: "vector" });
      expect(got.map((o) => [o.id, o.similarity.score])).toEqual([
        [2, 0.95],
        [1, 0.9],
        [4, 0.7],
      ]);
    });

    it("filters before ranking, and min_similarity bounds the customer cosine", async () => {
      expect((await similarCustomers({ exclude_ids: [1, 3] })).map((o) => o.id)).toEqual([4, 2]);
      // 2 ranks by 0.575 but reports its customer cosine, 0.95; 3 (profile 0.8) has none.
      expect((await similarCustomers({ min_similarity: 0.75 })).map((o) => o.id)).toEqual([1, 2]);
      expect((await similarCustomers({ min_similarity: 0.75, ranking: "vector" })).map((o) => o.id)).toEqual([2, 1]);
    });
    it("refuses a bad cursor while the query is being embedded; an embedding failing meanwhile is no unhandled rejection", async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on("unhandledRejection", onUnhandled);
      try {
        // The word ranking starts while the query is embedded (RankingQuery): here the embedding fails after the request did.
        const crashing = new SearchService(opened.store, {
          ...queryEmbedder,
          embed: () => new Promise((_, reject) => setTimeout(() => reject(new Error("the model crashed")), 20)),
        });
        const ask = (input: Record<string, unknown>) => crashing.similarCustomers(SimilarCustomersInput.parse({ organization_customer: "clinics", ...input }));
        await expect(ask({ cursor: "not-a-cursor" })).rejects.toThrow("invalid cursor");
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(unhandled).toEqual([]);
        // With nothing else wrong, the embedding's failure is the search's.
        await expect(ask({})).rejects.toThrow("the model crashed");
      } finally {
        process.off("unhandledRejection", onUnhandled);
      }
    });
  });
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
