/**
 * Exporting a collection over real HTTP: the CSV a spreadsheet reads (BOM, header, quoting, formula-safe cells),
 * NDJSON joined with the organizations as they are now, deleted organizations, other entity types, paging past
 * a store page, tenants, scopes and bad input; and the typed tRPC pages.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOrgsimClient, orgsimErrorOf } from "@orgsim/client";
import { EXPORT_STORE_PAGE, ExportedItem } from "@orgsim/core";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, orgsimCommand, removeDir, startServer, type TestServer } from "./harness";

const dataDir = mkdtempSync(join(tmpdir(), "orgsim-export-"));
let server: TestServer;
const keys: Record<"acme" | "globex" | "reader", string> = {} as never;

async function createKey(tenant: string, scopes: string) {
  const result = await orgsimCommand(["keys", "create", "--tenant", tenant, "--scopes", scopes, "--json"], dataDir);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { token: string }).token;
}

beforeAll(async () => {
  const all = "search:read,collections:read,collections:write,organizations:write";
  keys.acme = await createKey("acme", all);
  keys.globex = await createKey("globex", all);
  keys.reader = await createKey("acme", "search:read");
  server = await startServer({ dataDir, env: { ORGSIM_SAMPLE_SIZE: "30" } });
});
afterAll(async () => {
  await server?.stop();
  removeDir(dataDir);
});

const acme = <T = any>(method: string, path: string, body?: unknown) => api<T>(server, method, path, body, keys.acme);

async function newCollection(name: string): Promise<string> {
  const created = await acme("POST", "/collections", { name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

async function addItems(id: string, items: Record<string, unknown>[]) {
  const added = await acme("POST", `/collections/${id}/items/bulk`, { items });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
}

/** GET the export as a client downloads it: status, headers, raw bytes. */
async function download(id: string, format?: string, token: string | null = keys.acme) {
  const response = await fetch(`${server.baseUrl}/v1/collections/${id}/export${format === undefined ? "" : `?format=${format}`}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, text: bytes.toString("utf8") };
}

const csvRecords = (text: string) => parse(text, { bom: true, columns: true }) as Record<string, string>[];
const ndjsonLines = (text: string) =>
  text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => ExportedItem.parse(JSON.parse(line)));

const person = (n: number) => ({
  entity_type: "person",
  entity_id: `person-${n}`,
  entity: { full_name: `Person ${n}`, title: "CTO", email: `p${n}@example.com`, organization_id: 3 },
});

describe("an organization collection", () => {
  let collectionId: string;
  const RISKY_NOTES: Record<string, string> = {
    "1": '=HYPERLINK("http://evil.example","click")',
    "2": "+1",
    "3": "-2",
    "4": "@x",
  };

  beforeAll(async () => {
    expect((await acme("PUT", "/organizations/900001", { name: "Before", domain: "before.example" })).status).toBe(200);
    expect((await acme("PUT", "/organizations/900002", { name: "Doomed Ltd" })).status).toBe(200);
    collectionId = await newCollection("Prospects à Paris — Été");
    await addItems(collectionId, [
      ...Object.entries(RISKY_NOTES).map(([id, notes]) => ({ entity_type: "organization", entity_id: id, notes, tags: ["q1", "hot"] })),
      { entity_type: "organization", entity_id: "900001", notes: "Line one\nLine two, with a comma" },
      { entity_type: "organization", entity_id: "900002", notes: "kept after deletion" },
    ]);
    // Changed after they were added: the export shows them as they are now.
    const renamed = { name: 'Café "Zoë", Ltd.', domain: "zoe.example", description: "Ünïcode & more", categories: ["industrial-automation"] };
    expect((await acme("PUT", "/organizations/900001", renamed)).status).toBe(200);
    expect((await acme("DELETE", "/organizations/900002")).status).toBe(204);
  });

  it("downloads as CSV a spreadsheet reads: BOM, header, CRLF, RFC 4180 quoting, formula-safe cells, current fields", async () => {
    const file = await download(collectionId, "csv");
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="prospects-a-paris-ete.csv"');
    expect([...file.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [header] = file.text.slice(1).split("\r\n");
    expect(header).toBe(
      "item_id,entity_type,entity_id,notes,tags,created_at,updated_at,organization_found,name,domain,website,description,categories," +
        "hq_city,hq_subdivision_code,hq_country_code,employee_count,employee_range,founded_year,last_round_stage,last_round_date," +
        "last_round_amount_usd,total_raised_usd",
    );
    expect(file.text.endsWith("\r\n")).toBe(true);
    expect(file.text).toContain('"Café ""Zoë"", Ltd."');
    expect(file.text).toContain('"Line one\nLine two, with a comma"');

    const records = csvRecords(file.text);
    expect(records).toHaveLength(6);
    const byEntity = new Map(records.map((r) => [r.entity_id, r]));
    for (const [id, notes] of Object.entries(RISKY_NOTES)) {
      const record = byEntity.get(id) as Record<string, string>;
      expect(record.notes).toBe(`'${notes}`);
      expect(record.tags).toBe("q1; hot");
      const current = (await acme("GET", `/organizations/${id}`)).body;
      expect(record).toMatchObject({
        organization_found: "true",
        name: current.name,
        domain: current.domain ?? "",
        categories: current.categories.join("; "),
        hq_country_code: current.location.headquarters?.country_code ?? "",
        employee_count: String(current.metrics.employee_count ?? ""),
        founded_year: String(current.metrics.founded_year ?? ""),
        last_round_stage: current.metrics.funding?.last_round?.stage ?? "",
      });
    }
    expect(byEntity.get("900001")).toMatchObject({
      name: 'Café "Zoë", Ltd.',
      domain: "zoe.example",
      description: "Ünïcode & more",
      categories: "industrial-automation",
      notes: "Line one\nLine two, with a comma",
    });
    expect(byEntity.get("900002")).toMatchObject({ organization_found: "false", name: "", domain: "", notes: "kept after deletion" });
  });

  it("downloads as NDJSON: one item a line, each organization as GET returns it now, null when deleted", async () => {
    const file = await download(collectionId, "ndjson");
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/x-ndjson");
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="prospects-a-paris-ete.ndjson"');
    const lines = ndjsonLines(file.text);
    expect(lines.map((l) => l.entity_id).sort()).toEqual(["1", "2", "3", "4", "900001", "900002"]);
    const byEntity = new Map(lines.map((line) => [line.entity_id, line]));
    for (const entityId of ["1", "2", "3", "4", "900001"]) {
      expect(byEntity.get(entityId)?.organization).toEqual((await acme("GET", `/organizations/${entityId}`)).body);
    }
    expect(byEntity.get("900001")?.organization?.name).toBe('Café "Zoë", Ltd.');
    expect(byEntity.get("900002")).toMatchObject({ entity_type: "organization", notes: "kept after deletion", organization: null });
    const items = (await acme("GET", `/collections/${collectionId}/items?limit=100`)).body.data;
    expect(lines.map(({ organization: _, ...item }) => item)).toEqual(items);
  });

  it("defaults to CSV", async () => {
    const file = await download(collectionId);
    expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csvRecords(file.text)).toHaveLength(6);
  });
});

