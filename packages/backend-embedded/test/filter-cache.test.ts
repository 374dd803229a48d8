import type { OrganizationFilter, OrganizationRecord } from "@orgsim/core";
import { randomRecords } from "@orgsim/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EmbeddedBackend, openEmbeddedBackend } from "../src/index";
import { tempDir } from "./temp-dir";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };
const FILTER: OrganizationFilter = { employeesMin: 500 };

/** An organization passing FILTER or not, with a profile vector equal to `vector` and the word "zyxwv" in its description. */
function variant(record: OrganizationRecord, employees: number, vector: Float32Array): OrganizationRecord {
  const organization = { ...record.organization, description: `${record.organization.description ?? ""} zyxwv` };
  organization.metrics = { ...organization.metrics, employee_count: employees, employee_range: null };
  return { ...record, organization, profileVector: vector };
}

describe("embedded: filter results are cached per filter and never outlive a write", () => {
  let dir: ReturnType<typeof tempDir>;
  let backend: EmbeddedBackend;
  const records = randomRecords(300, DIM, 21);
  const query = (records[0] as OrganizationRecord).profileVector;
  const ranked = async () => (await backend.organizations.rank({ vector: query, kind: "profile", filter: FILTER, offset: 0, size: 5 })).map((hit) => hit.id);
  const byWord = () => backend.organizations.searchText({ text: "zyxwv", kind: "profile", filter: FILTER, size: 5 });

  beforeEach(async () => {
    dir = tempDir();
    backend = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { kind: "exact" } });
    await backend.organizations.upsert(
      records.map((r) => ({ ...r, organization: { ...r.organization, metrics: { ...r.organization.metrics, employee_count: 10, employee_range: null } } })),
      MODEL,
    );
  });
  afterEach(async () => {
    await backend.close();
    dir.remove();
  });

  it("sees an organization that starts or stops passing the filter, and one removed", async () => {
    expect(await ranked()).toEqual([]);
    expect(await byWord()).toEqual([]);
    const target = records[5] as OrganizationRecord;
    await backend.organizations.upsert([variant(target, 1000, query)], MODEL);
    expect(await ranked()).toEqual([target.organization.id]);
    expect(await byWord()).toEqual([target.organization.id]);

    await backend.organizations.upsert([variant(target, 20, query)], MODEL);
    expect(await ranked()).toEqual([]);
    expect(await byWord()).toEqual([]);

    await backend.organizations.upsert([variant(target, 1000, query)], MODEL);
    expect(await ranked()).toEqual([target.organization.id]);
    await backend.organizations.delete(target.organization.id);
    expect(await ranked()).toEqual([]);
    expect(await byWord()).toEqual([]);
  });

  it("leaves a query's excluded organizations out without changing what the filter's next query sees", async () => {
    const [a, b] = [records[7], records[8]] as [OrganizationRecord, OrganizationRecord];
    await backend.organizations.upsert([variant(a, 900, query), variant(b, 900, query)], MODEL);
    const excluded = await backend.organizations.searchText({
      text: "zyxwv",
      kind: "profile",
      filter: { ...FILTER, excludeIds: [a.organization.id] },
      size: 5,
    });
    expect(excluded).toEqual([b.organization.id]);
    expect((await byWord()).sort()).toEqual([a.organization.id, b.organization.id].sort());
  });
});
