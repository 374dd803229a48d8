/**
 * customerBaseFigures on Elasticsearch specifically: the stated flag of an index made before it
 * existed (schema 3) is added in place, and quantized scores without re-scoring (oversample 0)
 * take the float vectors instead, as similarities() does. (The port's contract runs in organization-store.test.ts.)
 */
import { hasExplicitCustomerText, type OrganizationRecord } from "@orgsim/core";
import { randomRecords, rng, unitVector } from "@orgsim/testing";
import { afterAll, describe, expect, it } from "vitest";
import { indexNames } from "../src/index";
import { organizationMappings, toDocument, WORD_SETTINGS } from "../src/organization-document";
import { prefixes, rawClient } from "./helpers";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };
const indices = prefixes("figures");
afterAll(() => indices.cleanup());

/** Records where the stated text and the customer vector disagree now and then (extracted customers). */
function records(): OrganizationRecord[] {
  const random = rng(2);
  return randomRecords(80, DIM, 2).map((r, i) =>
    i % 4 === 0 ? { ...r, organization: { ...r.organization, customer_description: null }, customerVector: unitVector(DIM, random) } : r,
  );
}

describe("elasticsearch: customer-base figures", () => {
  it("adds customer_stated to an index of schema 3 on first use, from each stored organization", async () => {
    const prefix = indices.next();
    const { organizations: name } = indexNames(prefix);
    const client = rawClient();
    const mappings = organizationMappings(DIM, "int8_hnsw", MODEL);
    const { customer_stated: _, ...properties } = mappings.properties ?? {};
    await client.indices.create({
      index: name.index,
      aliases: { [name.alias]: {} },
      settings: { number_of_shards: 1, number_of_replicas: 0, ...WORD_SETTINGS },
      mappings: { ...mappings, properties, _meta: { orgsim_schema: 3, model_id: MODEL.modelId, dimension: DIM } },
    });
    const written = records();
    // Documents as schema 3 wrote them: every field but customer_stated.
    const schema3 = (r: OrganizationRecord) => {
      const { customer_stated: _, ...doc } = toDocument(r);
      return doc;
    };
    await client.bulk({ operations: written.flatMap((r) => [{ index: { _index: name.alias, _id: String(r.organization.id) } }, schema3(r)]), refresh: true });

    const backend = await indices.open({}, prefix);
    try {
      const figures = await backend.organizations.customerBaseFigures(
        unitVector(DIM, rng(3)),
        written.map((r) => r.organization.id),
      );
      expect(figures.size).toBe(written.length);
      expect(written.filter((r) => figures.get(r.organization.id)?.customerStated !== hasExplicitCustomerText(r.organization))).toEqual([]);
      expect(written.some((r) => r.customerVector && !hasExplicitCustomerText(r.organization))).toBe(true);
      const mapping = (await client.indices.getMapping({ index: name.alias }))[name.index]?.mappings;
      expect(mapping?._meta).toMatchObject({ orgsim_schema: 4 });
      expect(mapping?.properties?.customer_stated).toEqual({ type: "boolean" });
    } finally {
      await backend.close();
      await client.close();
    }
  });

  it("without re-scoring (oversample 0), gives the float vectors' cosines, as similarities() does", async () => {
    const backend = await indices.open({ oversample: 0 });
    try {
      const store = backend.organizations;
      const written = records();
      await store.upsert(written, MODEL);
      const query = unitVector(DIM, rng(4));
      const ids = written.map((r) => r.organization.id);
      const [figures, customer, profile] = await Promise.all([
        store.customerBaseFigures(query, ids),
        store.similarities(query, "customer", ids),
        store.similarities(query, "profile", ids),
      ]);
      for (const { organization } of written) {
        const f = figures.get(organization.id);
        expect(f).toEqual({
          customer: customer.get(organization.id) ?? null,
          profile: profile.get(organization.id),
          customerStated: hasExplicitCustomerText(organization),
        });
      }
    } finally {
      await backend.close();
    }
  });
});