describe("other entity types", () => {
  it("exports a people collection with the columns of a person's snapshot, and no organization", async () => {
    const id = await newCollection("People");
    await addItems(id, [person(1), { entity_type: "person", entity_id: "bare", tags: ["-neg"] }]);
    const records = csvRecords((await download(id, "csv")).text);
    expect(Object.keys(records[0] as object)).toEqual([
      ...["item_id", "entity_type", "entity_id", "notes", "tags", "created_at", "updated_at"],
      ...["full_name", "title", "email", "linkedin_url", "organization_id"],
    ]);
    // One bulk add: both items have the same created_at, so their order is their random ids'.
    const byEntity = (entityId: string) => records.find((r) => (r as { entity_id: string }).entity_id === entityId);
    expect(byEntity("person-1")).toMatchObject({
      entity_id: "person-1",
      full_name: "Person 1",
      title: "CTO",
      email: "p1@example.com",
      linkedin_url: "",
      organization_id: "3",
    });
    expect(byEntity("bare")).toMatchObject({ entity_id: "bare", full_name: "", tags: "'-neg" });
    for (const line of ndjsonLines((await download(id, "ndjson")).text)) expect(line).not.toHaveProperty("organization");
  });

  it("exports an empty collection as a header alone", async () => {
    const id = await newCollection("!!!");
    const file = await download(id, "csv");
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${id}.csv"`);
    expect(file.text).toBe("\uFEFFitem_id,entity_type,entity_id,notes,tags,created_at,updated_at\r\n");
    expect((await download(id, "ndjson")).text).toBe("");
  });
});

