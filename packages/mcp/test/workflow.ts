/**
 * What an agent does with orgsim, through any transport (in-memory, stdio, Streamable HTTP):
 * list the tools, call every one of them, send bad input, and break the one-type rule.
 * Exported as `@orgsim/mcp/testing` so the stdio and HTTP suites run the same workflow.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { TOOL_NAMES } from "../src/server";

type Result = CallToolResult & { structuredContent?: any };

const textOf = (result: Result) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await call(client, name, args);
  expect(result.isError, `${name}: ${textOf(result).slice(0, 500)}`).toBeFalsy();
  expect(textOf(result).length, name).toBeGreaterThan(0);
  return result.structuredContent;
}

/** The contract error of a tool result: `CODE: message` on the text's first line, the whole error in `_meta`. */
export function errorOf(result: Result) {
  expect(result.isError, textOf(result).slice(0, 300)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const first = textOf(result).split("\n")[0] ?? "";
  const error = result._meta?.["orgsim/error"] as { code: string; message: string; details: Record<string, any> };
  expect(first).toBe(`${error.code}: ${error.message}`);
  return { first, ...error };
}

export interface WorkflowReport {
  tools: number;
  called: Set<string>;
  found: number;
  collectionId: string;
}

export async function agentWorkflow(client: Client): Promise<WorkflowReport> {
  const called = new Set<string>();
  const use = async (name: string, args: Record<string, unknown> = {}) => {
    called.add(name);
    return ok(client, name, args);
  };

  // The tools, each with an output schema and annotations.
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
  for (const tool of tools) {
    expect(tool.outputSchema?.type, tool.name).toBe("object");
    expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe("boolean");
  }

  // Find organizations similar to a description, with filters.
  const categories = (await use("list_categories")).data as { slug: string }[];
  expect(categories.length).toBeGreaterThan(10);
  const filters = { countries: ["US", "DE", "FR", "GB", "CA"], employees_max: 5000, founded_year_min: 1990 };
  const search = await use("search_organizations_by_description", { description: "software that automates factories and warehouses", ...filters, limit: 5 });
  const found = search.data as { id: number; name: string; hq_country_code: string; founded_year: number }[];
  expect(found.length).toBeGreaterThanOrEqual(3);
  for (const o of found) {
    expect(filters.countries).toContain(o.hq_country_code);
    expect(o.founded_year).toBeGreaterThanOrEqual(1990);
  }
  const [first, second, third] = found as [(typeof found)[0], (typeof found)[0], (typeof found)[0]];

  expect((await use("get_organization", { organization_id: first.id })).data.id).toBe(first.id);
  // "Companies like <a company the user names> in Germany": two calls, its name to its id, then the search.
  const named = (await use("find_organizations", { name: first.name })).data as { id: number; name: string }[];
  expect(named.map((o) => o.id)).toContain(first.id);
  const inGermany = await use("find_similar_organizations", { organization_id: first.id, countries: ["DE"], limit: 5, explain: true });
  // Each with a compact reason (explain=true).
  for (const o of inGermany.data) expect(o.why).toMatch(/^(shares: |words: |close in meaning)/);
  expect(inGermany.data.length).toBeGreaterThan(0);
  for (const o of inGermany.data) expect(o.hq_country_code).toBe("DE");
  // Several examples, one counter-example, and a seed that names nothing: reported, not fatal.
  const byExamples = await use("search_organizations_by_examples", {
    like: [{ organization_id: first.id }, { organization_id: second.id }, { organization_id: 999_999_999 }],
    unlike: [{ description: "a bank offering retail banking services" }],
    limit: 5,
  });
  const exampleIds = byExamples.data.map((o: { id: number }) => o.id);
  expect(exampleIds.length).toBe(5);
  expect(exampleIds).not.toContain(first.id);
  expect(exampleIds).not.toContain(second.id);
  expect(byExamples.meta.missing_seeds).toEqual([
    { list: "like", index: 2, seed: { organization_id: 999_999_999 }, reason: "no stored organization has the id 999999999" },
  ]);
  const similar = await use("find_similar_organizations", { organization_id: first.id, exclude_ids: [second.id], limit: 5 });
  expect(similar.data.map((o: { id: number }) => o.id)).not.toContain(first.id);
  expect(similar.data.map((o: { id: number }) => o.id)).not.toContain(second.id);
  const customers = await use("search_organizations_by_customer_base", { organization_customer: "operations teams at manufacturers", limit: 3 });
  expect(customers.data.length).toBeGreaterThan(0);

  // Put them in a collection.
  const collection = (await use("create_collection", { name: "Automation shortlist" })).data;
  const bulk = await use("bulk_add_collection_items", {
    collection_id: collection.id,
    items: [first, second].map((o) => ({ entity_type: "organization", entity_id: String(o.id) })),
  });
  expect(bulk.meta).toMatchObject({ created: 2, existing: 0 });
  const added = await use("add_collection_item", {
    collection_id: collection.id,
    entity_type: "organization",
    entity_id: String(third.id),
    tags: ["follow-up"],
  });
  expect(added.meta.created).toBe(true);

  // A person in an organization collection: a clear tool error naming both types.
  called.add("add_collection_item");
  const person = errorOf(
    await call(client, "add_collection_item", {
      collection_id: collection.id,
      entity_type: "person",
      entity_id: "jane-doe",
      entity: { full_name: "Jane Doe" },
    }),
  );
  expect(person.code).toBe("ENTITY_TYPE_MISMATCH");
  expect(person.first).toBe("ENTITY_TYPE_MISMATCH: This collection holds organization items; cannot add person");

  // A mixed batch writes nothing and names the failing index.
  const mixed = errorOf(
    await call(client, "bulk_add_collection_items", {
      collection_id: collection.id,
      items: [
        { entity_type: "organization", entity_id: String(similar.data[0].id) },
        { entity_type: "address", entity_id: "hq", entity: { city: "Lyon" } },
      ],
    }),
  );
  expect(mixed.code).toBe("ENTITY_TYPE_MISMATCH");
  expect(mixed.details.failing_indexes).toEqual([1]);

  expect((await use("get_collection", { collection_id: collection.id })).data).toMatchObject({ entity_type: "organization", item_count: 3 });
  expect((await use("list_collections")).data.map((c: { id: string }) => c.id)).toContain(collection.id);
  const items = await use("list_collection_items", { collection_id: collection.id, limit: 2 });
  expect(items.data).toHaveLength(2);
  expect(items.meta.next_cursor).toEqual(expect.any(String));
  const updated = await use("update_collection_item", { collection_id: collection.id, item_id: added.data.id, notes: "met at the fair" });
  expect(updated.data.notes).toBe("met at the fair");
  expect((await use("delete_collection_item", { collection_id: collection.id, item_id: added.data.id })).data.deleted).toBe(true);
  expect((await use("get_collection", { collection_id: collection.id })).data.item_count).toBe(2);

  // The whole collection at once: a link to the file, and the items inline with each organization's current record.
  const exported = await use("export_collection", { collection_id: collection.id, format: "ndjson" });
  expect(exported.meta).toMatchObject({ item_count: 2, inline: true, format: "ndjson", path: `/v1/collections/${collection.id}/export?format=ndjson` });
  // Over HTTP the link is absolute, on the address the client used; over stdio there is no HTTP server to name.
  if (exported.meta.url !== null) expect(exported.meta.url).toBe(`${new URL(exported.meta.url).origin}${exported.meta.path}`);
  expect(exported.data.map((item: { organization: { id: number } }) => item.organization.id).sort()).toEqual([first.id, second.id].sort());

  // Bad input: a tool error naming the parameter, not a protocol error.
  const bad = errorOf(await call(client, "search_organizations_by_description", { description: "robots", limit: 500 }));
  expect(bad.code).toBe("VALIDATION_FAILED");
  expect(bad.first).toContain("limit");
  const unknown = errorOf(await call(client, "get_organization", { organization_id: 999_999 }));
  expect(unknown.code).toBe("NOT_FOUND");

  expect([...called].sort()).toEqual([...TOOL_NAMES].sort());
  return { tools: tools.length, called, found: found.length, collectionId: collection.id };
}
