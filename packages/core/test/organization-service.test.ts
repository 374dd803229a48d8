/** OrganizationService.upsertMany with vectors computed elsewhere (bring your own embeddings). */
import { describe, expect, it } from "vitest";
import {
  assertModelAdmitted,
  assertRecordVectors,
  type Embedder,
  givenVector,
  OrganizationService,
  type OrganizationRecord,
  type OrganizationStore,
  type OrgsimError,
  type VectorModel,
} from "../src";

const MODEL = { modelId: "test-3d", dimension: 3 };

/** A store that keeps records in memory and applies the vector-model rules both real stores apply. */
function memoryStore(initialModel: VectorModel | null = null) {
  const rows = new Map<number, OrganizationRecord>();
  let model = initialModel;
  const store = {
    backend: "embedded",
    vectorModel: async () => model,
    upsert: async (records: OrganizationRecord[], m: VectorModel) => {
      assertModelAdmitted(model, m);
      assertRecordVectors(records, m);
      model = m;
      for (const record of records) rows.set(record.organization.id, record);
    },
    getVector: async (id: number, kind: "profile" | "customer") => (kind === "profile" ? rows.get(id)?.profileVector : rows.get(id)?.customerVector) ?? null,
    count: async () => rows.size,
  };
  return store as unknown as OrganizationStore;
}

/** A deterministic 3-d embedder that records every text it was asked to embed. */
function countingEmbedder() {
  const texts: string[] = [];
  const embedder: Embedder = {
    ...MODEL,
    embed: async (batch) => {
      texts.push(...batch);
      return batch.map((text) => Float32Array.from([text.length, 1, 0], (x) => x / Math.hypot(text.length, 1)));
    },
    close: async () => {},
  };
  return { embedder, texts };
}

const caught = async (promise: Promise<unknown>): Promise<OrgsimError> => {
  try {
    await promise;
  } catch (error) {
    return error as OrgsimError;
  }
  throw new Error("expected a rejection");
};

const asArray = (v: Float32Array | null) => (v ? [...v] : null);

describe("givenVector", () => {
  it("scales a vector to unit length, keeping its direction", () => {
    expect(asArray(givenVector([3, 0, 4], MODEL) as Float32Array)).toEqual([Math.fround(0.6), 0, Math.fround(0.8)]);
  });

  it("normalizes vectors whose squares would overflow or underflow", () => {
    const huge = givenVector([1e200, 1e200, 0], MODEL) as Float32Array;
    expect([...huge].map((x) => x.toFixed(6))).toEqual(["0.707107", "0.707107", "0.000000"]);
    expect(asArray(givenVector([0, 1e-200, 0], MODEL) as Float32Array)).toEqual([0, 1, 0]);
    // Squares that do not vanish but lose most of their digits (subnormal) are not summed as they are.
    const tiny = givenVector([1e-160, 1e-160, 0], MODEL) as Float32Array;
    expect([...tiny].map((x) => x.toFixed(6))).toEqual(["0.707107", "0.707107", "0.000000"]);
  });

  it("names the dimension found and the one the store's model has", () => {
    expect(givenVector([1, 2], MODEL)).toBe("has 2 dimensions; expected 3, the dimension of the store's model test-3d");
  });

  it("refuses items that are not finite numbers, and a zero vector", () => {
    expect(givenVector([1, Number.NaN, 0], MODEL)).toBe("item 1 is NaN, not a finite number");
    expect(givenVector([Number.POSITIVE_INFINITY, 0, 0], MODEL)).toBe("item 0 is Infinity, not a finite number");
    expect(givenVector([1, 2, "3"] as unknown as number[], MODEL)).toBe('item 2 is "3", not a finite number');
    expect(givenVector([0, 0, 0], MODEL)).toBe("is all zeros: a zero vector has no direction to compare");
  });
});

