/**
 * Word search on Elasticsearch specifically: its analyzer produces exactly the core's terms, and an
 * index made before word search is upgraded in place without losing anything. (The ranking itself
 * is checked against a brute-force BM25 by the shared OrganizationStore contract.)
 */
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { lexicalTerms, type OrganizationFilter, type OrganizationRecord, type VectorKind } from "@orgsim/core";
import { expectedText, location, randomRecords, rng, unitVector } from "@orgsim/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type ElasticsearchBackend, indexNames } from "../src/index";
import { organizationMappings, VECTOR_FIELD } from "../src/organization-document";
import { prefixes, rawClient, url } from "./helpers";

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
        expect(
          analyzed.tokens?.map((t) => t.token),
          text,
        ).toEqual(lexicalTerms(text));
      }
      await client.close();
    } finally {
      await backend.close();
    }
  });

  it("upgrades an index made before word search in place: documents, vectors and counts unchanged, words and names found", async () => {
    const prefix = indices.next();
    const { organizations: name } = indexNames(prefix);
    const client = rawClient();
    // An index exactly as schema 1 made it: no word fields, no analyzer, no lookup keys, no customer_stated.
    const mappings = organizationMappings(DIM, "int8_hnsw", MODEL);
    const properties = { ...mappings.properties };
    for (const field of ["profile_text", "customer_text", "name_key", "name_words", "domain_key", "customer_stated"]) delete properties[field];
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
      expect(mapping?._meta).toMatchObject({ orgsim_schema: 4, model_id: MODEL.modelId });
      // The lookup keys too (synthetic organization n is "Org n" at orgn.example).
      expect(await store.lookUp({ words: ["org", "701"], size: 5 })).toEqual({ namePrefix: [701], allWords: [701], wordPrefixes: [701] });
      expect(await store.lookUp({ words: [], domain: "org1200.example", size: 5 })).toEqual({ namePrefix: [], allWords: [], wordPrefixes: [1200] });
      // Writes work again with the new fields (the mapping is strict).
      await store.upsert(
        [{ ...(records[0] as OrganizationRecord), organization: { ...(records[0] as OrganizationRecord).organization, description: "Deep sea cables" } }],
        MODEL,
      );
      expect(await store.searchText({ text: "cables", kind: "profile", filter: {}, size: 10 })).toEqual([1]);
    } finally {
      await backend.close();
      await client.close();
    }
  });
});

