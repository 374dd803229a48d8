/** The `CollectionStore` contract: cases every backend must pass, run by each backend's tests with its own factory. */
import { type Collection, type CollectionStore, ENTITY_TYPES, type EntityType, EXPORT_STORE_PAGE, type NewItem } from "@orgsim/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/** A fresh, empty store, and how to dispose of it. */
export interface OpenedCollectionStore {
  store: CollectionStore;
  /** Closes the store and opens it again on the same data; the handle's `store` is then the new one. */
  reopen(): Promise<CollectionStore>;
  cleanup(): Promise<void>;
  /** The items of one collection as the backend stored them, read around the store (to check nothing else was written). */
  storedItems?(collectionId: string): Promise<{ entity_type: string }[]>;
}

export interface CollectionStoreContractOptions {
  /** Opens a fresh, empty store. */
  open(): Promise<OpenedCollectionStore>;
  /** The item id a backend derives from (collection, entity), when it derives one. */
  itemIdOf?(collectionId: string, entityId: string): string;
}

export const item = (entity_type: EntityType, entity_id: string | number, more: Partial<NewItem> = {}): NewItem => ({
  entity_type,
  entity_id: String(entity_id),
  ...more,
});
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const newCollection = (store: CollectionStore, tenant = "acme", entity_type: EntityType | null = null) =>
  store.create(tenant, { name: "Leads", description: "to call", entity_type });

/** Every item of a collection, page by page. */
export async function allItems(store: CollectionStore, tenant: string, collectionId: string) {
  const all = [];
  let cursor: string | null | undefined;
  do {
    const page = await store.listItems(tenant, collectionId, { limit: 100, ...(cursor ? { cursor } : {}) });
    all.push(...(page?.data ?? []));
    cursor = page?.next_cursor;
  } while (cursor);
  return all;
}

/** After a race: exactly one type, and only items of it (read through the store). */
export async function expectOneType(store: CollectionStore, collectionId: string, winner: EntityType, stored: number) {
  expect(await store.get("acme", collectionId)).toMatchObject({ entity_type: winner, item_count: stored });
  const all = await allItems(store, "acme", collectionId);
  expect(all).toHaveLength(stored);
  expect(new Set(all.map((i) => i.entity_type))).toEqual(new Set([winner]));
}

