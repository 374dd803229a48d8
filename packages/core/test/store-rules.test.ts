import { describe, expect, it } from "vitest";
import { assertModelAdmitted, assertQueryDimension, assertRecordVectors, keysetPage, type OrganizationRecord, type OrgsimError, pageBody } from "../src";

const caught = (fn: () => unknown): OrgsimError => {
  try {
    fn();
  } catch (error) {
    return error as OrgsimError;
  }
  throw new Error("expected a throw");
};

const record = (id: number, profile: number, customer: number | null) =>
  ({
    organization: { id },
    profileVector: new Float32Array(profile),
    customerVector: customer === null ? null : new Float32Array(customer),
  }) as unknown as OrganizationRecord;

describe("the vector-model rules both organization stores apply", () => {
  const model = { modelId: "m", dimension: 3 };

  it("refuses a record whose vector has another dimension than the model, naming it", () => {
    const error = caught(() => assertRecordVectors([record(1, 3, null), record(2, 3, 4)], model));
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toBe("Organization 2 has a 4-d vector but model m is 3-d");
  });

  it("runs the backend's own check on each vector after its dimension passed", () => {
    const seen: number[] = [];
    assertRecordVectors([record(1, 3, 3), record(2, 3, null)], model, (id) => seen.push(id));
    expect(seen).toEqual([1, 1, 2]);
  });

  it("admits any model into an empty store and the same model into a filled one; refuses another model or dimension", () => {
    expect(() => assertModelAdmitted(null, model)).not.toThrow();
    expect(() => assertModelAdmitted({ modelId: "m", dimension: 3 }, model)).not.toThrow();
    const error = caught(() => assertModelAdmitted({ modelId: "other", dimension: 5 }, model));
    expect(error.code).toBe("CONFLICT");
    expect(error.details).toEqual({ stored_model: "other", stored_dimension: 5, model: "m", dimension: 3 });
    expect(caught(() => assertModelAdmitted({ modelId: "m", dimension: 5 }, model)).code).toBe("CONFLICT");
  });

  it("refuses a query vector of another dimension than the stored vectors", () => {
    expect(() => assertQueryDimension(3, 3)).not.toThrow();
    expect(caught(() => assertQueryDimension(4, 3)).message).toBe("The query vector has 4 dimensions; the stored vectors have 3");
  });
});

describe("keyset paging of collections and items", () => {
  const rows = ["a", "b", "c", "d", "e"].map((id, i) => ({ id, created_at: `2026-01-0${i + 1}` }));
  const fetch = (after: [string, string] | null, limit: number) =>
    rows.filter((r) => !after || r.created_at > after[0] || (r.created_at === after[0] && r.id > after[1])).slice(0, limit);

  it("walks every row once, page by page, and ends with a null cursor", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await keysetPage(["t"], { limit: 2, cursor }, fetch, (page) => page.map((r) => r.id));
      seen.push(...page.data);
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(seen).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("refuses a cursor of another scope", async () => {
    const first = await keysetPage(["t"], { limit: 2 }, fetch, (page) => page);
    await expect(keysetPage(["other"], { limit: 2, cursor: first.next_cursor as string }, fetch, (page) => page)).rejects.toThrow(/different query/);
  });

  it("gives the contract's body of a page", () => {
    expect(pageBody({ data: [1], next_cursor: null })).toEqual({ data: [1], meta: { next_cursor: null } });
  });
});
