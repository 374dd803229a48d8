/** The `OrganizationStore.lookUp` cases of the store contract: the tiers of a name and domain lookup. */
import { domainKey, nameWords, type OrganizationRecord, type OrganizationStore } from "@orgsim/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { organization, rng, unitVector } from "../synthetic";
import type { OpenedOrganizationStore, OrganizationStoreContractOptions } from "./organization-store";

const NAMES: [id: number, name: string, domain: string | null][] = [
  [1, "Stripe", "stripe.com"],
  [2, "Stripe Atlas", "https://www.Stripe.com/atlas"],
  [3, "Striped Fish Co", "striped.example"],
  [4, "Acme Stripe Payments", null],
  [5, "Pinstripe Tailors", null],
  [6, "Über Café", "ÜBER.example"],
  [7, "Stripes & Co.", null],
  [8, "Payments Stripe", null],
  [9, "Strip Mall", null],
  [10, "Global Striped Payments", "stripe.com."],
];

export function describeLookupContract(options: OrganizationStoreContractOptions, model: { modelId: string; dimension: number }): void {
  describe("lookup by name and domain", () => {
    let opened: OpenedOrganizationStore | undefined;
    let store: OrganizationStore;
    const lookUp = (name: string, size = 20, domain?: string) => store.lookUp({ words: nameWords(name), size, ...(domain ? { domain } : {}) });
    beforeAll(async () => {
      opened = await options.open();
      store = opened.store;
      const random = rng(7);
      const records: OrganizationRecord[] = NAMES.map(([id, name, domain]) => ({
        organization: { ...organization(id), name, domain },
        profileVector: unitVector(model.dimension, random),
        customerVector: null,
      }));
      await store.upsert(records, model);
    });
    afterAll(async () => {
      await opened?.cleanup();
    });

    it("gives names that start with the words by name, names holding each word and names with words starting so by id", async () => {
      expect(await lookUp("stripe")).toEqual({ namePrefix: [1, 2, 3, 7], allWords: [1, 2, 4, 8], wordPrefixes: [1, 2, 3, 4, 7, 8, 10] });
      expect(await lookUp("str pay")).toEqual({ namePrefix: [], allWords: [], wordPrefixes: [4, 8, 10] });
      expect(await lookUp("PAYMENTS, stripe")).toEqual({ namePrefix: [8], allWords: [4, 8], wordPrefixes: [4, 8, 10] });
      expect(await lookUp("pinstripe")).toEqual({ namePrefix: [5], allWords: [5], wordPrefixes: [5] });
      expect(await lookUp("zzz")).toEqual({ namePrefix: [], allWords: [], wordPrefixes: [] });
    });

    it("matches without accents or case, and stops each tier at size", async () => {
      expect(await lookUp("uber CAFE")).toEqual({ namePrefix: [6], allWords: [6], wordPrefixes: [6] });
      expect(await lookUp("Ü")).toEqual({ namePrefix: [6], allWords: [], wordPrefixes: [6] });
      expect(await lookUp("stripe", 2)).toEqual({ namePrefix: [1, 2], allWords: [1, 2], wordPrefixes: [1, 2] });
    });

    it("matches the domain's host exactly, alone or with the name", async () => {
      expect(await store.lookUp({ words: [], domain: "stripe.com", size: 20 })).toEqual({ namePrefix: [], allWords: [], wordPrefixes: [1, 2, 10] });
      // The store gets the core's keys: an international name as punycode; über.example is not uber.example.
      expect(await store.lookUp({ words: [], domain: domainKey("über.example") as string, size: 20 })).toEqual({
        namePrefix: [],
        allWords: [],
        wordPrefixes: [6],
      });
      expect(await store.lookUp({ words: [], domain: "uber.example", size: 20 })).toEqual({ namePrefix: [], allWords: [], wordPrefixes: [] });
      expect(await store.lookUp({ words: [], domain: "stripe.co", size: 20 })).toEqual({ namePrefix: [], allWords: [], wordPrefixes: [] });
      expect(await lookUp("atlas", 20, "stripe.com")).toEqual({ namePrefix: [], allWords: [2], wordPrefixes: [2] });
      expect(await lookUp("stripe", 20, "stripe.com")).toEqual({ namePrefix: [1, 2], allWords: [1, 2], wordPrefixes: [1, 2, 10] });
    });

    it("follows replacements and deletions", async () => {
      const random = rng(8);
      const renamed = { ...organization(9), name: "Other Name", domain: "stripe.com" };
      await store.upsert([{ organization: renamed, profileVector: unitVector(model.dimension, random), customerVector: null }], model);
      await store.delete(1);
      expect(await lookUp("strip")).toEqual({ namePrefix: [2, 3, 7], allWords: [], wordPrefixes: [2, 3, 4, 7, 8, 10] });
      expect(await lookUp("other")).toEqual({ namePrefix: [9], allWords: [9], wordPrefixes: [9] });
      expect(await store.lookUp({ words: [], domain: "stripe.com", size: 20 })).toEqual({ namePrefix: [], allWords: [], wordPrefixes: [2, 9, 10] });
    });
  });
}