export function describeCollectionStoreContract(name: string, options: CollectionStoreContractOptions): void {
  describe(`${name}: CollectionStore contract`, () => {
    let opened: OpenedCollectionStore;
    // Always the handle's current store (it changes on reopen).
    const store = () => opened.store;
    const create = (tenant = "acme", entity_type: EntityType | null = null) => newCollection(store(), tenant, entity_type);
    const storedItems = async (collectionId: string, check: (items: { entity_type: string }[]) => void) => {
      if (opened.storedItems) check(await opened.storedItems(collectionId));
    };

    beforeEach(async () => {
      opened = await options.open();
    });
    afterEach(() => opened.cleanup());

    describe("collections", () => {
      it("creates a collection with no type yet, and gets it back", async () => {
        const created = await create();
        expect(created).toEqual({
          id: expect.stringMatching(/^col_[A-Za-z0-9_-]{22}$/),
          name: "Leads",
          description: "to call",
          entity_type: null,
          item_count: 0,
          created_at: expect.stringMatching(ISO),
          updated_at: created.created_at,
        });
        expect(await store().get("acme", created.id)).toEqual(created);
        expect(await store().get("acme", "col_nope")).toBeNull();
      });

      it("renames and deletes", async () => {
        const c = await create();
        const renamed = await store().update("acme", c.id, { name: "Prospects", description: null });
        expect(renamed).toMatchObject({ id: c.id, name: "Prospects", description: null, entity_type: null, item_count: 0 });
        expect(await store().update("acme", c.id, { description: "kept name" })).toMatchObject({ name: "Prospects", description: "kept name" });
        expect(await store().get("acme", c.id)).toMatchObject({ name: "Prospects", description: "kept name" });
        expect(await store().update("acme", "col_missing", { name: "x" })).toBeNull();
        expect(await store().delete("acme", c.id)).toBe(true);
        expect(await store().delete("acme", c.id)).toBe(false);
        expect(await store().get("acme", c.id)).toBeNull();
      });

      it("lists in cursor pages ordered by (created_at, id), with item counts", async () => {
        const made: Collection[] = [];
        for (let i = 0; i < 25; i++) made.push(await create());
        await create("other");
        await store().addItems("acme", made[3]?.id as string, [item("person", 1), item("person", 2)]);
        const seen = [];
        let cursor: string | undefined;
        do {
          const page = await store().list("acme", { limit: 10, ...(cursor ? { cursor } : {}) });
          seen.push(...page.data);
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
        // Stores compare text bytewise, as `<` does (localeCompare would not).
        const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
        const order = [...made].sort((a, b) => cmp(a.created_at, b.created_at) || cmp(a.id, b.id));
        expect(seen.map((c) => c.id)).toEqual(order.map((c) => c.id));
        expect(seen.find((c) => c.id === made[3]?.id)).toMatchObject({ item_count: 2, entity_type: "person" });
        expect(seen.filter((c) => c.item_count > 0)).toHaveLength(1);
        expect((await store().list("acme", { limit: 25 })).next_cursor).toBeNull();
      });
      it("isolates tenants: another tenant's collection is absent", async () => {
        const c = await create("acme");
        await store().addItems("acme", c.id, [item("person", "p1")]);
        const [added] = (await store().addItems("acme", c.id, [item("person", "p2")])) ?? [];
        const itemId = added?.item.id as string;
        const stranger = store();
        expect(await stranger.get("evil", c.id)).toBeNull();
        expect(await stranger.update("evil", c.id, { name: "mine" })).toBeNull();
        expect(await stranger.delete("evil", c.id)).toBe(false);
        expect(await stranger.addItems("evil", c.id, [item("person", "p3")])).toBeNull();
        expect(await stranger.listItems("evil", c.id, { limit: 10 })).toBeNull();
        expect(await stranger.getItem("evil", c.id, itemId)).toBeNull();
        expect(await stranger.updateItem("evil", c.id, itemId, { notes: "x" })).toBeNull();
        expect(await stranger.deleteItem("evil", c.id, itemId)).toBe(false);
        expect((await stranger.list("evil", { limit: 10 })).data).toEqual([]);
        expect(await store().get("acme", c.id)).toMatchObject({ name: "Leads", item_count: 2 });
        // An item asked for through another collection of the right tenant is absent too.
        const other = await create("acme");
        expect(await store().getItem("acme", other.id, itemId)).toBeNull();
        expect(await store().deleteItem("acme", other.id, itemId)).toBe(false);
      });

      it("binds cursors to their tenant and collection", async () => {
        const a = await create("acme");
        const b = await create("acme");
        for (const c of [a, b])
          await store().addItems(
            "acme",
            c.id,
            [1, 2, 3].map((n) => item("person", n)),
          );
        const page = await store().listItems("acme", a.id, { limit: 1 });
        const cursor = page?.next_cursor as string;
        expect(cursor).toBeTruthy();
        await expect(store().listItems("acme", b.id, { limit: 1, cursor })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
        await create("evil");
        await create("evil");
        const listCursor = (await store().list("acme", { limit: 1 })).next_cursor as string;
        await expect(store().list("evil", { limit: 1, cursor: listCursor })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
        await expect(store().list("acme", { limit: 1, cursor: "garbage" })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
      });
    });

    describe("items and the one-type rule", () => {
      it("the first item fixes the type; another type is refused naming both", async () => {
        const c = await create();
        const [added] = (await store().addItems("acme", c.id, [item("organization", 42, { notes: "hot", tags: ["a", "b"], entity: { name: "Acme" } })])) ?? [];
        expect(added).toEqual({
          created: true,
          item: {
            id: options.itemIdOf ? options.itemIdOf(c.id, "42") : expect.stringMatching(/^itm_/),
            collection_id: c.id,
            entity_type: "organization",
            entity_id: "42",
            entity: { name: "Acme" },
            notes: "hot",
            tags: ["a", "b"],
            created_at: expect.stringMatching(ISO),
            updated_at: expect.stringMatching(ISO),
          },
        });
        expect(added?.item.id).toMatch(/^itm_[A-Za-z0-9_-]{22}$/);
        expect(await store().get("acme", c.id)).toMatchObject({ entity_type: "organization", item_count: 1 });
        expect(await store().getItem("acme", c.id, added?.item.id as string)).toEqual(added?.item);
        const refused = store().addItems("acme", c.id, [item("person", "p1")]);
        await expect(refused).rejects.toMatchObject({
          code: "ENTITY_TYPE_MISMATCH",
          message: expect.stringMatching(/organization.*person/),
          details: { failing_indexes: [0] },
        });
        expect((await store().listItems("acme", c.id, { limit: 10 }))?.data).toHaveLength(1);
      });

      it("a mixed batch writes nothing and names the failing indexes", async () => {
        const c = await create();
        const batch = [item("person", 1), item("product", 2), item("person", 3), item("address", 4)];
        await expect(store().addItems("acme", c.id, batch)).rejects.toMatchObject({ code: "ENTITY_TYPE_MISMATCH", details: { failing_indexes: [1, 3] } });
        expect(await store().get("acme", c.id)).toMatchObject({ entity_type: null, item_count: 0 });
        expect((await store().listItems("acme", c.id, { limit: 10 }))?.data).toEqual([]);
        await storedItems(c.id, (items) => expect(items).toEqual([]));

        await store().addItems("acme", c.id, [item("product", 9)]);
        await expect(store().addItems("acme", c.id, [item("product", 10), item("person", 11), item("product", 12)])).rejects.toMatchObject({
          details: { failing_indexes: [1] },
        });
        expect(await store().get("acme", c.id)).toMatchObject({ entity_type: "product", item_count: 1 });
        await storedItems(c.id, (items) => expect(items).toHaveLength(1));
      });

      it("a type set at creation holds from the start", async () => {
        const c = await create("acme", "address");
        await expect(store().addItems("acme", c.id, [item("person", 1)])).rejects.toMatchObject({ code: "ENTITY_TYPE_MISMATCH" });
        expect(await store().addItems("acme", c.id, [item("address", 1)])).toHaveLength(1);
      });

      it("the type stays fixed after the collection is emptied", async () => {
        const c = await create();
        const added = (await store().addItems("acme", c.id, [item("funding_round", "r1"), item("funding_round", "r2")])) ?? [];
        for (const a of added) expect(await store().deleteItem("acme", c.id, a.item.id)).toBe(true);
        expect(await store().get("acme", c.id)).toMatchObject({ entity_type: "funding_round", item_count: 0 });
        await expect(store().addItems("acme", c.id, [item("person", 1)])).rejects.toMatchObject({ code: "ENTITY_TYPE_MISMATCH" });
        // Renaming never resets the type.
        await store().update("acme", c.id, { name: "renamed" });
        await expect(store().addItems("acme", c.id, [item("person", 1)])).rejects.toMatchObject({ code: "ENTITY_TYPE_MISMATCH" });
      });

      it("adding the same entity again returns the existing item (also within one batch)", async () => {
        const c = await create();
        const [first] = (await store().addItems("acme", c.id, [item("person", "p1", { notes: "first" })])) ?? [];
        const again = (await store().addItems("acme", c.id, [item("person", "p1", { notes: "second" }), item("person", "p2"), item("person", "p2")])) ?? [];
        expect(again.map((a) => a.created)).toEqual([false, true, false]);
        expect(again[0]?.item).toEqual(first?.item);
        expect(again[2]?.item).toEqual(again[1]?.item);
        expect(await store().get("acme", c.id)).toMatchObject({ item_count: 2 });
        // The same entity added concurrently: one item, one `created`.
        const racing = await Promise.all(Array.from({ length: 20 }, () => store().addItems("acme", c.id, [item("person", "p3")])));
        expect(racing.flat().filter((a) => a?.created)).toHaveLength(1);
        const racedIds = new Set(racing.flat().map((a) => a?.item.id));
        expect(racedIds.size).toBe(1);
        if (options.itemIdOf) expect(racedIds).toEqual(new Set([options.itemIdOf(c.id, "p3")]));
        expect(await store().get("acme", c.id)).toMatchObject({ item_count: 3 });
      });

      it("answers null for a missing collection and [] for an empty batch", async () => {
        expect(await store().addItems("acme", "col_missing", [item("person", 1)])).toBeNull();
        const c = await create();
        expect(await store().addItems("acme", c.id, [])).toEqual([]);
        expect(await store().listItems("acme", "col_missing", { limit: 5 })).toBeNull();
        expect(await store().getItem("acme", c.id, "itm_missing")).toBeNull();
        expect(await store().getItem("acme", c.id, "not an id")).toBeNull();
      });

      it("pages items, updates and deletes them, keeping item_count", async () => {
        const c = await create();
        const added =
          (await store().addItems(
            "acme",
            c.id,
            Array.from({ length: 7 }, (_, i) => item("product", `sku-${i}`, { entity: { name: `P${i}`, url: "https://x.example" } })),
          )) ?? [];
        const ids: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store().listItems("acme", c.id, { limit: 3, ...(cursor ? { cursor } : {}) });
          ids.push(...(page?.data.map((i) => i.id) ?? []));
          cursor = page?.next_cursor ?? undefined;
        } while (cursor);
        expect(ids).toEqual(added.map((a) => a.item.id).sort());

        const target = added[0]?.item.id as string;
        const updated = await store().updateItem("acme", c.id, target, { notes: "call Monday", tags: ["q3"], entity: { name: "Widget" } });
        // `entity` is replaced, not merged.
        expect(updated).toMatchObject({
          id: target,
          notes: "call Monday",
          tags: ["q3"],
          entity: { name: "Widget" },
          entity_type: "product",
          entity_id: "sku-0",
        });
        expect(await store().getItem("acme", c.id, target)).toEqual(updated);
        expect(await store().updateItem("acme", c.id, target, { entity: null })).toMatchObject({ entity: null, notes: "call Monday", tags: ["q3"] });
        expect(await store().updateItem("acme", c.id, "itm_missing", { notes: "x" })).toBeNull();

        expect(await store().deleteItem("acme", c.id, target)).toBe(true);
        expect(await store().deleteItem("acme", c.id, target)).toBe(false);
        expect(await store().getItem("acme", c.id, target)).toBeNull();
        expect(await store().get("acme", c.id)).toMatchObject({ item_count: 6 });
      });

      it("pages items as many at a time as an export reads them, each item once", async () => {
        const c = await create();
        const count = 2 * EXPORT_STORE_PAGE + 1;
        for (let from = 0; from < count; from += 1000) {
          await store().addItems(
            "acme",
            c.id,
            Array.from({ length: Math.min(1000, count - from) }, (_, i) => item("person", `p-${from + i}`)),
          );
        }
        const sizes: number[] = [];
        const entityIds = new Set<string>();
        let cursor: string | undefined;
        do {
          const page = await store().listItems("acme", c.id, { limit: EXPORT_STORE_PAGE, ...(cursor ? { cursor } : {}) });
          sizes.push(page?.data.length ?? 0);
          for (const i of page?.data ?? []) entityIds.add(i.entity_id);
          cursor = page?.next_cursor ?? undefined;
        } while (cursor);
        expect(sizes).toEqual([EXPORT_STORE_PAGE, EXPORT_STORE_PAGE, 1]);
        expect(entityIds.size).toBe(count);
      });

      it("concurrent updates of one item all land (each re-reads on a version conflict)", async () => {
        const c = await create();
        const [added] = (await store().addItems("acme", c.id, [item("person", "p1")])) ?? [];
        const id = added?.item.id as string;
        const results = await Promise.all(Array.from({ length: 15 }, (_, i) => store().updateItem("acme", c.id, id, { tags: [`t${i}`] })));
        expect(results.every((r) => r !== null)).toBe(true);
        expect((await store().getItem("acme", c.id, id))?.tags).toHaveLength(1);
      });

      it("keeps collections and items across close and reopen", async () => {
        const c = await create();
        await store().addItems("acme", c.id, [item("address", "a1", { entity: { city: "Lyon" } })]);
        const before = await store().listItems("acme", c.id, { limit: 10 });
        await opened.reopen();
        expect(await store().get("acme", c.id)).toMatchObject({ entity_type: "address", item_count: 1 });
        expect(await store().listItems("acme", c.id, { limit: 10 })).toEqual(before);
      });
    });

    describe("the one-type rule under concurrency", () => {
      it("200 concurrent first adds of mixed types: one type wins, nothing else stored", async () => {
        const c = await create();
        const calls = Array.from({ length: 200 }, (_, i) => store().addItems("acme", c.id, [item(ENTITY_TYPES[i % 5] as EntityType, i)]));
        const results = await Promise.allSettled(calls);
        const won = results.flatMap((r) => (r.status === "fulfilled" ? (r.value ?? []) : []));
        const refused = results.filter((r) => r.status === "rejected");
        expect(refused.map((r) => (r.reason as { code: string }).code)).toEqual(Array(160).fill("ENTITY_TYPE_MISMATCH"));
        const winner = won[0]?.item.entity_type as EntityType;
        expect(won).toHaveLength(40);
        expect(won.every((a) => a.created && a.item.entity_type === winner)).toBe(true);
        await expectOneType(store(), c.id, winner, 40);
        await storedItems(c.id, (raw) => {
          expect(raw).toHaveLength(40);
          expect(new Set(raw.map((i) => i.entity_type))).toEqual(new Set([winner]));
        });
      });
    });
  });
}