describe("elasticsearch: word ranking", () => {
  let backend: ElasticsearchBackend | undefined;
  afterEach(async () => {
    await backend?.close();
    backend = undefined;
  });

  /** Records whose profile text is `name` and `description`, with customer texts on every other one. */
  const worded = (texts: [name: string, description: string][], seed = 1): OrganizationRecord[] => {
    const random = rng(seed);
    return randomRecords(texts.length, DIM, seed).map((r, i) => {
      const [name, description] = texts[i] as [string, string];
      const customer = i % 2 === 0 ? `${description} buyers` : null;
      return {
        organization: { ...r.organization, name, description, categories: [], customer_description: customer },
        profileVector: r.profileVector,
        customerVector: customer ? unitVector(DIM, random) : null,
      };
    });
  };

  it("answers an empty ranking and no similarities while there is no index", async () => {
    backend = await indices.open();
    const store = backend.organizations;
    expect(await store.searchText({ text: "robots", kind: "profile", filter: {}, size: 10 })).toEqual([]);
    expect(await store.similarities(unitVector(DIM, rng(1)), "profile", [1, 2])).toEqual(new Map());
  });

  it("puts the organization the query names first, and finds nothing, without error, for a text without terms", async () => {
    backend = await indices.open();
    const store = backend.organizations;
    const records = worded([
      ["Harbor Freight Analytics", "Freight freight freight: rates for freight brokers"],
      ["Northwind Freight", "Software for shipping lines"],
      ["Northwind Bakery", "Bread and freight of flour"],
      ["Bluewater Logistics", "Freight forwarding by sea"],
      ["Plain Company", "Nothing to see"],
    ]);
    await store.upsert(records, MODEL);
    const got = await store.searchText({ text: "Northwind Freight", kind: "profile", filter: {}, size: 10 });
    expect(got[0]).toBe(2);
    expect(got).toEqual(expectedText(records, "Northwind Freight", "profile", {}).map((h) => h.id));
    expect(got).not.toContain(5);
    for (const text of ["", "   ", "The of AND a", "!!! --- ??? …"]) {
      expect(lexicalTerms(text)).toEqual([]);
      expect(await store.searchText({ text, kind: "profile", filter: {}, size: 10 }), JSON.stringify(text)).toEqual([]);
    }
  });

  it("ranks equal texts by id ascending, also when written highest id first in several batches", async () => {
    backend = await indices.open();
    const store = backend.organizations;
    const records = worded(Array.from({ length: 30 }, () => ["Same Name", "Identical description of a tie"] as [string, string]));
    const reversed = [...records].reverse();
    for (let i = 0; i < reversed.length; i += 10) await store.upsert(reversed.slice(i, i + 10), MODEL);
    const search = (filter: OrganizationFilter, size: number) => store.searchText({ text: "identical tie", kind: "profile", filter, size });
    expect(await search({}, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(await search({ excludeIds: [1, 2, 4] }, 4)).toEqual([3, 5, 6, 7]);
    expect(await search({}, 100)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it("ranks on several shards as on one: BM25 statistics of the whole index, filters, customer texts, excluded ids", async () => {
    const prefix = indices.next();
    backend = await indices.open({ shards: 3 }, prefix);
    const store = backend.organizations;
    const vocabulary = "payments fraud robots warehouse logistics solar battery clinic patients dental insurance freight".split(" ");
    const random = rng(17);
    const words = (n: number) => Array.from({ length: n }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(" ");
    const records = randomRecords(240, DIM, 23).map((r) => ({
      ...r,
      organization: {
        ...r.organization,
        description: `${words(2 + Math.floor(random() * 8))}.`,
        categories: [],
        ...(r.organization.customer_description ? { customer_description: words(1 + Math.floor(random() * 5)) } : {}),
      },
    }));
    await store.upsert(records, MODEL);
    const client = rawClient();
    const settings = await client.indices.getSettings({ index: indexNames(prefix).organizations.alias });
    expect(Object.values(settings)[0]?.settings?.index?.number_of_shards).toBe("3");
    await client.close();
    const cases: [string, VectorKind, OrganizationFilter][] = [
      ["robots warehouse", "profile", {}],
      ["solar battery insurance", "profile", location(["FR", "DE"], ["US-CA"], false)],
      ["clinic patients dental", "profile", { fundingStages: ["seed", "series_a", "growth"], excludeIds: [3, 5, 8] }],
      ["payments fraud", "customer", {}],
      ["freight logistics", "customer", { employeesMin: 10, foundedYearMin: 1980 }],
    ];
    for (const [text, kind, filter] of cases) {
      const want = expectedText(records, text, kind, filter).map((h) => h.id);
      expect(want.length, text).toBeGreaterThan(3);
      expect(await store.searchText({ text, kind, filter, size: 1000 }), text).toEqual(want);
      expect(await store.searchText({ text, kind, filter, size: 3 }), text).toEqual(want.slice(0, 3));
    }
    const withCustomer = new Set(records.filter((r) => r.customerVector).map((r) => r.organization.id));
    const customers = await store.searchText({ text: vocabulary.join(" "), kind: "customer", filter: {}, size: 1000 });
    expect(new Set(customers)).toEqual(withCustomer);
  });

  it("similarities are the cosines search() reports, exactly, and leave out missing documents and vectors", async () => {
    backend = await indices.open();
    const store = backend.organizations;
    const records = randomRecords(40, DIM, 31);
    await store.upsert(records, MODEL);
    const query = unitVector(DIM, rng(5));
    for (const kind of ["profile", "customer"] as VectorKind[]) {
      const hits = await store.search({ vector: query, kind, filter: {}, offset: 0, size: 40 });
      const ids = [...records.map((r) => r.organization.id), 404, 1, 1];
      const got = await store.similarities(query, kind, ids);
      expect(new Map(hits.map((h) => [h.organization.id, h.score]))).toEqual(got);
    }
  });

  it("an organization's term statistics take one request beside its fetch where one shard's are exact, and count live texts where not", async () => {
    const proxy = await recordingProxy(url());
    try {
      for (const shards of [1, 2]) {
        backend = await indices.open({ url: proxy.url, shards });
        const store = backend.organizations;
        await store.upsert(randomRecords(30, DIM, 41), MODEL);
        const want = async () => {
          const frequency = (await store.organizationTermStatistics(3, "profile"))?.frequency ?? new Map<string, number>();
          return { frequency, statistics: await store.termStatistics([...frequency.keys()], "profile") };
        };
        proxy.paths.length = 0;
        const fresh = await store.organizationTermStatistics(3, "profile");
        const asked = [...proxy.paths];
        expect(fresh).toEqual(await want());
        // One shard and no deletion: the term vectors' statistics are exact, so nothing is counted after them.
        expect(
          asked.some((p) => p.includes("/_search")),
          asked.join(" "),
        ).toBe(shards > 1);
        expect(asked.some((p) => p.includes("/_termvectors/3"))).toBe(true);
        await store.delete(5);
        proxy.paths.length = 0;
        const afterDelete = await store.organizationTermStatistics(3, "profile");
        expect(proxy.paths.some((p) => p.includes("/_search"))).toBe(true);
        expect(afterDelete).toEqual(await want());
        expect(afterDelete?.statistics.documents).toBe(29);
        await backend.close();
        backend = undefined;
      }
    } finally {
      proxy.close();
    }
  });
});

/** A proxy to Elasticsearch at `target` that keeps the path of every request. */
async function recordingProxy(target: string) {
  const paths: string[] = [];
  const server = createServer((request, response) => {
    paths.push(request.url ?? "");
    const forwarded = httpRequest(`${target.replace(/\/$/, "")}${request.url}`, { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    forwarded.on("error", (error) => response.writeHead(502).end(error.message));
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, close: () => server.close() };
}
