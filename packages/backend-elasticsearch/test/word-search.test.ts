/**
 * Word search on Elasticsearch specifically: its analyzer produces exactly the core's terms, and an
 * index made before word search is upgraded in place without losing anything. (The ranking itself
 * is checked against a brute-force BM25 by the shared OrganizationStore contract.)
 */
import { lexicalTerms, type OrganizationRecord } from "@orgsim/core";
import { randomRecords } from "@orgsim/testing";
import { afterAll, describe, expect, it } from "vitest";
import { indexNames } from "../src/index";
import { organizationMappings, VECTOR_FIELD } from "../src/organization-document";
import { prefixes, rawClient } from "./helpers";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };
const indices = prefixes("words");
afterAll(() => indices.cleanup());

describe("elasticsearch: word search", () => {
  it("analyzes texts into exactly the terms of the core's lexicalTerms", async () => {
    const prefix = indices.next();
    const backend = await indices.open({}, prefix);
    try {
      await backend.organizations.upsert(randomRecords(1, DIM, 1), MODEL);
      const client = rawClient();
      const texts = [
        "We build ROBOTS for the warehouse: 3D-printing, e-commerce & B2B in Zürich (2024)!",
        "the of and a I x",
        "数据 平台 données Ärzte ÉCOLE naïve",
        "AI/ML-powered SaaS — 24/7 support; 10,000+ customers; U.S.A. & co.",
        "O'Reilly's don't self-driving café_bar x_y",
        "U.S.A. don't O'Reilly's 10,000+ 1.5x café_bar a:b a.5 __ x_",
        "数据平台 données ™ ® 🇪🇺 über-fast Ünïcödé ½ 3×4",
      ];
      for (const text of texts) {
        const analyzed = await client.indices.analyze({ index: indexNames(prefix).organizations.alias, analyzer: "orgsim_text", text });
        expect(analyzed.tokens?.map((t) => t.token), text).toEqual(lexicalTerms(text));
      }
      await client.close();
    } finally {
      await backend.close();
    }
  });

  it("upgrades an index made before word search in place: documents, vectors and counts unchanged, words found", async () => {
    const prefix = indices.next();
    const { organizations: name } = indexNames(prefix);
    const client = rawClient();
    // An index exactly as the previous schema made it: no word fields, no analyzer, schema 1.
    const mappings = organizationMappings(DIM, "int8_hnsw", MODEL);
    const properties = { ...mappings.properties };
    delete properties.profile_text;
    delete properties.customer_text;
    await client.indices.create({
      index: name.index,
      aliases: { [name.alias]: {} },
      settings: { number_of_shards: 1, number_of_replicas: 0 },
      mappings: { ...mappings, properties, _meta: { orgsim_schema: 1, model_id: MODEL.modelId, dimension: DIM } },
    });
    const records: OrganizationRecord[] = randomRecords(1200, DIM, 3).map((r, i) => ({
      ...r,
      organization: { ...r.organization, description: i === 700 ? "Orbital satellite imagery for insurers" : `Plain company ${i}` },
    }));
    const old = (r: OrganizationRecord) => ({
      id: r.organization.id,
      location_countries: [],
      location_subdivisions: [],
      categories: r.organization.categories,
      [VECTOR_FIELD.profile]: Array.from(r.profileVector),
      ...(r.customerVector ? { [VECTOR_FIELD.customer]: Array.from(r.customerVector) } : {}),
      doc: r.organization,
    });
    await client.bulk({ operations: records.flatMap((r) => [{ index: { _index: name.alias, _id: String(r.organization.id) } }, old(r)]), refresh: true });

    const backend = await indices.open({}, prefix);
    try {
      const store = backend.organizations;
      // Several first searches at once share the one upgrade.
      const first = await Promise.all(Array.from({ length: 4 }, () => store.searchText({ text: "satellite imagery", kind: "profile", filter: {}, size: 10 })));
      expect(first).toEqual(Array.from({ length: 4 }, () => [701]));
      expect(await store.count()).toBe(1200);
      for (const r of [records[0], records[700], records[1199]] as OrganizationRecord[]) {
        expect(await store.get(r.organization.id)).toEqual(r.organization);
        expect(await store.getVector(r.organization.id, "profile")).toEqual(r.profileVector);
      }
      const found = await store.searchText({ text: "plain company", kind: "profile", filter: {}, size: 2000 });
      expect(found).toHaveLength(1199);
      // Customer words only beside a customer vector.
      const withCustomer = records.filter((r) => r.customerVector).length;
      const customers = await store.searchText({ text: "some customers", kind: "customer", filter: {}, size: 2000 });
      expect(customers).toHaveLength(withCustomer);
      const mapping = (await client.indices.getMapping({ index: name.alias }))[name.index]?.mappings;
      expect(mapping?._meta).toMatchObject({ orgsim_schema: 2, model_id: MODEL.modelId });
      // Writes work again with the new fields (the mapping is strict).
      await store.upsert([{ ...(records[0] as OrganizationRecord), organization: { ...(records[0] as OrganizationRecord).organization, description: "Deep sea cables" } }], MODEL);
      expect(await store.searchText({ text: "cables", kind: "profile", filter: {}, size: 10 })).toEqual([1]);
    } finally {
      await backend.close();
      await client.close();
    }
  });
});
