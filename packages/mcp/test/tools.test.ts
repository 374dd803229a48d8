/** Every tool through the official SDK client, against the real services (real model, real SQLite). */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { appRouter } from "@orgsim/api";
import { CATEGORIES, openPrincipal, Organization, searchFilterShape, SimilarToDescriptionInput } from "@orgsim/core";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENT_MAX_PAGE_SIZE, FULL_MAX_PAGE_SIZE } from "../src/params";
import { CompactOrganizationResult, ONE_LINE_MAX, SCOPE_META_KEY, TOOL_NAMES, type ToolName } from "../src/index";
import { call, connect, type Harness, ok, SAMPLE_SIZE, text, toolError, withConnectedApp } from "./helpers";
import { leadOf } from "./lead";
import { agentWorkflow } from "./workflow";

let harness: Harness;
let client: Client;
withConnectedApp((started, connected) => {
  harness = started;
  client = connected;
});

const DESCRIPTION = "industrial robots and automation software for factories";
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe("tools/list", () => {
  it("lists the 16 tools with titles, descriptions, object input and output schemas and truthful annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    expect(tools).toHaveLength(16);
    const writers = new Set(["create_collection", "add_collection_item", "bulk_add_collection_items", "update_collection_item", "delete_collection_item"]);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(100);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      const a = tool.annotations!;
      expect(a.readOnlyHint, tool.name).toBe(!writers.has(tool.name));
      expect(a.destructiveHint, tool.name).toBe(tool.name === "update_collection_item" || tool.name === "delete_collection_item");
      expect(a.idempotentHint, tool.name).toBe(tool.name !== "create_collection");
      expect(a.openWorldHint).toBe(false);
    }
    console.log(`tools/list: ${bytes(tools)} bytes for ${tools.length} tools`);
  });

  it("advertises the core search schema, plus detail and the agent page size", async () => {
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === "search_organizations_by_description")!;
    const properties = search.inputSchema.properties as Record<string, any>;
    expect(Object.keys(properties).sort()).toEqual(["description", ...Object.keys(searchFilterShape), "detail"].sort());
    expect(search.inputSchema.required).toEqual(["description"]);
    expect((search.inputSchema as any).additionalProperties).toBe(false);
    expect(properties.description).toMatchObject({ type: "string", minLength: 3, maxLength: 2000 });
    // Parameters that also take strings (limit, hq_only) are preprocessed, so zod states their defaults in the description only.
    expect(properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: AGENT_MAX_PAGE_SIZE });
    expect(properties.limit.description).toContain("default 10");
    expect(properties.detail).toMatchObject({ enum: ["compact", "full"], default: "compact" });
    expect(properties.countries).toMatchObject({ type: "array", items: { type: "string" } });
    expect(properties.funding_stages.items.enum).toContain("series_a");
    expect(properties.hq_only).toMatchObject({ type: "boolean" });
    expect(search.description).toContain("list_categories");

    const add = tools.find((t) => t.name === "add_collection_item")!;
    expect(add.inputSchema.required).toEqual(["entity_type", "entity_id", "collection_id"]);
    expect((add.inputSchema as any).definitions.EntityType.enum).toEqual(["organization", "product", "person", "address", "funding_round"]);
    expect(add.description).toContain("ENTITY_TYPE_MISMATCH");
  });
});

