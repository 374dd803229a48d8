/**
 * The words similar-to-organization searches by (core domain/lexical.ts, distinctiveTerms, over this
 * store's term statistics): words most of the stored texts hold are left out, so they are never
 * among a result's matched words, while the organization's rarer words are.
 */
import { type Embedder, type OrganizationRecord, SearchService, SimilarToOrganizationInput } from "@orgsim/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organization, rng, unitVector } from "../synthetic";
import type { OpenedOrganizationStore, OrganizationStoreContractOptions } from "./organization-store";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };
/** More texts than the core's floor (100) for calling a word common: every one says "cloud platform". */
const COUNT = 130;
const DENTAL = [1, 2, 3, 4, 5];

const unusedEmbedder: Embedder = { ...MODEL, embed: () => Promise.reject(new Error("not embedded: the seed's stored vector is used")), close: async () => {} };

function records(): OrganizationRecord[] {
  const random = rng(11);
  return Array.from({ length: COUNT }, (_, i) => {
    const id = i + 1;
    const trade = DENTAL.includes(id) ? "dental clinics" : `logistics fleets route${id}`;
    return { organization: { ...organization(id), description: `Cloud platform for ${trade}.` }, profileVector: unitVector(DIM, random), customerVector: null };
  });
}

export function describeOrganizationWordsContract(options: OrganizationStoreContractOptions): void {
  describe("similar-to-organization's words (SearchService over this store)", () => {
    let opened: OpenedOrganizationStore;
    let search: SearchService;

    beforeAll(async () => {
      opened = await options.open();
      await opened.store.upsert(records(), MODEL);
      search = new SearchService(opened.store, unusedEmbedder);
    });
    afterAll(() => opened.cleanup());

    it("leaves out words most texts hold, and matches the organization's rarer ones", async () => {
      const input = SimilarToOrganizationInput.parse({ organization_id: 1, explain: "true", limit: 10 });
      const results = (await search.similarToOrganization(input)).data;
      const matched = new Map(results.map((r) => [r.id, (r.similarity.explanation?.matched_words ?? []).map((m) => m.word)]));
      // "cloud", "platform" and "org" (every name is "Org <id>") are in all 130 texts.
      for (const words of matched.values()) expect(words.filter((w) => ["cloud", "platform", "org"].includes(w))).toEqual([]);
      for (const id of DENTAL.slice(1)) expect(matched.get(id)).toEqual(expect.arrayContaining(["dental", "clinics"]));
    });
  });
}