describe("a collection larger than a store page", () => {
  const COUNT = 2 * EXPORT_STORE_PAGE + 234;
  let id: string;
  beforeAll(async () => {
    id = await newCollection("Many people");
    for (let from = 0; from < COUNT; from += 1000) {
      await addItems(
        id,
        Array.from({ length: Math.min(1000, COUNT - from) }, (_, i) => person(from + i)),
      );
    }
  });

  it("exports every item exactly once, in both formats", async () => {
    const expected = Array.from({ length: COUNT }, (_, i) => `person-${i}`).sort();
    const records = csvRecords((await download(id, "csv")).text);
    expect(records.map((r) => r.entity_id).sort()).toEqual(expected);
    expect(new Set(records.map((r) => r.item_id)).size).toBe(COUNT);
    const lines = ndjsonLines((await download(id, "ndjson")).text);
    expect(lines.map((l) => l.entity_id).sort()).toEqual(expected);
  });

  it("stops quietly when the client goes away midway, and goes on serving", async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.baseUrl}/v1/collections/${id}/export?format=ndjson`, {
      headers: { authorization: `Bearer ${keys.acme}` },
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    await reader.read().catch(() => {});
    expect(ndjsonLines((await download(id, "ndjson")).text)).toHaveLength(COUNT);
    expect(server.output()).not.toContain("failed midway");
  });

  it("pages the same items over tRPC, typed", async () => {
    const client = createOrgsimClient({ url: server.baseUrl, apiKey: keys.acme });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.collections.export.query({ id, limit: 500, cursor });
      seen.push(...page.data.map((item) => item.entity_id));
      cursor = page.meta.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(COUNT / 500));
    expect(seen.sort()).toEqual(Array.from({ length: COUNT }, (_, i) => `person-${i}`).sort());
  });
});

describe("tRPC", () => {
  it("joins organizations in its pages too, and answers another tenant's collection NOT_FOUND", async () => {
    await acme("PUT", "/organizations/900003", { name: "Typed Org" });
    const id = await newCollection("Typed");
    await addItems(id, [{ entity_type: "organization", entity_id: "900003" }]);
    const page = await createOrgsimClient({ url: server.baseUrl, apiKey: keys.acme }).collections.export.query({ id });
    expect(page.data[0]?.organization?.name).toBe("Typed Org");
    expect(page.meta.next_cursor).toBeNull();
    const refused = await createOrgsimClient({ url: server.baseUrl, apiKey: keys.globex })
      .collections.export.query({ id })
      .catch((error: unknown) => error);
    expect(orgsimErrorOf(refused)).toMatchObject({ code: "NOT_FOUND", status: 404 });
  });
});

describe("refusals, in the contract's error shape", () => {
  let id: string;
  beforeAll(async () => {
    id = await newCollection("Private");
    await addItems(id, [person(1)]);
  });

  const expectError = (file: Awaited<ReturnType<typeof download>>, status: number, code: string) => {
    expect(file.status).toBe(status);
    expect(file.headers.get("content-type")).toBe("application/json");
    const body = JSON.parse(file.text);
    expect(body.error).toMatchObject({ code, status, request_id: file.headers.get("x-request-id") });
    expect(typeof body.error.message).toBe("string");
    return body.error;
  };

  it("answers another tenant's collection, and an unknown one, 404", async () => {
    expectError(await download(id, "csv", keys.globex), 404, "NOT_FOUND");
    expectError(await download(id, "ndjson", keys.globex), 404, "NOT_FOUND");
    expectError(await download("col_doesnotexist", "csv"), 404, "NOT_FOUND");
  });

  it("answers a bad format, a bad id or an unknown parameter 400, naming it", async () => {
    const format = expectError(await download(id, "xlsx"), 400, "VALIDATION_FAILED");
    expect(format.details.issues[0].path).toEqual(["format"]);
    expect(format.message).toContain("format");
    expect(expectError(await download(id, "csv&format=ndjson"), 400, "VALIDATION_FAILED").message).toContain("format");
    expect(expectError(await download("not-a-collection", "csv"), 400, "VALIDATION_FAILED").message).toContain("id");
    expect(expectError(await download(id, "csv&colour=red"), 400, "VALIDATION_FAILED").message).toContain("colour");
  });

  it("needs an API key (401) with the collections:read scope (403)", async () => {
    expectError(await download(id, "csv", null), 401, "UNAUTHORIZED");
    const forbidden = expectError(await download(id, "csv", keys.reader), 403, "FORBIDDEN");
    expect(forbidden.details.required_scope).toBe("collections:read");
  });

  it("is described in the OpenAPI document with both content types, the format parameter and the errors", async () => {
    const doc = (await fetch(`${server.baseUrl}/openapi.json`).then((r) => r.json())) as any;
    const operation = doc.paths["/collections/{id}/export"].get;
    expect(Object.keys(operation.responses["200"].content)).toEqual(["text/csv", "application/x-ndjson"]);
    expect(operation.parameters.find((p: any) => p.name === "format").schema.enum).toEqual(["csv", "ndjson"]);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "404", "429", "500", "503"]));
    expect(operation.security).toEqual([{ bearerAuth: ["collections:read"] }]);
  });
});
