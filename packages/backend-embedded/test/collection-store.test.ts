import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ENTITY_TYPES, type EntityType, type NewItem } from "@orgsim/core";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EmbeddedBackend, openEmbeddedBackend } from "../src/index";
import { tempDir } from "./temp-dir";

let dir: ReturnType<typeof tempDir>;
let backend: EmbeddedBackend;
const open = () => openEmbeddedBackend({ dataDir: dir.path });

beforeEach(() => {
  dir = tempDir();
  backend = open();
});
afterEach(async () => {
  await backend.close();
  dir.remove();
});

const item = (entity_type: EntityType, entity_id: string | number, more: Partial<NewItem> = {}): NewItem => ({ entity_type, entity_id: String(entity_id), ...more });
const newCollection = (tenant = "acme", entity_type: EntityType | null = null) => backend.collections.create(tenant, { name: "Leads", description: "to call", entity_type });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("collections", () => {
  it("creates a collection with no type yet, and gets it back", async () => {
    const created = await newCollection();
    expect(created).toEqual({ id: expect.stringMatching(/^col_[A-Za-z0-9_-]{22}$/), name: "Leads", description: "to call", entity_type: null, item_count: 0, created_at: expect.stringMatching(ISO), updated_at: created.created_at });
    expect(await backend.collections.get("acme", created.id)).toEqual(created);
    expect(await backend.collections.get("acme", "col_nope")).toBeNull();
  });

  it("renames and deletes", async () => {
    const c = await newCollection();
    const renamed = await backend.collections.update("acme", c.id, { name: "Prospects", description: null });
    expect(renamed).toMatchObject({ id: c.id, name: "Prospects", description: null });
    expect(await backend.collections.update("acme", c.id, { description: "kept name" })).toMatchObject({ name: "Prospects", description: "kept name" });
    expect(await backend.collections.delete("acme", c.id)).toBe(true);
    expect(await backend.collections.delete("acme", c.id)).toBe(false);
    expect(await backend.collections.get("acme", c.id)).toBeNull();
  });

  it("lists in cursor pages ordered by (created_at, id)", async () => {
    const made = [];
    for (let i = 0; i < 25; i++) made.push(await newCollection());
    await newCollection("other");
    const seen = [];
    let cursor: string | undefined;
    do {
      const page = await backend.collections.list("acme", { limit: 10, ...(cursor ? { cursor } : {}) });
      seen.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    // SQLite compares text bytewise, as `<` does (localeCompare would not).
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const order = [...made].sort((a, b) => cmp(a.created_at, b.created_at) || cmp(a.id, b.id));
    expect(seen.map((c) => c.id)).toEqual(order.map((c) => c.id));
    expect((await backend.collections.list("acme", { limit: 25 })).next_cursor).toBeNull();
  });

  it("isolates tenants: another tenant's collection is absent", async () => {
    const c = await newCollection("acme");
    await backend.collections.addItems("acme", c.id, [item("person", "p1")]);
    const [added] = (await backend.collections.addItems("acme", c.id, [item("person", "p2")])) ?? [];
    const itemId = added?.item.id as string;
    const stranger = backend.collections;
    expect(await stranger.get("evil", c.id)).toBeNull();
    expect(await stranger.update("evil", c.id, { name: "mine" })).toBeNull();
    expect(await stranger.delete("evil", c.id)).toBe(false);
    expect(await stranger.addItems("evil", c.id, [item("person", "p3")])).toBeNull();
    expect(await stranger.listItems("evil", c.id, { limit: 10 })).toBeNull();
    expect(await stranger.getItem("evil", c.id, itemId)).toBeNull();
    expect(await stranger.updateItem("evil", c.id, itemId, { notes: "x" })).toBeNull();
    expect(await stranger.deleteItem("evil", c.id, itemId)).toBe(false);
    expect((await stranger.list("evil", { limit: 10 })).data).toEqual([]);
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ name: "Leads", item_count: 2 });
  });

  it("binds cursors to their tenant and collection", async () => {
    const a = await newCollection("acme");
    const b = await newCollection("acme");
    for (const c of [a, b]) await backend.collections.addItems("acme", c.id, [1, 2, 3].map((n) => item("person", n)));
    const page = await backend.collections.listItems("acme", a.id, { limit: 1 });
    const cursor = page?.next_cursor as string;
    expect(cursor).toBeTruthy();
    await expect(backend.collections.listItems("acme", b.id, { limit: 1, cursor })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    await newCollection("evil");
    await newCollection("evil");
    const listCursor = (await backend.collections.list("acme", { limit: 1 })).next_cursor as string;
    await expect(backend.collections.list("evil", { limit: 1, cursor: listCursor })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
    await expect(backend.collections.list("acme", { limit: 1, cursor: "garbage" })).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
  });
});

describe("items and the one-type rule", () => {
  it("the first item fixes the type; another type is refused naming both", async () => {
    const c = await newCollection();
    const [added] = (await backend.collections.addItems("acme", c.id, [item("organization", 42, { notes: "hot", tags: ["a", "b"], entity: { name: "Acme" } })])) ?? [];
    expect(added).toEqual({
      created: true,
      item: {
        id: expect.stringMatching(/^itm_/),
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
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ entity_type: "organization", item_count: 1 });
    const refused = backend.collections.addItems("acme", c.id, [item("person", "p1")]);
    await expect(refused).rejects.toMatchObject({ code: "ENTITY_TYPE_MISMATCH", message: expect.stringMatching(/organization.*person/), details: { failing_indexes: [0] } });
    expect((await backend.collections.listItems("acme", c.id, { limit: 10 }))?.data).toHaveLength(1);
  });

  it("a mixed batch writes nothing and names the failing indexes", async () => {
    const c = await newCollection();
    const batch = [item("person", 1), item("product", 2), item("person", 3), item("address", 4)];
    await expect(backend.collections.addItems("acme", c.id, batch)).rejects.toMatchObject({ code: "ENTITY_TYPE_MISMATCH", details: { failing_indexes: [1, 3] } });
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ entity_type: null, item_count: 0 });
    expect((await backend.collections.listItems("acme", c.id, { limit: 10 }))?.data).toEqual([]);

    await backend.collections.addItems("acme", c.id, [item("product", 9)]);
    await expect(backend.collections.addItems("acme", c.id, [item("product", 10), item("person", 11), item("product", 12)])).rejects.toMatchObject({
      details: { failing_indexes: [1] },
    });
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ entity_type: "product", item_count: 1 });
  });

  it("a type set at creation holds from the start", async () => {
    const c = await newCollection("acme", "address");
    await expect(backend.collections.addItems("acme", c.id, [item("person", 1)])).rejects.toMatchObject({ code: "ENTITY_TYPE_MISMATCH" });
    expect(await backend.collections.addItems("acme", c.id, [item("address", 1)])).toHaveLength(1);
  });

  it("the type stays fixed after the collection is emptied", async () => {
    const c = await newCollection();
    const added = (await backend.collections.addItems("acme", c.id, [item("funding_round", "r1"), item("funding_round", "r2")])) ?? [];
    for (const a of added) expect(await backend.collections.deleteItem("acme", c.id, a.item.id)).toBe(true);
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ entity_type: "funding_round", item_count: 0 });
    await expect(backend.collections.addItems("acme", c.id, [item("person", 1)])).rejects.toMatchObject({ code: "ENTITY_TYPE_MISMATCH" });
  });

  it("adding the same entity again returns the existing item (also within one batch)", async () => {
    const c = await newCollection();
    const [first] = (await backend.collections.addItems("acme", c.id, [item("person", "p1", { notes: "first" })])) ?? [];
    const again = (await backend.collections.addItems("acme", c.id, [item("person", "p1", { notes: "second" }), item("person", "p2"), item("person", "p2")])) ?? [];
    expect(again.map((a) => a.created)).toEqual([false, true, false]);
    expect(again[0]?.item).toEqual(first?.item);
    expect(again[2]?.item).toEqual(again[1]?.item);
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ item_count: 2 });
  });

  it("answers null for a missing collection and [] for an empty batch", async () => {
    expect(await backend.collections.addItems("acme", "col_missing", [item("person", 1)])).toBeNull();
    const c = await newCollection();
    expect(await backend.collections.addItems("acme", c.id, [])).toEqual([]);
    expect(await backend.collections.listItems("acme", "col_missing", { limit: 5 })).toBeNull();
  });

  it("pages items, updates and deletes them, keeping item_count", async () => {
    const c = await newCollection();
    const added = (await backend.collections.addItems("acme", c.id, Array.from({ length: 7 }, (_, i) => item("product", `sku-${i}`)))) ?? [];
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await backend.collections.listItems("acme", c.id, { limit: 3, ...(cursor ? { cursor } : {}) });
      ids.push(...(page?.data.map((i) => i.id) ?? []));
      cursor = page?.next_cursor ?? undefined;
    } while (cursor);
    expect(ids).toEqual(added.map((a) => a.item.id).sort());

    const target = added[0]?.item.id as string;
    const updated = await backend.collections.updateItem("acme", c.id, target, { notes: "call Monday", tags: ["q3"], entity: { name: "Widget" } });
    expect(updated).toMatchObject({ id: target, notes: "call Monday", tags: ["q3"], entity: { name: "Widget" }, entity_type: "product", entity_id: "sku-0" });
    expect(await backend.collections.getItem("acme", c.id, target)).toEqual(updated);
    expect(await backend.collections.updateItem("acme", c.id, target, { entity: null })).toMatchObject({ entity: null, notes: "call Monday", tags: ["q3"] });
    expect(await backend.collections.updateItem("acme", c.id, "itm_missing", { notes: "x" })).toBeNull();

    expect(await backend.collections.deleteItem("acme", c.id, target)).toBe(true);
    expect(await backend.collections.deleteItem("acme", c.id, target)).toBe(false);
    expect(await backend.collections.getItem("acme", c.id, target)).toBeNull();
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ item_count: 6 });
  });

  it("deleting a collection deletes its items", async () => {
    const c = await newCollection();
    const keep = await newCollection();
    await backend.collections.addItems("acme", c.id, [1, 2, 3].map((n) => item("person", n)));
    await backend.collections.addItems("acme", keep.id, [item("person", 1)]);
    await backend.collections.delete("acme", c.id);
    const raw = new Database(backend.file, { readonly: true });
    expect(raw.prepare("SELECT collection_id, count(*) AS n FROM collection_items GROUP BY collection_id").all()).toEqual([{ collection_id: keep.id, n: 1 }]);
    raw.close();
  });

  it("keeps collections and items across close and reopen", async () => {
    const c = await newCollection();
    await backend.collections.addItems("acme", c.id, [item("address", "a1", { entity: { city: "Lyon" } })]);
    const before = await backend.collections.listItems("acme", c.id, { limit: 10 });
    await backend.close();
    backend = open();
    expect(await backend.collections.get("acme", c.id)).toMatchObject({ entity_type: "address", item_count: 1 });
    expect(await backend.collections.listItems("acme", c.id, { limit: 10 })).toEqual(before);
  });
});