describe("search tools", () => {
  it("answers compact results by default, with a text summary and a cursor", async () => {
    const result = await call(client, "search_organizations_by_description", { description: DESCRIPTION });
    expect(result.isError).toBeFalsy();
    const { data, meta } = result.structuredContent;
    expect(data).toHaveLength(10);
    expect(meta).toMatchObject({ limit: 10, detail: "compact", returned: 10, backend: "embedded" });
    expect(meta.next_cursor).toEqual(expect.any(String));
    expect(data.map((o: any) => o.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const o of data) {
      expect(Object.keys(o).sort()).toEqual(
        Object.keys(CompactOrganizationResult.shape)
          .filter((k) => k !== "why")
          .sort(),
      );
      expect(o.description === null || o.description.length <= ONE_LINE_MAX).toBe(true);
      expect(text(result)).toContain(`${o.name} (id ${o.id}`);
    }
    expect(meta.ranking).toBe("hybrid");
    expect(text(result)).toContain(meta.next_cursor);
    // ranking=vector: best score first.
    const byVector = await call(client, "search_organizations_by_description", { description: DESCRIPTION, ranking: "vector" });
    const scores = byVector.structuredContent.data.map((o: any) => o.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it("returns full records with detail=full, and measures both sizes", async () => {
    const compact = await call(client, "search_organizations_by_description", { description: DESCRIPTION });
    const full = await call(client, "search_organizations_by_description", { description: DESCRIPTION, detail: "full" });
    expect(full.structuredContent.meta.detail).toBe("full");
    expect(full.structuredContent.data.map((o: any) => o.id)).toEqual(compact.structuredContent.data.map((o: any) => o.id));
    for (const o of full.structuredContent.data) {
      expect(Organization.safeParse(o).success).toBe(true);
      expect(o.similarity).toMatchObject({ score: expect.any(Number), rank: expect.any(Number) });
    }
    const sizes = {
      compact: { structured: bytes(compact.structuredContent), text: Buffer.byteLength(text(compact)), result: bytes(compact) },
      full: { structured: bytes(full.structuredContent), text: Buffer.byteLength(text(full)), result: bytes(full) },
    };
    console.log(`10-result search, bytes: ${JSON.stringify(sizes)}`);
    expect(sizes.compact.result).toBeLessThan(sizes.full.result / 2);
    expect(sizes.compact.result).toBeLessThan(12_000);
    expect(sizes.full.result).toBeLessThan(40_000);
  });

  it("keeps the biggest pages agent-sized: 50 compact, full pages of at most 20", async () => {
    const compact = await call(client, "search_organizations_by_description", { description: DESCRIPTION, limit: 50 });
    expect(compact.structuredContent.data).toHaveLength(50);
    const full = await call(client, "search_organizations_by_description", { description: DESCRIPTION, limit: 50, detail: "full" });
    expect(full.structuredContent.data).toHaveLength(FULL_MAX_PAGE_SIZE);
    expect(full.structuredContent.meta.limit).toBe(FULL_MAX_PAGE_SIZE);
    console.log(`largest pages, bytes: compact 50 = ${bytes(compact)}, full 20 = ${bytes(full)}`);
    expect(bytes(compact)).toBeLessThan(50_000);
    expect(bytes(full)).toBeLessThan(80_000);
  });

  it("pages on with the cursor, and refuses a cursor of another query", async () => {
    const first = await ok(client, "search_organizations_by_description", { description: DESCRIPTION, limit: 5 });
    const second = await ok(client, "search_organizations_by_description", { description: DESCRIPTION, limit: 5, cursor: first.meta.next_cursor });
    expect(second.data.map((o: any) => o.rank)).toEqual([6, 7, 8, 9, 10]);
    const ids = new Set(first.data.map((o: any) => o.id));
    for (const o of second.data) expect(ids.has(o.id)).toBe(false);
    const both = await ok(client, "search_organizations_by_description", { description: DESCRIPTION, limit: 10 });
    expect([...first.data, ...second.data].map((o: any) => o.id)).toEqual(both.data.map((o: any) => o.id));

    const other = toolError(await call(client, "search_organizations_by_description", { description: "payments", cursor: first.meta.next_cursor }));
    expect(other.code).toBe("VALIDATION_FAILED");
    expect(other.first).toMatch(/^VALIDATION_FAILED: .*cursor/);
  });

  it("applies the filters like the service does (the same results as REST for the same query)", async () => {
    const args = { description: DESCRIPTION, countries: ["DE", "US"], employees_max: 500, limit: 20 };
    const viaTool = await ok(client, "search_organizations_by_description", args);
    const viaService = await harness.app.services.search.similarToDescription(SimilarToDescriptionInput.parse(args));
    expect(viaTool.data.length).toBeGreaterThan(0);
    expect(viaTool.data.map((o: any) => o.id)).toEqual(viaService.data.map((o) => o.id));
    for (const o of viaTool.data) expect(["DE", "US"]).toContain(o.hq_country_code);

    // List parameters also take one comma-separated string, as on REST.
    const commaList = await ok(client, "search_organizations_by_description", { ...args, countries: "DE,US" });
    expect(commaList.data.map((o: any) => o.id)).toEqual(viaTool.data.map((o: any) => o.id));

    const slug = viaTool.data[0].categories[0];
    const byCategory = await ok(client, "search_organizations_by_description", { description: DESCRIPTION, categories: [slug] });
    for (const o of byCategory.data) expect(o.categories).toContain(slug);
  });

  it("finds organizations similar to a known one, never itself; an unknown id is NOT_FOUND", async () => {
    const target = (await ok(client, "search_organizations_by_description", { description: DESCRIPTION, limit: 1 })).data[0];
    const similar = await ok(client, "find_similar_organizations", { organization_id: target.id, limit: 15 });
    expect(similar.data).toHaveLength(15);
    expect(similar.data.map((o: any) => o.id)).not.toContain(target.id);

    const missing = await call(client, "find_similar_organizations", { organization_id: 987654 });
    const error = toolError(missing);
    expect(error).toMatchObject({ code: "NOT_FOUND", status: 404 });
    expect(error.first).toBe("NOT_FOUND: organization 987654 was not found");
    expect(missing.structuredContent).toBeUndefined();
  });

  it("searches by customer base", async () => {
    const result = await ok(client, "search_organizations_by_customer_base", { organization_customer: "hospitals and clinics", limit: 5 });
    expect(result.data.length).toBeGreaterThan(0);
    expect(result.data[0]).toMatchObject({ rank: 1, score: expect.any(Number) });
  });

  it("answers bad input with VALIDATION_FAILED naming the parameter, never a protocol error", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ description: DESCRIPTION, limit: 500 }, "limit"],
      [{ description: DESCRIPTION, limit: 0 }, "limit"],
      [{ description: DESCRIPTION, colour: "blue" }, '"colour"'],
      [{ description: DESCRIPTION, countries: ["ZZ"] }, "countries"],
      [{ description: DESCRIPTION, regions: ["atlantis"] }, "regions"],
      [{ description: DESCRIPTION, categories: ["time-travel"] }, "categories"],
      [{ description: DESCRIPTION, founded_year_min: 2020, founded_year_max: 2000 }, "founded_year_min"],
      [{ description: DESCRIPTION, last_funding_from: "2024-13-01" }, "last_funding_from"],
      [{ description: DESCRIPTION, detail: "everything" }, "detail"],
      [{ description: "ab" }, "description"],
      [{}, "description"],
    ];
    for (const [args, parameter] of cases) {
      const result = await call(client, "search_organizations_by_description", args);
      const error = toolError(result);
      expect(error.code, JSON.stringify(args)).toBe("VALIDATION_FAILED");
      expect(error.first, JSON.stringify(args)).toMatch(/^VALIDATION_FAILED: Invalid input: /);
      expect(error.first, JSON.stringify(args)).toContain(parameter);
      expect(error.details.issues.length).toBeGreaterThan(0);
    }
    const badId = toolError(await call(client, "find_similar_organizations", { organization_id: "abc" }));
    expect(badId.first).toContain("organization_id");
  });
});

