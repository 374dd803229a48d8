/**
 * Concurrent writers over real HTTP, on each backend: the one-type rule when many first items of
 * different types arrive at once, bulk adds racing each other (all or nothing, no duplicates,
 * exact counts), and retried adds that never duplicate an item.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, api, removeDir, sampleOrganizations, TEST_BACKEND, type TestServer, startServer } from "./harness";

const SAMPLE_SIZE = 60;
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ORGSIM_SAMPLE_SIZE: String(SAMPLE_SIZE) } });
});
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

/** The sample generator is prefix-stable: the server's organizations are the first SAMPLE_SIZE of the harness's. */
const organizations = sampleOrganizations().slice(0, SAMPLE_SIZE);

const TYPES = ["organization", "product", "person", "address", "funding_round"] as const;
type EntityType = (typeof TYPES)[number];
interface NewItem {
  entity_type: EntityType;
  entity_id: string;
  entity?: Record<string, unknown>;
  notes?: string;
  tags?: string[];
}

/** The n-th entity of a type, with a valid snapshot of that type. */
function entity(type: EntityType, n: number): NewItem {
  const org = organizations[n % organizations.length]!;
  switch (type) {
    case "organization":
      return { entity_type: type, entity_id: String(org.id), entity: { name: org.name } };
    case "product":
      return {
        entity_type: type,
        entity_id: `prd-${n}`,
        entity: { name: `Product ${n}`, description: "A product", url: `https://example.com/p/${n}`, category: "software", organization_id: org.id },
      };
    case "person":
      return {
        entity_type: type,
        entity_id: `per-${n}`,
        entity: {
          full_name: `Person ${n}`,
          title: "CTO",
          email: `p${n}@example.com`,
          linkedin_url: `https://www.linkedin.com/in/p${n}`,
          organization_id: org.id,
        },
      };
    case "address":
      return {
        entity_type: type,
        entity_id: `adr-${n}`,
        entity: { address_line: `${n} Rue de la République`, city: "Lyon", subdivision_code: "FR-ARA", postal_code: "69002", country_code: "FR" },
      };
    case "funding_round":
      return {
        entity_type: type,
        entity_id: `fr-${n}`,
        entity: { organization_id: org.id, stage: "seed", announced_on: "2023-05-02", amount_usd: 1_000_000 + n, investors: ["Fund A", "Fund B"] },
      };
  }
}

