/** Bring your own embeddings: `profile_vector` and `customer_vector` in a mapping, through the real OrganizationService. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importFile, type MapResult, type MappingError, mapRecord, parseMapping, type UpsertOptions } from "../src/index";
import { fixture, givenVectorsMapping, inMemoryService, recordingUpsert } from "./helpers";

const csvMapping = { format: "csv", id: "id", fields: { name: "name", description: "description", profile_vector: "vector" } };

const MODEL = "the dimension of the store's model test-hash-4d";
const f32 = (values: number[]) => values.map(Math.fround);
const asArray = (v: Float32Array | null) => (v ? [...v] : null);
const byLine = (a: { line: number }, b: { line: number }) => a.line - b.line;

function importThroughService(file: string, mapping: unknown, batchSize: number) {
  const { service, store, embedded, snapshot } = inMemoryService();
  const upsert = (rows: unknown[], options?: UpsertOptions) => service.upsertMany(rows, options);
  const report = importFile({ file, mapping, upsert, batchSize });
  return { report, store, embedded, snapshot };
}

describe("the batch an import writes unless told", () => {
  const file = join(mkdtempSync(join(tmpdir(), "orgsim-batch-")), "rows.ndjson");
  const rows = Array.from({ length: 1500 }, (_, i) => ({ id: i + 1, name: `Org ${i + 1}`, embedding: [1, 0, 0, 0], customer_embedding: [0, 1, 0, 0] }));
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n"));
  const batches = async (mapping: unknown) => {
    const sink = recordingUpsert();
    await importFile({ file, mapping, upsert: sink.upsert });
    return sink.calls.map((call) => call.length);
  };

  it("is the bulk limit, 1,000, when the mapping gives both vectors (the model has nothing to embed)", async () => {
    expect(await batches(givenVectorsMapping)).toEqual([1000, 500]);
  });

  it("is 64 when the model may embed a vector the mapping does not give", async () => {
    const profileOnly = { ...givenVectorsMapping, fields: { name: "name", profile_vector: "embedding" } };
    const sizes = await batches(profileOnly);
    expect(sizes.length).toBe(24);
    expect(new Set(sizes.slice(0, -1))).toEqual(new Set([64]));
  });
});

describe("importing given vectors (NDJSON)", () => {
  for (const batchSize of [1, 64]) {
    it(`stores them unit-normalized without embedding them, and fails only the rows with a bad vector (batches of ${batchSize})`, async () => {
      const run = importThroughService(fixture("given-vectors.ndjson"), givenVectorsMapping, batchSize);
      const report = await run.report;
      expect([...report.failed].sort(byLine)).toEqual([
        { line: 3, message: `profile_vector (from "embedding"): has 3 dimensions; expected 4, ${MODEL}` },
        { line: 5, message: 'customer_vector (from "customer_embedding"): item 1 is "x", not a finite number' },
        { line: 6, message: 'profile_vector (from "embedding"): is all zeros: a zero vector has no direction to compare' },
      ]);
      expect(report.imported).toBe(3);
      expect(run.snapshot().map((o) => o.id)).toEqual([1, 2, 4]);

      expect(asArray(await run.store.getVector(1, "profile"))).toEqual(f32([0.6, 0, 0.8, 0]));
      expect(asArray(await run.store.getVector(1, "customer"))).toEqual([0, 1, 0, 0]);
      expect(asArray(await run.store.getVector(2, "profile"))).toEqual([0, 0, 0, 1]);
      expect(await run.store.getVector(2, "customer")).toBeNull();
      expect(await run.store.getVector(4, "customer")).not.toBeNull();
      // only the row without given vectors reached the model
      expect(run.embedded).toEqual(["Dogwood. Seeds.", "Farmers"]);
    });
  }

  it("a later row with the same id wins with its own vectors, or with none", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "orgsim-given-")), "repeat.ndjson");
    const rows = [
      { id: 1, name: "Alder", embedding: [1, 0, 0, 0] },
      { id: 2, name: "Birch", embedding: [0, 1, 0, 0] },
      { id: 1, name: "Alder", embedding: [0, 0, 2, 0] },
      { id: 2, name: "Birch" },
    ];
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n"));
    const run = importThroughService(file, givenVectorsMapping, 64);
    expect((await run.report).duplicates).toBe(2);
    expect(asArray(await run.store.getVector(1, "profile"))).toEqual([0, 0, 1, 0]);
    expect(run.embedded).toEqual(["Birch"]);
  });

  it("keeps the vectors out of the organization", async () => {
    const run = importThroughService(fixture("given-vectors.ndjson"), givenVectorsMapping, 64);
    await run.report;
    const alder = run.snapshot()[0];
    expect(alder).toMatchObject({ id: 1, name: "Alder", customer_description: "Hospital buyers" });
    expect(JSON.stringify(alder)).not.toMatch(/vector|embedding/);
  });
});

describe("importing given vectors (CSV)", () => {
  it("reads numbers separated by spaces or commas, with or without brackets; a row without one is embedded", async () => {
    const run = importThroughService(fixture("given-vectors.csv"), csvMapping, 64);
    const report = await run.report;
    expect([...report.failed].sort(byLine)).toEqual([
      { line: 4, message: `profile_vector (from "vector"): has 5 dimensions; expected 4, ${MODEL}` },
      { line: 6, message: 'profile_vector (from "vector"): item 1 is "zero", not a finite number' },
    ]);
    expect(report.imported).toBe(3);
    const norm = Math.hypot(0.1, 0.2, 0.3, 0.4);
    expect(asArray(await run.store.getVector(1, "profile"))).toEqual(f32([0.1, 0.2, 0.3, 0.4].map((x) => x / norm)));
    expect(asArray(await run.store.getVector(2, "profile"))).toEqual([0, 0, 1, 0]);
    expect(asArray(await run.store.getVector(4, "profile"))).toHaveLength(4);
    // the profile of Dogwood alone; Alder's customer text (the description's sentence about hospitals) is embedded, as no customer_vector is mapped
    expect(run.embedded).toEqual(["Dogwood. Seeds", "Dashboards for hospitals"]);
  });
});

describe("the vector mapping keys", () => {
  const parsed = parseMapping(givenVectorsMapping);
  const ok = (result: MapResult) => {
    if (!result.ok) throw new Error(result.message);
    return result;
  };
  const vectorOf = (value: unknown, rule: unknown = "v") =>
    mapRecord({ id: 1, name: "A", v: value, w: [0.5, "1e-3"] }, parseMapping({ format: "ndjson", id: "id", fields: { name: "name", profile_vector: rule } }));

  it("are rules of their own, not organization fields", () => {
    expect(parsed.fields.map((f) => f.key)).toEqual(["name", "description", "customer_description"]);
    expect(parsed.vectors).toMatchObject([
      { key: "profile_vector", from: ["embedding"] },
      { key: "customer_vector", from: ["customer_embedding"] },
    ]);
  });

  it("read a JSON array, a text holding one, numbers separated by commas or spaces, and several columns", () => {
    const profile = (value: unknown, rule?: unknown) => ok(vectorOf(value, rule)).vectors?.profile;
    expect(profile([1, -2.5, 3e-2])).toEqual([1, -2.5, 0.03]);
    expect(profile("[1, -2.5, 3e-2]")).toEqual([1, -2.5, 0.03]);
    expect(profile(" 1,-2.5 ,\t3e-2 ")).toEqual([1, -2.5, 0.03]);
    expect(profile("[1 -2.5 0.03]")).toEqual([1, -2.5, 0.03]);
    expect(profile(null, { from: ["v", "w"] })).toEqual([0.5, 0.001]);
    expect(profile("1|2", { from: "v", transform: { split: "|" } })).toEqual([1, 2]);
  });

  it("leave a row without a vector to the model", () => {
    expect(ok(vectorOf(null)).vectors).toBeNull();
    expect(ok(vectorOf("  ")).vectors).toBeNull();
    expect(ok(vectorOf([])).vectors).toBeNull();
    expect(ok(mapRecord({ id: 1, name: "A" }, parseMapping({ format: "ndjson", id: "id", fields: { name: "name" } }))).vectors).toBeNull();
  });

  it("fail the row, naming the key and its source, when the value is not a list of numbers", () => {
    const message = (value: unknown) => {
      const result = vectorOf(value);
      return result.ok ? "accepted" : result.message;
    };
    expect(message("[1, 2, x]")).toBe('profile_vector (from "v"): item 2 is "x", not a finite number');
    expect(message([1, true])).toBe('profile_vector (from "v"): item 1 is true, not a finite number');
    expect(message([1, [2]])).toBe('profile_vector (from "v"): item 1 is [2], not a finite number');
    expect(message("1, NaN")).toBe('profile_vector (from "v"): item 1 is "NaN", not a finite number');
    expect(message("[1, 1e999]")).toBe('profile_vector (from "v"): item 1 is "1e999", not a finite number');
    expect(message(JSON.parse("[1, 1e999]"))).toBe('profile_vector (from "v"): item 1 is Infinity, not a finite number');
    expect(message(42)).toBe('profile_vector (from "v"): expected a list of numbers, got 42');
    expect(message({ values: [1] })).toBe('profile_vector (from "v"): expected a list of numbers, got {"values":[1]}');
  });

  it('refuse on_invalid "null" and suggest the key on a typo', () => {
    const errorOf = (fields: Record<string, unknown>) => {
      try {
        parseMapping({ format: "ndjson", id: "id", fields: { name: "name", ...fields } });
      } catch (error) {
        return (error as MappingError).message;
      }
      throw new Error("expected a MappingError");
    };
    expect(errorOf({ customer_vector: { from: "e", on_invalid: "null" } })).toContain(
      'fields.customer_vector.on_invalid: a given vector is not left for the model to fill: on_invalid "null" is not allowed here',
    );
    expect(errorOf({ profile_vectr: "e" })).toContain('fields.profile_vectr: unknown organization field (did you mean "profile_vector"?)');
  });
});