describe("organizations and categories", () => {
  it("gets one organization, full by default or compact", async () => {
    const id = (await ok(client, "search_organizations_by_description", { description: DESCRIPTION, limit: 1 })).data[0].id;
    const full = await call(client, "get_organization", { organization_id: id });
    expect(Organization.parse(full.structuredContent.data).id).toBe(id);
    expect(text(full)).toContain(`"id":${id}`);
    const compact = await ok(client, "get_organization", { organization_id: String(id), detail: "compact" });
    expect(compact.data).toMatchObject({ id, name: full.structuredContent.data.name });
    expect(compact.data.metrics).toBeUndefined();
    expect(toolError(await call(client, "get_organization", { organization_id: 424242 })).code).toBe("NOT_FOUND");
  });

  it("lists the categories", async () => {
    const result = await call(client, "list_categories");
    expect(result.structuredContent.data).toEqual([...CATEGORIES]);
    expect(text(result)).toContain(`${CATEGORIES[0]!.slug}: ${CATEGORIES[0]!.name}`);
    expect(toolError(await call(client, "list_categories", { sector: "software" })).code).toBe("VALIDATION_FAILED");
  });
});

describe("collections through tools", () => {
  let ids: number[];
  beforeAll(async () => {
    ids = (await ok(client, "search_organizations_by_description", { description: DESCRIPTION, limit: 8 })).data.map((o: any) => o.id);
  });

  it("creates, lists and gets collections", async () => {
    const created = await ok(client, "create_collection", { name: "Robotics shortlist", description: "from a search" });
    expect(created.data).toMatchObject({ name: "Robotics shortlist", entity_type: null, item_count: 0 });
    const list = await ok(client, "list_collections", {});
    expect(list.data.map((c: any) => c.id)).toContain(created.data.id);
    const got = await call(client, "get_collection", { collection_id: created.data.id });
    expect(got.structuredContent.data).toEqual(created.data);
    expect(text(got)).toContain("no type yet");
    expect(toolError(await call(client, "get_collection", { collection_id: "col_missing" })).code).toBe("NOT_FOUND");
    const badId = toolError(await call(client, "get_collection", { collection_id: "robotics" }));
    expect(badId).toMatchObject({ code: "VALIDATION_FAILED" });
    expect(badId.first).toContain("collection_id: a collection id looks like col_");
  });

  it("keeps the one-type rule: an organization, then a person, is ENTITY_TYPE_MISMATCH naming both types", async () => {
    const collection = (await ok(client, "create_collection", { name: "One type" })).data;
    const added = await ok(client, "add_collection_item", {
      collection_id: collection.id,
      entity_type: "organization",
      entity_id: String(ids[0]),
      tags: ["robots"],
    });
    expect(added.meta.created).toBe(true);
    expect(added.data).toMatchObject({ collection_id: collection.id, entity_type: "organization", entity_id: String(ids[0]), tags: ["robots"] });

    const again = await ok(client, "add_collection_item", { collection_id: collection.id, entity_type: "organization", entity_id: String(ids[0]) });
    expect(again.meta.created).toBe(false);
    expect(again.data.id).toBe(added.data.id);

    const person = await call(client, "add_collection_item", {
      collection_id: collection.id,
      entity_type: "person",
      entity_id: "ada-lovelace",
      entity: { full_name: "Ada Lovelace", title: "CTO" },
    });
    const error = toolError(person);
    expect(error).toMatchObject({ code: "ENTITY_TYPE_MISMATCH", status: 409 });
    expect(error.first).toBe("ENTITY_TYPE_MISMATCH: This collection holds organization items; cannot add person");
    expect(error.details).toMatchObject({ collection_entity_type: "organization", item_entity_type: "person" });
    expect(person.structuredContent).toBeUndefined();
    expect((await ok(client, "get_collection", { collection_id: collection.id })).data).toMatchObject({ entity_type: "organization", item_count: 1 });

    // A collection created with a type refuses others from the start.
    const people = (await ok(client, "create_collection", { name: "People", entity_type: "person" })).data;
    const org = toolError(await call(client, "add_collection_item", { collection_id: people.id, entity_type: "organization", entity_id: String(ids[0]) }));
    expect(org.first).toBe("ENTITY_TYPE_MISMATCH: This collection holds person items; cannot add organization");
  });

  it("bulk adds all or nothing, naming the failing indexes", async () => {
    const collection = (await ok(client, "create_collection", { name: "Bulk" })).data;
    const org = (i: number) => ({ entity_type: "organization", entity_id: String(ids[i]) });

    const mixed = toolError(
      await call(client, "bulk_add_collection_items", { collection_id: collection.id, items: [org(0), { entity_type: "person", entity_id: "p1" }, org(1)] }),
    );
    expect(mixed.code).toBe("ENTITY_TYPE_MISMATCH");
    expect(mixed.first).toContain("organization");
    expect(mixed.first).toContain("person");
    expect(mixed.details.failing_indexes).toEqual([1]);
    expect((await ok(client, "get_collection", { collection_id: collection.id })).data).toMatchObject({ entity_type: null, item_count: 0 });

    const missing = toolError(
      await call(client, "bulk_add_collection_items", { collection_id: collection.id, items: [org(0), { entity_type: "organization", entity_id: "99999" }] }),
    );
    expect(missing.code).toBe("VALIDATION_FAILED");
    expect(missing.details.failing_indexes).toEqual([1]);

    const invalid = toolError(
      await call(client, "bulk_add_collection_items", {
        collection_id: collection.id,
        items: [org(0), org(1), { entity_type: "organization", entity_id: "not-a-number" }, { ...org(2), entity: { name: "X", ceo: "?" } }],
      }),
    );
    expect(invalid.code).toBe("VALIDATION_FAILED");
    expect(invalid.details.failing_indexes).toEqual([2, 3]);
    expect(invalid.first).toContain("items.2.entity_id");
    expect((await ok(client, "get_collection", { collection_id: collection.id })).data.item_count).toBe(0);

    await ok(client, "add_collection_item", { collection_id: collection.id, ...org(0) });
    const bulk = await call(client, "bulk_add_collection_items", { collection_id: collection.id, items: ids.slice(0, 5).map((_, i) => org(i)) });
    expect(bulk.structuredContent.meta).toEqual({ created: 4, existing: 1, not_shown: 0 });
    expect(bulk.structuredContent.data.map((i: any) => i.entity_id)).toEqual(ids.slice(0, 5).map(String));
    expect(text(bulk)).toContain("4 added, 1 already there");

    const empty = toolError(await call(client, "bulk_add_collection_items", { collection_id: collection.id, items: [] }));
    expect(empty.first).toContain("items");
  });

  it("lists items compact or full with cursors, updates and deletes them", async () => {
    const collection = (await ok(client, "create_collection", { name: "Items" })).data;
    await ok(client, "bulk_add_collection_items", {
      collection_id: collection.id,
      items: ids.slice(0, 5).map((id, i) => ({ entity_type: "organization", entity_id: String(id), entity: { name: `Org ${i}` }, notes: "x".repeat(500) })),
    });

    const first = await ok(client, "list_collection_items", { collection_id: collection.id, limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.data[0]).toMatchObject({ entity_type: "organization", label: expect.stringMatching(/^Org \d$/) });
    expect(first.data[0].notes.length).toBeLessThanOrEqual(ONE_LINE_MAX);
    expect(first.data[0].created_at).toBeUndefined();
    const rest = await ok(client, "list_collection_items", { collection_id: collection.id, limit: 10, cursor: first.meta.next_cursor });
    expect(rest.data).toHaveLength(3);
    expect(rest.meta.next_cursor).toBeNull();
    const labels = [...first.data, ...rest.data].map((i: any) => i.label).sort();
    expect(labels).toEqual(["Org 0", "Org 1", "Org 2", "Org 3", "Org 4"]);

    const full = await ok(client, "list_collection_items", { collection_id: collection.id, detail: "full" });
    expect(full.data.map((i: any) => i.id)).toEqual([...first.data, ...rest.data].map((i: any) => i.id));
    expect(full.data[0]).toMatchObject({ entity: { name: expect.any(String) }, notes: "x".repeat(500), created_at: expect.any(String) });

    const item = full.data[0];
    const updated = await ok(client, "update_collection_item", { collection_id: collection.id, item_id: item.id, notes: "call back in May", tags: ["hot"] });
    expect(updated.data).toMatchObject({ id: item.id, notes: "call back in May", tags: ["hot"], entity: item.entity });
    const badSnapshot = toolError(
      await call(client, "update_collection_item", { collection_id: collection.id, item_id: item.id, entity: { full_name: "A person" } }),
    );
    expect(badSnapshot.code).toBe("VALIDATION_FAILED");
    expect(badSnapshot.first).toContain("entity");
    const fixedType = toolError(await call(client, "update_collection_item", { collection_id: collection.id, item_id: item.id, entity_type: "person" }));
    expect(fixedType.first).toContain('"entity_type"');

    const deleted = await ok(client, "delete_collection_item", { collection_id: collection.id, item_id: item.id });
    expect(deleted.data).toEqual({ collection_id: collection.id, item_id: item.id, deleted: true });
    expect(toolError(await call(client, "delete_collection_item", { collection_id: collection.id, item_id: item.id })).code).toBe("NOT_FOUND");
    expect((await ok(client, "get_collection", { collection_id: collection.id })).data.item_count).toBe(4);
  });

  it("scopes collections to the server's tenant", async () => {
    const mine = (await ok(client, "create_collection", { name: "Mine" })).data;
    const other = await connect(harness.app, { principal: { ...openPrincipal(), tenant: "someone-else" } });
    try {
      expect(toolError(await call(other, "get_collection", { collection_id: mine.id })).code).toBe("NOT_FOUND");
      expect((await ok(other, "list_collections")).data).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe("access", () => {
  /** The REST/tRPC operation each tool performs. */
  const PROCEDURE_OF: Record<ToolName, string> = {
    search_organizations_by_description: "search.similarToDescription",
    find_similar_organizations: "search.similarToOrganization",
    search_organizations_by_examples: "search.similarToSeeds",
    search_organizations_by_customer_base: "search.similarCustomers",
    find_organizations: "organizations.find",
    get_organization: "organizations.get",
    list_categories: "categories.list",
    create_collection: "collections.create",
    list_collections: "collections.list",
    get_collection: "collections.get",
    list_collection_items: "collections.items.list",
    add_collection_item: "collections.items.add",
    bulk_add_collection_items: "collections.items.bulkAdd",
    update_collection_item: "collections.items.update",
    delete_collection_item: "collections.items.delete",
    export_collection: "collections.export",
  };

  it("each tool needs the same scope as its REST operation, and says so in its listing", async () => {
    const { tools } = await client.listTools();
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: { scope?: string } } }>;
    for (const tool of tools) {
      const procedure = procedures[PROCEDURE_OF[tool.name as ToolName]];
      expect(procedure, tool.name).toBeDefined();
      expect(tool._meta?.[SCOPE_META_KEY] ?? undefined, tool.name).toBe(procedure?._def.meta?.scope);
    }
  });

  it("refuses a tool whose scope the caller's key lacks with FORBIDDEN, naming the scope", async () => {
    const reader = await connect(harness.app, { principal: { ...openPrincipal(), tenant: "readers", scopes: ["search:read"] } });
    try {
      const refused = toolError(await call(reader, "create_collection", { name: "Nope" }));
      expect(refused.code).toBe("FORBIDDEN");
      expect(refused.first).toContain("collections:write");
      expect((await ok(reader, "search_organizations_by_description", { description: "industrial robots", limit: 1 })).data).toHaveLength(1);
      expect((await ok(reader, "list_categories")).data.length).toBeGreaterThan(0);
    } finally {
      await reader.close();
    }
  });
});

describe("an agent's workflow", () => {
  it("finds, collects, and is told when it breaks the one-type rule (every tool called)", async () => {
    const report = await agentWorkflow(client);
    expect(report.called.size).toBe(16);
  });
});

describe("readiness", () => {
  it("makes tool calls wait for the data, and answers BACKEND_UNAVAILABLE when it failed to load", async () => {
    let release!: () => void;
    const waiting = await connect(harness.app, {
      ready: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    let done = false;
    const pending = call(waiting, "list_categories").then((result) => {
      done = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(done).toBe(false);
    release();
    expect((await pending).isError).toBeFalsy();
    await waiting.close();

    const never = await connect(harness.app, { ready: new Promise(() => {}), readyTimeoutMs: 200 });
    const loading = toolError(await call(never, "list_categories"));
    expect(loading.code).toBe("BACKEND_UNAVAILABLE");
    expect(loading.first).toContain("still loading");
    await never.close();

    const failed = Promise.reject(new Error("disk on fire"));
    failed.catch(() => {});
    const broken = await connect(harness.app, { ready: failed, log: () => {} });
    const error = toolError(await call(broken, "list_categories"));
    expect(error.code).toBe("BACKEND_UNAVAILABLE");
    expect(error.first).not.toContain("disk on fire");
    await broken.close();
  });

  it("loaded the sample it was given", async () => {
    expect(await harness.app.services.organizations.count()).toBe(SAMPLE_SIZE);
  });
});

/**
 * What an agent reads in tools/list to pick a tool: every description opens by saying, in at most
 * two sentences, when to use the tool and what comes back, and every argument naming a collection
 * is `collection_id`, never a bare `id` beside item, entity and organization ids.
 */
describe("the tool list as an agent reads it", () => {
  it("names every collection argument collection_id: no tool takes a bare id", async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const properties = Object.keys(tool.inputSchema.properties ?? {});
      expect(properties, tool.name).not.toContain("id");
      if (tool.name.includes("collection") && !["create_collection", "list_collections"].includes(tool.name))
        expect(properties, tool.name).toContain("collection_id");
    }
  });

  it("opens each description with when to use the tool and what it answers, in two sentences at most", async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const lead = leadOf(tool);
      expect(lead, tool.name).toMatch(/\b(Use it|Use this|when)\b/);
      expect(lead, tool.name).toMatch(/\b(Returns|Answers|answers)\b/);
    }
  });
});