async function newCollection(body: Record<string, unknown> = { name: "Race" }): Promise<string> {
  const res = await api(server, "POST", "/collections", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** Every item of a collection, following the cursors. */
async function allItems(collectionId: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse = await api(server, "GET", `/collections/${collectionId}/items?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
  } while (cursor);
  return items;
}

const collection = async (id: string) => (await api(server, "GET", `/collections/${id}`)).body;

describe("many first items of different types at once", () => {
  const ROUNDS = 5;
  const WRITERS = 200;
  /** Each type gets WRITERS / 5 writers over this many entities, so winners also race on the same entity. */
  const ENTITIES_PER_TYPE = 16;
  let survived = 0;

  afterAll(() => {
    console.log(`[concurrency] ${TEST_BACKEND}: ${survived} concurrent writers survived (${ROUNDS} rounds of ${WRITERS} mixed first items)`);
  });

  it(`exactly one type wins, every loser gets 409 naming both types, and nothing of another type is stored (${ROUNDS} rounds of ${WRITERS})`, async () => {
    const winners: EntityType[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const id = await newCollection({ name: `Race ${round}` });
      // Rotate which type comes first so no backend can win by arrival order alone.
      const writers = Array.from({ length: WRITERS }, (_, i) => entity(TYPES[(i + round) % TYPES.length]!, Math.floor(i / TYPES.length) % ENTITIES_PER_TYPE));
      const answers = await Promise.all(writers.map((item) => api(server, "POST", `/collections/${id}/items`, item)));

      for (const a of answers) expect([200, 201, 409], JSON.stringify(a.body)).toContain(a.status);
      const wonTypes = new Set(writers.filter((_, i) => answers[i]!.status < 300).map((w) => w.entity_type));
      expect(wonTypes.size).toBe(1);
      const winner = [...wonTypes][0] as EntityType;
      winners.push(winner);

      const itemIdOf = new Map<string, string>();
      const createdOnce = new Map<string, number>();
      writers.forEach((writer, i) => {
        const answer = answers[i]!;
        if (writer.entity_type === winner) {
          // Every writer of the winning type succeeds: the same entity again is the same item.
          expect(answer.status).toBeLessThan(300);
          expect(answer.body).toMatchObject({ collection_id: id, entity_type: winner, entity_id: writer.entity_id });
          const known = itemIdOf.get(writer.entity_id);
          if (known) expect(answer.body.id).toBe(known);
          itemIdOf.set(writer.entity_id, answer.body.id);
          if (answer.status === 201) createdOnce.set(writer.entity_id, (createdOnce.get(writer.entity_id) ?? 0) + 1);
        } else {
          expect(answer.status).toBe(409);
          expect(answer.body.error).toMatchObject({
            code: "ENTITY_TYPE_MISMATCH",
            status: 409,
            details: { collection_entity_type: winner, item_entity_type: writer.entity_type },
          });
          expect(answer.body.error.message).toContain(winner);
          expect(answer.body.error.message).toContain(writer.entity_type);
        }
      });
      // 201 exactly once per entity.
      expect([...createdOnce.values()].every((n) => n === 1)).toBe(true);
      expect(createdOnce.size).toBe(itemIdOf.size);
      expect(itemIdOf.size).toBe(ENTITIES_PER_TYPE);

      expect(await collection(id)).toMatchObject({ entity_type: winner, item_count: itemIdOf.size });
      const stored = await allItems(id);
      expect(stored).toHaveLength(itemIdOf.size);
      expect(new Set(stored.map((s) => s.entity_type))).toEqual(new Set([winner]));
      expect(new Map(stored.map((s) => [s.entity_id, s.id]))).toEqual(itemIdOf);
      survived += WRITERS;
    }
    console.log(`[concurrency] ${TEST_BACKEND}: winning types by round: ${winners.join(", ")}`);
  });
});

describe("concurrent bulk adds", () => {
  const persons = (from: number, count: number, prefix = "per") =>
    Array.from({ length: count }, (_, j) => ({ ...entity("person", from + j), entity_id: `${prefix}-${from + j}` }));

  it("are all or nothing per request, never duplicate an entity, and leave exact counts", async () => {
    const id = await newCollection({ name: "People", entity_type: "person" });
    // Eight overlapping windows of 100 (0–99, 50–149, …, 350–449), one with an item of the wrong
    // type at index 50, one with an invalid item at index 30: all ten at once.
    const batches = Array.from({ length: 8 }, (_, k) => persons(k * 50, 100));
    const wrongType = persons(0, 100, "wrong");
    wrongType[50] = entity("organization", 1);
    const invalid = persons(0, 100, "invalid");
    invalid[30] = { entity_type: "person", entity_id: "invalid-30", entity: { email: "not-an-email" } };
    const answers = await Promise.all([...batches, wrongType, invalid].map((items) => api(server, "POST", `/collections/${id}/items/bulk`, { items })));

    const itemIdOf = new Map<string, string>();
    let created = 0;
    batches.forEach((items, k) => {
      const answer = answers[k]!;
      expect([200, 201], JSON.stringify(answer.body)).toContain(answer.status);
      expect(answer.body.data.map((d: any) => d.entity_id)).toEqual(items.map((i) => i.entity_id));
      expect(answer.body.meta.created + answer.body.meta.existing).toBe(100);
      expect(answer.status).toBe(answer.body.meta.created > 0 ? 201 : 200);
      created += answer.body.meta.created;
      for (const d of answer.body.data) {
        const known = itemIdOf.get(d.entity_id);
        if (known) expect(d.id).toBe(known);
        itemIdOf.set(d.entity_id, d.id);
      }
    });
    expect(itemIdOf.size).toBe(450);
    expect(created).toBe(450);

    expect(answers[8]!.status).toBe(409);
    expect(answers[8]!.body.error).toMatchObject({ code: "ENTITY_TYPE_MISMATCH", details: { failing_indexes: [50] } });
    expect(answers[9]!.status).toBe(400);
    expect(answers[9]!.body.error).toMatchObject({ code: "VALIDATION_FAILED", details: { failing_indexes: [30] } });

    expect(await collection(id)).toMatchObject({ entity_type: "person", item_count: 450 });
    const stored = await allItems(id);
    expect(stored).toHaveLength(450);
    expect(new Map(stored.map((s) => [s.entity_id, s.id]))).toEqual(itemIdOf);
    expect(stored.filter((s) => s.entity_type !== "person" || !s.entity_id.startsWith("per-"))).toEqual([]);
  });

  it("of different types into an empty collection: one type wins whole, the others write nothing", async () => {
    const id = await newCollection();
    const bulks = Array.from({ length: 10 }, (_, k) => {
      const type = k % 2 === 0 ? "person" : "address";
      return Array.from({ length: 100 }, (_, j) => {
        const e = entity(type, k * 100 + j);
        return { ...e, entity_id: `${e.entity_id}-${k}` };
      });
    });
    const answers = await Promise.all(bulks.map((items) => api(server, "POST", `/collections/${id}/items/bulk`, { items })));
    const winners = new Set(bulks.filter((_, k) => answers[k]!.status < 300).map((b) => b[0]!.entity_type));
    expect(winners.size).toBe(1);
    const winner = [...winners][0];
    bulks.forEach((items, k) => {
      const answer = answers[k]!;
      if (items[0]!.entity_type === winner) {
        expect(answer.status).toBe(201);
        expect(answer.body.meta).toEqual({ created: 100, existing: 0 });
      } else {
        expect(answer.status).toBe(409);
        expect(answer.body.error.code).toBe("ENTITY_TYPE_MISMATCH");
        expect(answer.body.error.message).toContain(String(winner));
        expect(answer.body.error.message).toContain(items[0]!.entity_type);
        expect(answer.body.error.details.failing_indexes).toHaveLength(100);
      }
    });
    expect(await collection(id)).toMatchObject({ entity_type: winner, item_count: 500 });
    const stored = await allItems(id);
    expect(stored).toHaveLength(500);
    expect(new Set(stored.map((s) => s.entity_type))).toEqual(new Set([winner]));
  });
});

describe("retried adds", () => {
  it("the same add sent 20 times at once, then 20 times in turn, is one item: 201 once, then 200 with its id", async () => {
    const id = await newCollection();
    const item = { ...entity("organization", 7), notes: "strong fit", tags: ["q3"] };
    const burst = await Promise.all(Array.from({ length: 20 }, () => api(server, "POST", `/collections/${id}/items`, item)));
    expect(burst.filter((a) => a.status === 201)).toHaveLength(1);
    expect(burst.filter((a) => a.status === 200)).toHaveLength(19);
    const itemId = burst.find((a) => a.status === 201)!.body.id;
    for (const a of burst) expect(a.body).toMatchObject({ id: itemId, entity_id: item.entity_id, notes: "strong fit", tags: ["q3"] });

    for (let i = 0; i < 20; i++) {
      const again = await api(server, "POST", `/collections/${id}/items`, item);
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(itemId);
    }
    expect(await collection(id)).toMatchObject({ entity_type: "organization", item_count: 1 });
    expect((await allItems(id)).map((s) => s.id)).toEqual([itemId]);
  });

  it("the same bulk sent 10 times at once, then 5 times in turn, creates each item once", async () => {
    const id = await newCollection();
    const items = Array.from({ length: 50 }, (_, j) => entity("funding_round", j));
    const burst = await Promise.all(Array.from({ length: 10 }, () => api(server, "POST", `/collections/${id}/items/bulk`, { items })));
    const itemIdOf = new Map<string, string>();
    let created = 0;
    for (const a of burst) {
      expect([200, 201]).toContain(a.status);
      expect(a.body.data).toHaveLength(50);
      created += a.body.meta.created;
      for (const d of a.body.data) {
        const known = itemIdOf.get(d.entity_id);
        if (known) expect(d.id).toBe(known);
        itemIdOf.set(d.entity_id, d.id);
      }
    }
    expect(created).toBe(50);
    expect(itemIdOf.size).toBe(50);

    for (let i = 0; i < 5; i++) {
      const again = await api(server, "POST", `/collections/${id}/items/bulk`, { items });
      expect(again.status).toBe(200);
      expect(again.body.meta).toEqual({ created: 0, existing: 50 });
      expect(new Map(again.body.data.map((d: any) => [d.entity_id, d.id]))).toEqual(itemIdOf);
    }
    expect(await collection(id)).toMatchObject({ entity_type: "funding_round", item_count: 50 });
    expect(await allItems(id)).toHaveLength(50);
  });
});