describe("OrganizationService.upsertMany with given vectors", () => {
  const acme = { id: 1, name: "Acme", description: "Robots.", customer_description: "Plant managers" };
  const beta = { id: 2, name: "Beta", description: "Ledgers.", customer_description: "Accountants" };
  const gamma = { id: 3, name: "Gamma", description: "Maps." };

  it("stores given vectors unit-normalized and embeds only the vectors not given", async () => {
    const store = memoryStore();
    const { embedder, texts } = countingEmbedder();
    const service = new OrganizationService(store, embedder);
    await service.upsertMany([acme, beta, gamma], {
      givenVectors: [{ profile: [0, 2, 0], customer: [0, 0, 5] }, { profile: [3, 4, 0] }, { customer: [1, 0, 0] }],
    });
    // acme: nothing embedded; beta: only its customer text; gamma: only its profile (its given customer vector stands without customer text)
    expect(texts).toEqual(["Gamma. Maps.", "Accountants"]);
    expect(asArray(await store.getVector(1, "profile"))).toEqual([0, 1, 0]);
    expect(asArray(await store.getVector(1, "customer"))).toEqual([0, 0, 1]);
    expect(asArray(await store.getVector(2, "profile"))).toEqual([Math.fround(0.6), Math.fround(0.8), 0]);
    expect(asArray(await store.getVector(3, "customer"))).toEqual([1, 0, 0]);
    expect(await store.vectorModel()).toEqual(MODEL);
  });

  it("embeds as before where no vectors are given", async () => {
    const { embedder, texts } = countingEmbedder();
    await new OrganizationService(memoryStore(), embedder).upsertMany([acme, gamma], { givenVectors: [undefined] });
    expect(texts).toEqual(["Acme. Robots.", "Gamma. Maps.", "Plant managers"]);
  });

  it("refuses a batch with a wrong-dimension or unreadable vector, naming each failing index and field; writes and embeds nothing", async () => {
    const store = memoryStore();
    const { embedder, texts } = countingEmbedder();
    const service = new OrganizationService(store, embedder);
    const error = await caught(
      service.upsertMany([acme, beta, gamma], { givenVectors: [{ profile: [1, 0, 0] }, { profile: [1, 0, 0, 0] }, { customer: [0, 0, 0] }] }),
    );
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.details.issues).toEqual([
      { path: [1, "profile_vector"], message: "has 4 dimensions; expected 3, the dimension of the store's model test-3d" },
      { path: [2, "customer_vector"], message: "is all zeros: a zero vector has no direction to compare" },
    ]);
    expect(error.details.failing_indexes).toEqual([1, 2]);
    expect(texts).toEqual([]);
    expect(await store.count()).toBe(0);
  });

  it("reports a bad vector beside the row's other issues, the index once", async () => {
    const { embedder } = countingEmbedder();
    const error = await caught(
      new OrganizationService(memoryStore(), embedder).upsertMany([acme, { id: 2 }], { givenVectors: [undefined, { customer: [1] }] }),
    );
    expect(error.details.issues).toEqual([expect.objectContaining({ path: [1, "name"] }), expect.objectContaining({ path: [1, "customer_vector"] })]);
    expect(error.details.failing_indexes).toEqual([1]);
  });

  it("names the field alone when one organization is written", async () => {
    const { embedder } = countingEmbedder();
    const error = await caught(new OrganizationService(memoryStore(), embedder).upsertMany([acme], { givenVectors: [{ customer: [1, 2] }] }));
    expect(error.message).toBe("Invalid input: customer_vector: has 2 dimensions; expected 3, the dimension of the store's model test-3d");
    expect(error.details.failing_indexes).toBeUndefined();
  });

  it("stores given vectors under the store's model only: a store of another model refuses them", async () => {
    const store = memoryStore({ modelId: "other-3d", dimension: 3 });
    const { embedder } = countingEmbedder();
    const error = await caught(new OrganizationService(store, embedder).upsertMany([acme], { givenVectors: [{ profile: [1, 0, 0], customer: [0, 1, 0] }] }));
    expect(error.code).toBe("CONFLICT");
    expect(await store.count()).toBe(0);
  });
});
