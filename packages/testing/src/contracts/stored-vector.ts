/**
 * Which rankings tell the store that their vector is a stored organization's own
 * (VectorQuery.storedVector): a store may search those narrower, as they sit on the data, and
 * searches a text's embedding or several blended seeds wider.
 */
import {
  type Embedder,
  type OrganizationStore,
  SearchService,
  SimilarToDescriptionInput,
  SimilarToOrganizationInput,
  SimilarToSeedsInput,
  type VectorModel,
  type VectorQuery,
} from "@orgsim/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomRecords } from "../synthetic";
import type { OpenedOrganizationStore, OrganizationStoreContractOptions } from "./organization-store";

/** Every text embeds as the first axis: only which queries reach the store matters here. */
const firstAxisEmbedder = (model: VectorModel): Embedder => ({
  ...model,
  embed: async (texts) => texts.map(() => Float32Array.from({ length: model.dimension }, (_, i) => (i === 0 ? 1 : 0))),
  close: async () => {},
});

export function describeStoredVectorContract(options: OrganizationStoreContractOptions, model: VectorModel): void {
  describe("the rankings of a stored organization's vector (SearchService over this store)", () => {
    let opened: OpenedOrganizationStore;
    let search: SearchService;
    const asked: VectorQuery[] = [];

    beforeAll(async () => {
      opened = await options.open();
      await opened.store.upsert(randomRecords(40, model.dimension, 7), model);
      // The real store, its vector rankings seen on their way in.
      const store: OrganizationStore = opened.store;
      const rank = store.rank.bind(store);
      const searchVectors = store.search.bind(store);
      store.rank = (query) => {
        asked.push(query);
        return rank(query);
      };
      store.search = (query) => {
        asked.push(query);
        return searchVectors(query);
      };
      search = new SearchService(store, firstAxisEmbedder(model));
    });
    afterAll(() => opened.cleanup());

    const storedFlags = async (run: () => Promise<{ data: unknown[] }>) => {
      asked.length = 0;
      expect((await run()).data.length).toBeGreaterThan(0);
      expect(asked.length).toBeGreaterThan(0);
      return [...new Set(asked.map((q) => q.storedVector === true))];
    };

    it("marks every ranking of similar-to-organization, in both rankings", async () => {
      for (const ranking of ["hybrid", "vector"] as const) {
        expect(await storedFlags(() => search.similarToOrganization(SimilarToOrganizationInput.parse({ organization_id: 1, ranking })))).toEqual([true]);
      }
    });

    it("marks the rankings of one organization as the only seed, whose vector is its own", async () => {
      const seeds = SimilarToSeedsInput.parse({ like: [{ organization_id: 1 }, { organization_id: 999_999 }] });
      expect(await storedFlags(() => search.similarToSeeds(seeds))).toEqual([true]);
    });

    it("marks no ranking of a description, of several seeds, or of a seed with a counter-example or a description", async () => {
      expect(await storedFlags(() => search.similarToDescription(SimilarToDescriptionInput.parse({ description: "tools for teams" })))).toEqual([false]);
      for (const [like, unlike] of [
        [[{ organization_id: 1 }, { organization_id: 2 }], []],
        [[{ organization_id: 1 }], [{ organization_id: 2 }]],
        [[{ description: "tools for teams" }], []],
      ]) {
        const seeds = SimilarToSeedsInput.parse({ like, unlike, ranking: "vector" });
        expect(await storedFlags(() => search.similarToSeeds(seeds))).toEqual([false]);
      }
    });
  });
}
