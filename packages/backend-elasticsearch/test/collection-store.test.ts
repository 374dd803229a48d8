import type { EntityType } from "@orgsim/core";
import { describeCollectionStoreContract, expectOneType, item, newCollection as create } from "@orgsim/testing/contracts";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ElasticsearchBackend, itemIdOf } from "../src/index";
import { prefixes, rawClient } from "./helpers";

const indices = prefixes("cols");
afterAll(() => indices.cleanup());

/** Items of one collection as stored, read straight from the index. */
async function storedItems(prefix: string, collectionId: string) {
  const client = rawClient();
  await client.indices.refresh({ index: `${prefix}-items` });
  const response = await client.search<{ entity_type: string; collection_id: string }>({
    index: `${prefix}-items`,
    query: { term: { collection_id: collectionId } },
    size: 10_000,
  });
  await client.close();
  return response.hits.hits.map((h) => h._source as { entity_type: string; collection_id: string });
}

describeCollectionStoreContract("elasticsearch", {
  async open() {
    const prefix = indices.next();
    let backend = await indices.open({}, prefix);
    return {
      get store() {
        return backend.collections;
      },
      async reopen() {
        await backend.close();
        backend = await indices.open({}, prefix);
        return backend.collections;
      },
      cleanup: () => backend.close(),
      storedItems: (collectionId: string) => storedItems(prefix, collectionId),
    };
  },
  itemIdOf,
});

describe("elasticsearch: items in the index", () => {
  let backend: ElasticsearchBackend;
  let prefix: string;
  const newCollection = (tenant = "acme") => create(backend.collections, tenant);

  beforeEach(async () => {
    prefix = indices.next();
    backend = await indices.open({}, prefix);
  });
  afterEach(() => backend.close());

  it("deleting a collection deletes its items (more than one page of them), and only its own", async () => {
    const c = await newCollection();
    const keep = await newCollection();
    for (let i = 0; i < 3; i++)
      await backend.collections.addItems(
        "acme",
        c.id,
        Array.from({ length: 1000 }, (_, n) => item("person", i * 1000 + n)),
      );
    await backend.collections.addItems("acme", keep.id, [item("person", 1)]);
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ item_count: 3000 });
    expect(await backend.collections.delete("acme", c.id)).toBe(true);
    const client = rawClient();
    const counts = await client.search({ index: `${prefix}-items`, size: 0, aggs: { by: { terms: { field: "collection_id" } } } });
    expect((counts.aggregations?.by as { buckets: unknown[] } | undefined)?.buckets).toEqual([{ key: keep.id, doc_count: 1 }]);
    await client.close();
    expect(await backend.collections.get("acme", keep.id)).toMatchObject({ item_count: 1 });
  });

  it("a first add Elasticsearch refuses leaves the collection untyped: another type may be added", async () => {
    const c = await newCollection();
    // A keyword term over 32,766 bytes: Lucene refuses the document (a limit the schema does not state).
    const refused = backend.collections.addItems("acme", c.id, [item("person", 1), item("person", 2, { tags: ["x".repeat(40_000)] })]);
    await expect(refused).rejects.toMatchObject({ code: "INTERNAL", message: expect.stringContaining("nothing was added") });
    await expect(refused).rejects.toMatchObject({ message: expect.not.stringMatching(/immense|exception/) });
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ entity_type: null, item_count: 0 });
    expect(await backend.collections.addItems("acme", c.id, [item("organization", 7)])).toHaveLength(1);
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ entity_type: "organization", item_count: 1 });
  });

  it("a claimed type with no item, older than typeClaimMs (a killed first add), counts as no type", async () => {
    // Long enough that the claim still holds when the first add below reads it, on a machine busy
    // with other suites (at 300 ms it had lapsed there).
    const claimMs = 2_000;
    const shortClaims = await indices.open({ typeClaimMs: claimMs }, prefix);
    const c = await newCollection();
    // What a first add killed between fixing the type and writing its items leaves behind.
    const client = rawClient();
    const stored = (await client.get<Record<string, unknown>>({ index: `${prefix}-collections`, id: c.id }))._source;
    await client.index({
      index: `${prefix}-collections`,
      id: c.id,
      document: { ...stored, entity_type: "person", type_claimed_at: new Date().toISOString() },
      refresh: true,
    });
    await client.close();
    // While the add could still be running, the claim holds.
    await expect(shortClaims.collections.addItems("acme", c.id, [item("organization", 7)])).rejects.toMatchObject({ code: "ENTITY_TYPE_MISMATCH" });
    await new Promise((resolve) => setTimeout(resolve, claimMs + 100));
    expect(await shortClaims.collections.get("acme", c.id)).toMatchObject({ entity_type: null, item_count: 0 });
    expect(await shortClaims.collections.addItems("acme", c.id, [item("organization", 7)])).toHaveLength(1);
    // Confirmed by its items, the type stays once they are gone.
    const [only] = (await shortClaims.collections.listItems("acme", c.id, { limit: 1 }))?.data ?? [];
    await shortClaims.collections.deleteItem("acme", c.id, only?.id as string);
    await new Promise((resolve) => setTimeout(resolve, claimMs + 100));
    expect(await shortClaims.collections.get("acme", c.id)).toMatchObject({ entity_type: "organization", item_count: 0 });
    await shortClaims.close();
  });

  it("four clients (separate connections) racing with batches on one empty collection: one type wins", async () => {
    const others = await Promise.all([1, 2, 3].map(() => indices.open({}, prefix)));
    const clients = [backend, ...others];
    const types: EntityType[] = ["organization", "person", "product", "address"];
    const c = await newCollection();
    const calls = Array.from({ length: 120 }, (_, i) => {
      const w = i % 4;
      const type = types[w] as EntityType;
      return (clients[w] as ElasticsearchBackend).collections.addItems("acme", c.id, [item(type, i + 1), item(type, i + 1001), item(type, i + 2001)]);
    });
    const results = await Promise.allSettled(calls);
    const fulfilled = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
    const rejected = results.filter((r) => r.status === "rejected");
    expect(rejected.every((r) => (r.reason as { code: string }).code === "ENTITY_TYPE_MISMATCH")).toBe(true);
    const winners = new Set(fulfilled.map((i) => i % 4));
    expect(winners.size).toBe(1);
    expect(fulfilled).toHaveLength(30);
    const winner = types[[...winners][0] as number] as EntityType;
    await expectOneType(backend.collections, c.id, winner, 90);
    const raw = await storedItems(prefix, c.id);
    expect(raw).toHaveLength(90);
    expect(new Set(raw.map((i) => i.entity_type))).toEqual(new Set([winner]));
    await Promise.all(others.map((o) => o.close()));
  });
});
