/** Collections and items over real HTTP: CRUD, the one-type rule, idempotent adds, bulk all-or-nothing, bad input. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, removeDir, type TestServer, startServer } from "./harness";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ORGSIM_SAMPLE_SIZE: "30" } });
});
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

async function newCollection(body: Record<string, unknown> = { name: "Prospects" }) {
  const res = await api(server, "POST", "/collections", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; entity_type: string | null };
}

const person = (id: string) => ({ entity_type: "person", entity_id: id, entity: { full_name: `Person ${id}`, email: `p${id}@example.com` } });
const organization = (id: number) => ({ entity_type: "organization", entity_id: String(id) });

describe("collections", () => {
  it("creates, lists, gets, renames and deletes", async () => {
    const created = await newCollection({ name: "Lookalikes", description: "Companies like ours" });
    expect(created).toMatchObject({ name: "Lookalikes", description: "Companies like ours", entity_type: null, item_count: 0 });
    expect(created.id).toMatch(/^col_/);

    const got = await api(server, "GET", `/collections/${created.id}`);
    expect(got.body).toEqual(created);

    const renamed = await api(server, "PATCH", `/collections/${created.id}`, { name: "Renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe("Renamed");

    const list = await api(server, "GET", "/collections?limit=100");
    expect(list.body.data.map((c: any) => c.id)).toContain(created.id);

    const deleted = await api(server, "DELETE", `/collections/${created.id}`);
    expect(deleted.status).toBe(204);
    expect((await api(server, "GET", `/collections/${created.id}`)).status).toBe(404);
    expect((await api(server, "DELETE", `/collections/${created.id}`)).status).toBe(404);
  });

  it("pages collections with cursors", async () => {
    for (let i = 0; i < 5; i++) await newCollection({ name: `Page ${i}` });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await api(server, "GET", `/collections?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((c: any) => c.id));
      cursor = res.body.meta.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(5);
  });
});

describe("items and the one-type rule", () => {
  it("fixes the type with the first item and refuses another type with 409 naming both", async () => {
    const c = await newCollection();
    const first = await api(server, "POST", `/collections/${c.id}/items`, { ...organization(1), notes: "good fit", tags: ["a"] });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ collection_id: c.id, entity_type: "organization", entity_id: "1", notes: "good fit", tags: ["a"] });
    expect((await api(server, "GET", `/collections/${c.id}`)).body).toMatchObject({ entity_type: "organization", item_count: 1 });

    const refused = await api(server, "POST", `/collections/${c.id}/items`, person("7"));
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("ENTITY_TYPE_MISMATCH");
    expect(refused.body.error.message).toContain("organization");
    expect(refused.body.error.message).toContain("person");
    expect((await api(server, "GET", `/collections/${c.id}/items`)).body.data).toHaveLength(1);
  });

  it("keeps the type fixed after the collection is emptied, and honours a type set at creation", async () => {
    const c = await newCollection();
    const item = await api(server, "POST", `/collections/${c.id}/items`, person("1"));
    expect((await api(server, "DELETE", `/collections/${c.id}/items/${item.body.id}`)).status).toBe(204);
    expect((await api(server, "GET", `/collections/${c.id}`)).body).toMatchObject({ entity_type: "person", item_count: 0 });
    expect((await api(server, "POST", `/collections/${c.id}/items`, organization(2))).status).toBe(409);

    const typed = await newCollection({ name: "Addresses", entity_type: "address" });
    expect(typed.entity_type).toBe("address");
    expect((await api(server, "POST", `/collections/${typed.id}/items`, person("3"))).status).toBe(409);
  });

  it("adding the same entity again returns the existing item with 200", async () => {
    const c = await newCollection();
    const first = await api(server, "POST", `/collections/${c.id}/items`, organization(3));
    const again = await api(server, "POST", `/collections/${c.id}/items`, organization(3));
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect((await api(server, "GET", `/collections/${c.id}`)).body.item_count).toBe(1);
  });

  it("bulk add writes all items of one type", async () => {
    const c = await newCollection();
    const res = await api(server, "POST", `/collections/${c.id}/items/bulk`, { items: [person("1"), person("2"), person("3")] });
    expect(res.status).toBe(201);
    expect(res.body.meta).toEqual({ created: 3, existing: 0 });
    const again = await api(server, "POST", `/collections/${c.id}/items/bulk`, { items: [person("3"), person("4")] });
    expect(again.body.meta).toEqual({ created: 1, existing: 1 });
    expect((await api(server, "GET", `/collections/${c.id}`)).body.item_count).toBe(4);
  });

  it("a mixed bulk writes nothing and names the failing indexes", async () => {
    const c = await newCollection();
    const res = await api(server, "POST", `/collections/${c.id}/items/bulk`, { items: [person("1"), organization(1), person("2"), organization(2)] });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("ENTITY_TYPE_MISMATCH");
    expect(res.body.error.details.failing_indexes).toEqual([1, 3]);
    expect((await api(server, "GET", `/collections/${c.id}`)).body).toMatchObject({ entity_type: null, item_count: 0 });
  });

  it("a bulk of the wrong type for the collection writes nothing", async () => {
    const c = await newCollection({ name: "People", entity_type: "person" });
    const res = await api(server, "POST", `/collections/${c.id}/items/bulk`, { items: [organization(1), organization(2)] });
    expect(res.status).toBe(409);
    expect(res.body.error.details.failing_indexes).toEqual([0, 1]);
    expect((await api(server, "GET", `/collections/${c.id}`)).body.item_count).toBe(0);
  });

  it("a bulk with one invalid item writes nothing and names it", async () => {
    const c = await newCollection();
    const res = await api(server, "POST", `/collections/${c.id}/items/bulk`, {
      items: [person("1"), { entity_type: "person", entity_id: "2", entity: { email: "not-an-email" } }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.failing_indexes).toEqual([1]);
    expect((await api(server, "GET", `/collections/${c.id}`)).body.item_count).toBe(0);
  });

  it("gets, updates and lists items; entity_type and entity_id cannot change", async () => {
    const c = await newCollection();
    const item = (await api(server, "POST", `/collections/${c.id}/items`, person("9"))).body;
    const updated = await api(server, "PATCH", `/collections/${c.id}/items/${item.id}`, { notes: "called", tags: ["warm"], entity: { title: "CTO" } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ notes: "called", tags: ["warm"], entity: { title: "CTO" } });
    expect((await api(server, "GET", `/collections/${c.id}/items/${item.id}`)).body.notes).toBe("called");

    const retype = await api(server, "PATCH", `/collections/${c.id}/items/${item.id}`, { entity_type: "address" });
    expect(retype.status).toBe(400);
    expect(JSON.stringify(retype.body.error)).toContain("entity_type");
    const badEntity = await api(server, "PATCH", `/collections/${c.id}/items/${item.id}`, { entity: { city: "Lyon" } });
    expect(badEntity.status).toBe(400);
    expect((await api(server, "GET", `/collections/${c.id}/items/${item.id}`)).body.entity).toEqual({ title: "CTO" });
  });

  it("validates the entity snapshot by type", async () => {
    const c = await newCollection();
    const res = await api(server, "POST", `/collections/${c.id}/items`, { entity_type: "address", entity_id: "a1", entity: { full_name: "x" } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.error.details.issues)).toContain("entity");
    const ok = await api(server, "POST", `/collections/${c.id}/items`, {
      entity_type: "funding_round",
      entity_id: "r1",
      entity: { organization_id: 1, stage: "seed", announced_on: "2024-02-01", amount_usd: 1500000, investors: ["A"] },
    });
    expect(ok.status).toBe(201);
  });

  it("refuses organization items for unknown organizations and bad ids", async () => {
    const c = await newCollection();
    expect((await api(server, "POST", `/collections/${c.id}/items`, organization(987654))).status).toBe(400);
    expect((await api(server, "POST", `/collections/${c.id}/items`, { entity_type: "organization", entity_id: "abc" })).status).toBe(400);
    expect((await api(server, "GET", `/collections/${c.id}`)).body).toMatchObject({ entity_type: null, item_count: 0 });
  });
});

describe("bad input on collection operations", () => {
  it.each([
    ["POST", "/collections", {}, "name"],
    ["POST", "/collections", { name: "x".repeat(201) }, "name"],
    ["POST", "/collections", { name: "ok", entity_type: "planet" }, "entity_type"],
    ["POST", "/collections", { name: "ok", colour: "blue" }, "colour"],
    ["GET", "/collections?limit=0", undefined, "limit"],
    ["GET", "/collections/not-an-id", undefined, "id"],
    ["PATCH", "/collections/col_x", { name: "" }, "name"],
  ])("%s %s answers 400", async (method, path, body, parameter) => {
    const res = await api(server, method, path, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    expect(JSON.stringify(res.body.error)).toContain(parameter);
  });

  it("item operations validate their input and write nothing", async () => {
    const c = await newCollection();
    for (const body of [
      {},
      { entity_type: "person" },
      { entity_type: "spaceship", entity_id: "1" },
      { entity_type: "person", entity_id: "1", tags: Array.from({ length: 51 }, (_, i) => `t${i}`) },
      { entity_type: "person", entity_id: "1", notes: "n".repeat(10_001) },
    ]) {
      const res = await api(server, "POST", `/collections/${c.id}/items`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await api(server, "POST", `/collections/${c.id}/items/bulk`, { items: [] })).status).toBe(400);
    expect((await api(server, "GET", `/collections/${c.id}`)).body).toMatchObject({ entity_type: null, item_count: 0 });
  });

  it("unknown collections and items answer 404", async () => {
    expect((await api(server, "GET", "/collections/col_missing")).status).toBe(404);
    expect((await api(server, "POST", "/collections/col_missing/items", person("1"))).status).toBe(404);
    const c = await newCollection();
    expect((await api(server, "GET", `/collections/${c.id}/items/itm_missing`)).status).toBe(404);
    expect((await api(server, "DELETE", `/collections/${c.id}/items/itm_missing`)).status).toBe(404);
  });
});