describe("the one-type rule under concurrency", () => {
  /** After a race: exactly one type, and only items of it. */
  async function expectOneType(collectionId: string, winner: EntityType, stored: number) {
    const collection = await backend.collections.get("acme", collectionId);
    expect(collection).toMatchObject({ entity_type: winner, item_count: stored });
    const items = (await backend.collections.listItems("acme", collectionId, { limit: 100 }))?.data ?? [];
    const all = [...items];
    let cursor = (await backend.collections.listItems("acme", collectionId, { limit: 100 }))?.next_cursor;
    while (cursor) {
      const page = await backend.collections.listItems("acme", collectionId, { limit: 100, cursor });
      all.push(...(page?.data ?? []));
      cursor = page?.next_cursor;
    }
    expect(all).toHaveLength(stored);
    expect(new Set(all.map((i) => i.entity_type))).toEqual(new Set([winner]));
  }

  it("200 concurrent first adds of mixed types: one type wins, nothing else stored", async () => {
    const c = await newCollection();
    const calls = Array.from({ length: 200 }, (_, i) => backend.collections.addItems("acme", c.id, [item(ENTITY_TYPES[i % 5] as EntityType, i)]));
    const results = await Promise.allSettled(calls);
    const won = results.flatMap((r) => (r.status === "fulfilled" ? (r.value ?? []) : []));
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused.every((r) => (r.reason as { code: string }).code === "ENTITY_TYPE_MISMATCH")).toBe(true);
    const winner = won[0]?.item.entity_type as EntityType;
    expect(won).toHaveLength(40);
    await expectOneType(c.id, winner, 40);
  });

  it("two connections on one file, interleaved: one type wins", async () => {
    const other = open();
    const c = await newCollection();
    const calls = Array.from({ length: 200 }, (_, i) =>
      (i % 2 ? other : backend).collections.addItems("acme", c.id, [item(i % 2 ? "person" : "product", i), item(i % 2 ? "person" : "product", i + 1000)]),
    );
    const results = await Promise.allSettled(calls);
    const fulfilled = results.filter((r) => r.status === "fulfilled");
    expect(fulfilled).toHaveLength(100);
    await expectOneType(c.id, "product", 200);
    await other.close();
  });

  it("four processes racing on one empty collection: one type wins, nothing else stored", { timeout: 60_000 }, async () => {
    const c = await newCollection();
    const worker = fileURLToPath(new URL("./fixtures/add-items-worker.ts", import.meta.url));
    const types: EntityType[] = ["organization", "person", "product", "address"];
    const startAt = Date.now() + 3000;
    const runs = types.map((type, w) =>
      promisify(execFile)(process.execPath, ["--import", "tsx", worker, dir.path, "acme", c.id, type, "50", String(w * 1000 + 1), String(startAt)], { cwd: fileURLToPath(new URL("..", import.meta.url)) }),
    );
    const outputs = (await Promise.all(runs)).map((r) => JSON.parse(r.stdout) as { added: number; refused: number; errors: string[] });
    expect(outputs.flatMap((o) => o.errors)).toEqual([]);
    const winners = outputs.filter((o) => o.added > 0);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toEqual({ added: 50, refused: 0, errors: [] });
    expect(outputs.filter((o) => o.added === 0).every((o) => o.refused === 50)).toBe(true);
    await expectOneType(c.id, types[outputs.indexOf(winners[0] as (typeof outputs)[number])] as EntityType, 50);
  });
});
