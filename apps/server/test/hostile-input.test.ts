/**
 * Hostile input over real HTTP, on each backend and on REST (/v1) and tRPC (/trpc): Elasticsearch
 * and query-string syntax in ids and text, Elasticsearch's own fields and prototype keys in
 * bodies, huge and malformed JSON, invalid UTF-8 in bodies, queries and paths, and path traversal.
 * Whatever arrives is plain data: a 400/404/413 contract error or a normal answer, never another
 * tenant's or collection's data, never a 5xx, never a file from disk, never a hang; and the server
 * is healthy afterwards.
 *
 * Tests named "[tRPC transport checks] …" need /trpc requests to pass the same checks as REST
 * (apps/server/src/http/limits.ts `admitRequest(req, res, "trpc")`, called by server.ts).
 */
import { request } from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, orgsimCommand, removeDir, TEST_BACKEND, type TestServer, startServer } from "./harness";

const dataDir = mkdtempSync(join(tmpdir(), "orgsim-hostile-"));
let server: TestServer;
/** Two tenants: acme owns a collection with a secret; globex is the attacker. */
const tokens = { acme: "", globex: "" };
const acme: { collection: string; item: string; cursor: string; listCursor: string } = { collection: "", item: "", cursor: "", listCursor: "" };
let globexCollection = "";
let cases = 0;

beforeAll(async () => {
  const all = "search:read,collections:read,collections:write,organizations:write";
  const [a, g] = await Promise.all(
    ["acme", "globex"].map((tenant) => orgsimCommand(["keys", "create", "--tenant", tenant, "--scopes", all, "--json"], dataDir)),
  );
  for (const result of [a, g]) expect(result!.code, result!.stderr).toBe(0);
  tokens.acme = JSON.parse(a!.stdout).token;
  tokens.globex = JSON.parse(g!.stdout).token;
  server = await startServer({ dataDir, env: { ORGSIM_SAMPLE_SIZE: "30", ORGSIM_RATE_LIMIT_PER_MINUTE: "10000000" } });

  for (let i = 0; i < 3; i++) expect((await api(server, "POST", "/collections", { name: `Acme ${i}` }, tokens.acme)).status).toBe(201);
  const created = await api(server, "POST", "/collections", { name: "Acme secrets", entity_type: "person" }, tokens.acme);
  acme.collection = created.body.id;
  const items = Array.from({ length: 3 }, (_, i) => ({ entity_type: "person", entity_id: `secret-${i}`, notes: "acme secret", tags: ["secret"] }));
  const added = await api(server, "POST", `/collections/${acme.collection}/items/bulk`, { items }, tokens.acme);
  expect(added.status).toBe(201);
  acme.item = added.body.data[0].id;
  acme.cursor = (await api(server, "GET", `/collections/${acme.collection}/items?limit=1`, undefined, tokens.acme)).body.meta.next_cursor;
  acme.listCursor = (await api(server, "GET", "/collections?limit=1", undefined, tokens.acme)).body.meta.next_cursor;
  globexCollection = (await api(server, "POST", "/collections", { name: "Globex" }, tokens.globex)).body.id;
});

afterAll(async () => {
  console.log(`[hostile-input] ${TEST_BACKEND}: ${cases} hostile requests`);
  await server?.stop();
  removeDir(dataDir);
});

interface Answer {
  status: number;
  text: string;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * One request exactly as given (path not normalized, body bytes as they are), as globex unless
 * told; fails on a hang instead of waiting for the test timeout.
 */
function raw(method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string>; token?: string | null } = {}): Promise<Answer> {
  cases++;
  const url = new URL(server.baseUrl);
  const token = options.token === undefined ? tokens.globex : options.token;
  const headers: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...options.headers };
  if (options.body !== undefined) headers["content-length"] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: any = null;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          body = null;
        }
        resolve({ status: res.statusCode ?? 0, text, body, headers: res.headers });
      });
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer within 20 s`)));
    req.on("error", reject);
    req.end(options.body);
  });
}

const json = (value: unknown) => JSON.stringify(value);
const JSON_TYPE = { "content-type": "application/json" };
const restPost = (path: string, body: string | Buffer, headers: Record<string, string> = JSON_TYPE) => raw("POST", `/v1${path}`, { body, headers });
const trpcPost = (procedure: string, body: string | Buffer, headers: Record<string, string> = JSON_TYPE) =>
  raw("POST", `/trpc/${procedure}`, { body, headers });
const trpcGet = (procedure: string, input: string) => raw("GET", `/trpc/${procedure}?input=${input}`);

/** The contract's error of a REST or tRPC answer. */
const contractError = (a: Answer) => a.body?.error?.data?.error ?? a.body?.error;

/** A refusal in the contract's shape with one of these statuses; never a 5xx. */
function expectRefused(a: Answer, statuses: number[] = [400, 404], label = "") {
  expect(a.status, `${label} ${a.status} ${a.text.slice(0, 300)}`).toBeLessThan(500);
  expect(statuses, `${label} ${a.status} ${a.text.slice(0, 300)}`).toContain(a.status);
  const error = contractError(a);
  expect(error, `${label} ${a.text.slice(0, 300)}`).toMatchObject({
    code: expect.any(String),
    message: expect.any(String),
    status: a.status,
    details: expect.any(Object),
  });
  expect(a.text).not.toContain("acme secret");
}

/** A 400 VALIDATION_FAILED naming `param` (the start of an issue's path), or whose message names it. */
function expectInvalid(a: Answer, param: string, label = "") {
  expectRefused(a, [400], label);
  const error = contractError(a);
  expect(error.code).toBe("VALIDATION_FAILED");
  const paths = (error.details.issues ?? []).map((i: any) => i.path.join("."));
  const named = paths.some((p: string) => p === param || p.startsWith(`${param}.`)) || error.message.includes(param);
  expect(named, `${label}: ${JSON.stringify(error)} should name ${param}`).toBe(true);
}

/** Acme's collection is as acme left it. */
async function expectAcmeIntact() {
  const got = await api(server, "GET", `/collections/${acme.collection}`, undefined, tokens.acme);
  expect(got.body).toMatchObject({ name: "Acme secrets", entity_type: "person", item_count: 3 });
  const items = await api(server, "GET", `/collections/${acme.collection}/items?limit=100`, undefined, tokens.acme);
  expect(items.body.data.map((i: any) => [i.entity_id, i.notes]).sort()).toEqual([0, 1, 2].map((i) => [`secret-${i}`, "acme secret"]));
}

describe("Elasticsearch and query syntax in ids", () => {
  const collectionIds = [
    "*",
    "_all",
    "col_*",
    "col__all",
    "col_",
    'col_"}',
    'col_"},{"match_all":{}}',
    "col_a OR 1=1",
    "col_..",
    "_search",
    "col_a?pretty",
    `col_${"a".repeat(65)}`,
    "col_a\u0000",
    "col_\u00e9",
    "COL_ABC",
  ];
  const itemIds = ["*", "_all", "itm_*", "itm__all", "_source", "itm_", 'itm_"}', "itm_a OR 1=1", "itm_a\u0000"];

  it("collection ids are plain data on every REST operation: 400 or 404, never another's collection", async () => {
    for (const id of [...collectionIds, acme.collection]) {
      const p = `/v1/collections/${encodeURIComponent(id)}`;
      const label = `collection id ${JSON.stringify(id)}`;
      expectRefused(await raw("GET", p), undefined, label);
      expectRefused(await raw("GET", `${p}/items`), undefined, label);
      expectRefused(await raw("GET", `${p}/items?${new URLSearchParams({ cursor: acme.cursor })}`), undefined, label);
      expectRefused(await raw("GET", `${p}/items/${encodeURIComponent(acme.item)}`), undefined, label);
      expectRefused(await raw("PATCH", p, { body: json({ name: "pwned" }), headers: JSON_TYPE }), undefined, label);
      expectRefused(await raw("DELETE", p), undefined, label);
      expectRefused(await raw("DELETE", `${p}/items/${encodeURIComponent(acme.item)}`), undefined, label);
      expectRefused(
        await raw("PATCH", `${p}/items/${encodeURIComponent(acme.item)}`, { body: json({ notes: "pwned" }), headers: JSON_TYPE }),
        undefined,
        label,
      );
      expectRefused(await restPost(`/collections/${encodeURIComponent(id)}/items`, json({ entity_type: "person", entity_id: "x" })), undefined, label);
      expectRefused(
        await restPost(`/collections/${encodeURIComponent(id)}/items/bulk`, json({ items: [{ entity_type: "person", entity_id: "x" }] })),
        undefined,
        label,
      );
    }
    // Acme's own collection is simply absent for globex.
    expect((await raw("GET", `/v1/collections/${acme.collection}`)).status).toBe(404);
    await expectAcmeIntact();
  });

  it("item ids are plain data, and acme's item is not reachable through globex's collection", async () => {
    for (const id of [...itemIds, acme.item]) {
      const p = `/v1/collections/${globexCollection}/items/${encodeURIComponent(id)}`;
      expectRefused(await raw("GET", p), undefined, `item id ${JSON.stringify(id)}`);
      expectRefused(await raw("PATCH", p, { body: json({ notes: "pwned" }), headers: JSON_TYPE }), undefined, `item id ${JSON.stringify(id)}`);
      expectRefused(await raw("DELETE", p), undefined, `item id ${JSON.stringify(id)}`);
    }
    await expectAcmeIntact();
  });

  it("organization ids are positive integers or a 400", async () => {
    const ids = [
      "*",
      "_all",
      "1 OR 1=1",
      "1;DROP TABLE organizations",
      "0x1",
      "1e3",
      "-1",
      "0",
      "99999999999999999999",
      "1.0",
      "null",
      "{}",
      "[1]",
      "1,2",
      "_search",
      "1%00",
    ];
    for (const id of ids) {
      const p = encodeURIComponent(id);
      const label = `organization id ${JSON.stringify(id)}`;
      expectInvalid(await raw("GET", `/v1/organizations/${p}`), "organization_id", label);
      expectInvalid(await raw("GET", `/v1/search/organizations/${p}/similar`), "organization_id", label);
      expectInvalid(await raw("PUT", `/v1/organizations/${p}`, { body: json({ name: "pwned" }), headers: JSON_TYPE }), "organization_id", label);
      expectInvalid(await raw("DELETE", `/v1/organizations/${p}`), "organization_id", label);
    }
    expectRefused(await raw("GET", "/v1/organizations/987654321"), [404]);
  });

  it("on tRPC too (GET and POST), with acme's collection absent for globex", async () => {
    for (const id of [...collectionIds, acme.collection]) {
      const label = `tRPC collection id ${JSON.stringify(id)}`;
      expectRefused(await trpcGet("collections.get", encodeURIComponent(json({ id }))), undefined, label);
      expectRefused(await trpcGet("collections.items.list", encodeURIComponent(json({ id }))), undefined, label);
      expectRefused(await trpcPost("collections.items.add", json({ id, entity_type: "person", entity_id: "x" })), undefined, label);
      expectRefused(await trpcPost("collections.delete", json({ id })), undefined, label);
    }
    for (const input of ['{"organization_id":"*"}', '{"organization_id":{"$gt":0}}', '{"organization_id":[1,2]}', '{"organization_id":1e400}']) {
      expectRefused(await trpcGet("organizations.get", encodeURIComponent(input)), [400], input);
    }
    await expectAcmeIntact();
  });

  it("cursors of another tenant are refused", async () => {
    // Acme's items cursor on globex's collection, and acme's collections cursor on globex's list.
    expectInvalid(await raw("GET", `/v1/collections/${globexCollection}/items?${new URLSearchParams({ cursor: acme.cursor })}`), "cursor");
    expectInvalid(await raw("GET", `/v1/collections?${new URLSearchParams({ cursor: acme.listCursor })}`), "cursor");
  });
});

describe("query syntax and Elasticsearch names in text", () => {
  const hostileText = [
    "name:* OR 1=1",
    "*",
    "_all",
    '{"match_all":{}}',
    '"}]}',
    '\\" OR \\"\\"=\\"',
    "' OR '1'='1' --",
    "<script>alert(1)</script>",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text of a log4j-style lookup
    "${jndi:ldap://example.com/a}",
    "tenant:acme",
    "_id:* AND _source:*",
    "../../etc/passwd",
    "a\u0000b",
    "%00%FF",
  ];

  it("search text is embedded as text: normal results, never an error", async () => {
    for (const text of hostileText.filter((t) => t.trim().length >= 3)) {
      for (const [path, param] of [
        ["/v1/search/organizations/similar", "description"],
        ["/v1/search/organizations/similar-customers", "organization_customer"],
      ] as const) {
        const answer = await raw("GET", `${path}?${new URLSearchParams({ [param]: text, limit: "5" })}`);
        expect(answer.status, `${param}=${JSON.stringify(text)}: ${answer.text.slice(0, 300)}`).toBe(200);
        expect(answer.body.data.length).toBeGreaterThan(0);
        expect(answer.body.meta.limit).toBe(5);
      }
      const viaTrpc = await trpcGet("search.similarToDescription", encodeURIComponent(json({ description: text, limit: 3 })));
      expect(viaTrpc.status, viaTrpc.text.slice(0, 300)).toBe(200);
      expect(viaTrpc.body.result.data.data).toHaveLength(3);
    }
  });

  it("filter values with query syntax are unknown codes: 400 naming the parameter", async () => {
    const filters: [string, string][] = [
      ["countries", "*"],
      ["countries", "_all"],
      ["regions", "*"],
      ["regions", "europe OR 1=1"],
      ["categories", "*"],
      ["categories", '"}'],
      ["funding_stages", "*"],
      ["employee_ranges", "*"],
      ["exclude_ids", "*"],
      ["exclude_ids", "1 OR 1=1"],
      ["min_score", "*"],
      ["min_similarity", "*"],
      ["founded_year_min", "_all"],
      ["last_funding_from", "now-1d"],
      ["hq_only", "*"],
      ["_source", "true"],
      ["__proto__", "x"],
      ["constructor", "x"],
      ["toString", "x"],
      ["hasOwnProperty", "x"],
      ["valueOf", "1"],
      ["__defineGetter__", "x"],
    ];
    for (const [param, value] of filters) {
      expectInvalid(
        await raw("GET", `/v1/search/organizations/similar?${new URLSearchParams({ description: "industrial robots", [param]: value })}`),
        param,
        `${param}=${value}`,
      );
    }
    for (const param of ["__proto__", "constructor", "toString"]) {
      expectInvalid(await raw("GET", `/v1/collections?${param}=x`), param, param);
      expectInvalid(await raw("GET", `/v1/collections/${globexCollection}/items?${param}=x&limit=5`), param, param);
    }
  });

  it("ids, names, notes and tags with query syntax are stored and returned as they are, and match only themselves", async () => {
    const c = (await api(server, "POST", "/collections", { name: "name:* OR 1=1", description: '{"match_all":{}}' }, tokens.globex)).body;
    expect(c).toMatchObject({ name: "name:* OR 1=1", description: '{"match_all":{}}' });
    const stored = new Map<string, string>();
    for (const text of hostileText) {
      const answer = await restPost(`/collections/${c.id}/items`, json({ entity_type: "person", entity_id: text, notes: text, tags: [text.slice(0, 64)] }));
      expect(answer.status, answer.text.slice(0, 300)).toBe(201);
      expect(answer.body).toMatchObject({ collection_id: c.id, entity_id: text, notes: text, tags: [text.slice(0, 64)] });
      stored.set(text, answer.body.id);
    }
    // "*" again is the same item, not a match for everything.
    const again = await restPost(`/collections/${c.id}/items`, json({ entity_type: "person", entity_id: "*" }));
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(stored.get("*"));
    const list = await api(server, "GET", `/collections/${c.id}/items?limit=100`, undefined, tokens.globex);
    expect(new Map(list.body.data.map((i: any) => [i.entity_id, i.id]))).toEqual(stored);
    for (const [text, id] of stored) {
      const got = await api(server, "GET", `/collections/${c.id}/items/${id}`, undefined, tokens.globex);
      expect(got.body).toMatchObject({ entity_id: text, notes: text });
    }
    expect((await api(server, "GET", `/collections/${c.id}`, undefined, tokens.globex)).body.item_count).toBe(hostileText.length);
    const globexList = await api(server, "GET", "/collections?limit=100", undefined, tokens.globex);
    expect(globexList.body.data.map((x: any) => x.id)).not.toContain(acme.collection);
    await expectAcmeIntact();
  });
});

describe("Elasticsearch fields and prototype keys in bodies", () => {
  const specialKeys = ["_id", "_source", "_index", "_seq_no", "_routing", "tenant", "item_count", "created_at", "query", "script", "collection_id"];

  it("unknown keys, Elasticsearch's among them, are refused by name and write nothing", async () => {
    for (const key of specialKeys) {
      expectInvalid(await restPost("/collections", json({ name: "x", [key]: "acme" })), key, `create with ${key}`);
      expectInvalid(
        await restPost(`/collections/${globexCollection}/items`, json({ entity_type: "person", entity_id: "k", [key]: "acme" })),
        key,
        `add with ${key}`,
      );
      expectInvalid(
        await restPost(`/collections/${globexCollection}/items`, json({ entity_type: "person", entity_id: "k", entity: { [key]: "acme" } })),
        "entity",
        `entity with ${key}`,
      );
      expectInvalid(
        await raw("PUT", "/v1/organizations/777", { body: json({ name: "x", [key]: { match_all: {} } }), headers: JSON_TYPE }),
        key,
        `upsert with ${key}`,
      );
      expectInvalid(await trpcPost("collections.create", json({ name: "x", [key]: "acme" })), key, `tRPC create with ${key}`);
    }
    expect((await api(server, "GET", `/collections/${globexCollection}`, undefined, tokens.globex)).body.item_count).toBe(0);
    expect((await raw("GET", "/v1/organizations/777")).status).toBe(404);
  });

  it("a collection id in the body does not redirect a write to another collection", async () => {
    const own = (await api(server, "POST", "/collections", { name: "Own" }, tokens.globex)).body.id;
    const answer = await restPost(`/collections/${own}/items`, json({ id: acme.collection, entity_type: "person", entity_id: "redirect" }));
    expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
    if (answer.status < 300) expect(answer.body.collection_id).toBe(own);
    await expectAcmeIntact();
  });

  it("__proto__ and constructor.prototype keys are refused wherever they are", async () => {
    const bodies: [string, string][] = [
      ["/collections", '{"name":"x","__proto__":{"polluted":"yes"}}'],
      ["/collections", '{"__proto__":{"name":"from the prototype"}}'],
      ["/collections", '{"name":"x","constructor":{"prototype":{"polluted":"yes"}}}'],
      [`/collections/${globexCollection}/items`, '{"__proto__":{"entity_type":"person"},"entity_id":"p"}'],
      [`/collections/${globexCollection}/items`, '{"entity_type":"person","entity_id":"p","entity":{"__proto__":{"full_name":"x"}}}'],
      [`/collections/${globexCollection}/items`, '{"entity_type":"person","entity_id":"p","entity":{"constructor":{"prototype":{"isAdmin":true}}}}'],
      [`/collections/${globexCollection}/items/bulk`, '{"items":[{"entity_type":"person","entity_id":"p","__proto__":{"x":1}}]}'],
      [`/collections/${globexCollection}/items/bulk`, '{"items":[{"entity_type":"person","entity_id":"p"}],"__proto__":[]}'],
    ];
    for (const [path, body] of bodies) {
      expectRefused(await restPost(path, body), [400], body);
      expectRefused(
        await trpcPost(path.includes("bulk") ? "collections.items.bulkAdd" : path.includes("items") ? "collections.items.add" : "collections.create", body),
        [400],
        `tRPC ${body}`,
      );
    }
    // Nothing was written, and a new collection has only the contract's fields.
    expect((await api(server, "GET", `/collections/${globexCollection}`, undefined, tokens.globex)).body.item_count).toBe(0);
    const fresh = await api(server, "POST", "/collections", { name: "after pollution attempts" }, tokens.globex);
    expect(Object.keys(fresh.body).sort()).toEqual(["created_at", "description", "entity_type", "id", "item_count", "name", "updated_at"]);
    expect(fresh.body.entity_type).toBeNull();
  });
});

describe("huge and malformed JSON", () => {
  const deepArrays = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
  const deepObjects = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
  const malformed = [
    '{"name":',
    "{",
    "[",
    "nul",
    '{"name":"x"}garbage',
    '{"name":"x",}',
    "{'name':'x'}",
    '{"name":NaN}',
    '{"name":"x"} {"name":"y"}',
    '{"name":"tab\tinside"}',
    "\u0000",
    '{"name":"x"',
    '{"name":"\\x41"}',
    '{"name":"\\u12"}',
    "\ufeff\ufeff{}",
  ];

  it("malformed JSON is a 400 on REST and tRPC", async () => {
    for (const body of malformed) {
      expectInvalid(await restPost("/collections", body), "body", `REST ${JSON.stringify(body)}`);
      expectRefused(await trpcPost("collections.create", body), [400], `tRPC ${JSON.stringify(body)}`);
    }
  });

  it("JSON that is not an object, or nothing at all, is a 400", async () => {
    for (const body of ['"just a string"', "null", "[]", "123", "true", '[{"name":"x"}]']) {
      expectInvalid(await restPost("/collections", body), "body", body);
      expectRefused(await trpcPost("collections.create", body), [400], `tRPC ${body}`);
    }
    // An empty body is no input: the missing fields are named.
    expectInvalid(await restPost("/collections", ""), "name", "empty body");
    expectInvalid(await restPost("/collections", "   "), "body", "blank body");
    expectRefused(await trpcPost("collections.create", ""), [400], "tRPC empty body");
  });

  it("100,000 nested arrays or objects are a 400, quickly, and the server lives on", async () => {
    for (const deep of [deepArrays, deepObjects]) {
      expectInvalid(await restPost("/collections", `{"name":"x","description":${deep}}`), "description", "deep");
      expectInvalid(await restPost("/collections", deep), "body", "deep top level");
      expectRefused(await restPost(`/collections/${globexCollection}/items`, `{"entity_type":"person","entity_id":"d","entity":{"full_name":${deep}}}`), [400]);
      expectRefused(await trpcPost("collections.create", `{"name":"x","description":${deep}}`), [400], "tRPC deep");
      // Deep, within the 64 KiB the server allows a URL and its headers (see the 413 case below).
      expectRefused(await trpcGet("collections.list", encodeURIComponent(deep.slice(0, 2000) + deep.slice(-2000))), [400], "tRPC GET deep");
    }
    expect((await raw("GET", "/health")).status).toBe(200);
  });

  it("a 2,000-character query in a non-Latin script fits the URL limit; URL and headers over 64 KiB are a 413", async () => {
    const cjk = "機".repeat(1990);
    const fits = await raw("GET", `/v1/search/organizations/similar?limit=1&description=${encodeURIComponent(cjk)}`);
    expect(fits.status, fits.text.slice(0, 300)).toBe(200);
    const huge = await raw("GET", `/v1/search/organizations/similar?description=${"a".repeat(70 * 1024)}`);
    expectRefused(huge, [413], "huge URL");
    expect(contractError(huge).code).toBe("PAYLOAD_TOO_LARGE");
    const hugeHeader = await raw("GET", "/v1/categories", { headers: { "x-padding": "b".repeat(70 * 1024) } });
    expectRefused(hugeHeader, [413], "huge header");
    expect((await raw("GET", "/health")).status).toBe(200);
  });

  it("a 4 MiB string is read and refused by the field's own limit", async () => {
    const big = "a".repeat(4 * 1024 * 1024);
    expectInvalid(await restPost("/collections", json({ name: big })), "name");
    expectInvalid(await restPost(`/collections/${globexCollection}/items`, json({ entity_type: "person", entity_id: "big", notes: big })), "notes");
    expectInvalid(await raw("GET", `/v1/search/organizations/similar?description=${"a".repeat(16_000)}`), "description");
    expectRefused(await trpcPost("collections.create", json({ name: big })), [400], "tRPC 4 MiB");
    expectRefused(await restPost("/collections", json({ name: `${big}${big}` })), [413], "8 MiB");
  });

  it("duplicate keys are a 400 naming the key", async () => {
    expectInvalid(await restPost("/collections", '{"name":"first","name":"second"}'), "name");
    expectInvalid(await restPost("/collections", '{"name":"x","\\u006eame":"y"}'), "name");
    const nested = await restPost(`/collections/${globexCollection}/items/bulk`, '{"items":[{"entity_type":"person","entity_id":"1","entity_id":"2"}]}');
    expectInvalid(nested, "items.0.entity_id");
    expect((await api(server, "GET", `/collections/${globexCollection}`, undefined, tokens.globex)).body.item_count).toBe(0);
  });

  it("[tRPC transport checks] duplicate keys are a 400 on tRPC too", async () => {
    expectInvalid(await trpcPost("collections.create", '{"name":"first","name":"second"}'), "name");
  });

  it("duplicate keys in a tRPC GET input are a 400 naming the key, as in a POST body", async () => {
    const duplicated = encodeURIComponent('{"description":"industrial robots","description":"x","limit":3}');
    expectInvalid(await trpcGet("search.similarToDescription", duplicated), "description");
    const batched = encodeURIComponent('{"0":{"description":"robots","limit":3,"limit":4}}');
    const batch = await raw("GET", `/trpc/search.similarToDescription?batch=1&input=${batched}`);
    expect(batch.status, batch.text).toBe(400);
    expect(batch.body[0].error.data.error.details.issues[0]).toMatchObject({ path: ["0", "limit"], message: expect.stringMatching(/duplicate key "limit"/) });
    const proto = encodeURIComponent('{"description":"robots","__proto__":{"limit":3}}');
    expectInvalid(await trpcGet("search.similarToDescription", proto), "__proto__");
    // The same input without the duplicate is served.
    expect((await trpcGet("search.similarToDescription", encodeURIComponent('{"description":"industrial robots","limit":3}'))).status).toBe(200);
  });

  it("a body with the wrong content-type is a 400 naming content-type; JSON types are accepted", async () => {
    const body = json({ name: "typed" });
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/xml",
      "application/json; charset=latin1",
      "application/jsonp",
      "json",
    ]) {
      expectInvalid(await restPost("/collections", body, { "content-type": type }), "content-type", type);
    }
    expectInvalid(await restPost("/collections", body, {}), "content-type", "no content-type");
    for (const type of ["application/json; charset=utf-8", "Application/JSON", 'application/json;charset="UTF-8"']) {
      expect((await restPost("/collections", body, { "content-type": type })).status, type).toBe(201);
    }
    // tRPC answers a foreign content-type with its own 4xx, in the contract's shape.
    for (const type of ["text/plain", "application/xml"]) {
      const answer = await trpcPost("collections.create", body, { "content-type": type });
      expect(answer.status, `tRPC ${type}: ${answer.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    }
  });
});

describe("invalid UTF-8", () => {
  const invalidSequences: [string, number[]][] = [
    ["FF", [0xff]],
    ["FE", [0xfe]],
    ["C3 28", [0xc3, 0x28]],
    ["overlong C0 AF", [0xc0, 0xaf]],
    ["overlong E0 80 AF", [0xe0, 0x80, 0xaf]],
    ["surrogate ED A0 80", [0xed, 0xa0, 0x80]],
    ["beyond U+10FFFF F4 90 80 80", [0xf4, 0x90, 0x80, 0x80]],
    ["F8 88 80 80 80", [0xf8, 0x88, 0x80, 0x80, 0x80]],
    ["lone continuation 80", [0x80]],
    ["truncated E2 82", [0xe2, 0x82]],
  ];
  const bodyWith = (bytes: number[]) => Buffer.concat([Buffer.from('{"name":"x'), Buffer.from(bytes), Buffer.from('y"}')]);
  const percent = (bytes: number[]) => bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");

  it("in a REST body: 400, nothing stored", async () => {
    for (const [label, bytes] of invalidSequences) {
      expectInvalid(await restPost("/collections", bodyWith(bytes)), "body", label);
      expectInvalid(
        await restPost(
          `/collections/${globexCollection}/items`,
          Buffer.concat([Buffer.from('{"entity_type":"person","entity_id":"'), Buffer.from(bytes), Buffer.from('"}')]),
        ),
        "body",
        label,
      );
    }
    expect((await api(server, "GET", `/collections/${globexCollection}`, undefined, tokens.globex)).body.item_count).toBe(0);
  });

  it("escaped lone surrogates are not text: 400; a surrogate pair is fine", async () => {
    for (const escaped of ["\\ud800", "\\udc00", "x\\ud800\\u0041", "\\udfff\\ud800"]) {
      expectInvalid(await restPost("/collections", `{"name":"${escaped}"}`), "name", escaped);
      expectInvalid(await restPost(`/collections/${globexCollection}/items`, `{"entity_type":"person","entity_id":"${escaped}"}`), "entity_id", escaped);
    }
    const emoji = await restPost("/collections", '{"name":"\\ud83d\\ude00 and 😀"}');
    expect(emoji.status).toBe(201);
    expect(emoji.body.name).toBe("😀 and 😀");
  });

  it("[tRPC transport checks] in a tRPC body: 400", async () => {
    for (const [label, bytes] of invalidSequences) expectInvalid(await trpcPost("collections.create", bodyWith(bytes)), "body", label);
    expectInvalid(await trpcPost("collections.create", '{"name":"\\ud800"}'), "name", "lone surrogate");
  });

  it("percent-encoded in a query string: 400 naming the parameter", async () => {
    for (const [label, bytes] of [...invalidSequences, ["lone %", []] as [string, number[]]]) {
      const encoded = bytes.length ? percent(bytes) : "100%";
      expectInvalid(await raw("GET", `/v1/search/organizations/similar?description=robots${encoded}robots`), "description", label);
      expectInvalid(await raw("GET", `/v1/collections?cursor=${encoded}`), "cursor", label);
      expectRefused(await raw("GET", `/v1/search/organizations/similar?description=robots&${encoded}=1`), [400], label);
      expectRefused(await raw("GET", `/trpc/collections.list?input=${encoded}`), [400], `tRPC ${label}`);
    }
  });

  it("[tRPC transport checks] percent-encoded inside tRPC's JSON input: 400", async () => {
    for (const [label, bytes] of invalidSequences) {
      const input = `${encodeURIComponent('{"description":"robots')}${percent(bytes)}${encodeURIComponent('robots"}')}`;
      expectRefused(await trpcGet("search.similarToDescription", input), [400], label);
    }
  });

  it("percent-encoded in a path: 400", async () => {
    for (const [label, bytes] of invalidSequences) {
      const p = percent(bytes);
      expectRefused(await raw("GET", `/v1/collections/${p}`), [400], label);
      expectRefused(await raw("GET", `/v1/collections/col_${p}/items`), [400], label);
      expectRefused(await raw("GET", `/v1/organizations/${p}`), [400], label);
      expectRefused(await raw("GET", `/v1/search/organizations/${p}/similar`), [400], label);
      expectRefused(await raw("DELETE", `/v1/collections/${globexCollection}/items/itm_${p}`), [400], label);
    }
  });
});

describe("path traversal", () => {
  const leaked = (a: Answer) => /root:x:0|"name":\s*"(@orgsim|swagger-ui-dist|orgsim)|"dependencies"|SQLite format|BEGIN (RSA|OPENSSH)/.test(a.text);

  it("in ids on /v1: 400 or 404, never a file", async () => {
    const paths = [
      "/v1/../package.json",
      "/v1/..%2F..%2Fpackage.json",
      "/v1/collections/..%2F..%2Fetc%2Fpasswd",
      "/v1/collections/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
      "/v1/collections/..%2F..%2F..%2F..%2Fetc%2Fpasswd/items",
      "/v1/collections/col_a%00",
      "/v1/collections/col_a%00.json",
      "/v1/collections/..%5C..%5Cetc%5Cpasswd",
      "/v1/collections/%252e%252e%252fetc%252fpasswd",
      "/v1/organizations/1%00",
      "/v1/organizations/..%2F1",
      `/v1/collections/${globexCollection}/items/..%2F..%2F..%2Fetc%2Fpasswd`,
      `/v1/collections/${globexCollection}/items/itm_a%00`,
      "/v1/search/organizations/..%2F..%2Fetc%2Fpasswd/similar",
      "/trpc/..%2F..%2Fetc%2Fpasswd",
      "/trpc/collections.get%00",
      "/openapi.json/../package.json",
      "/../../../etc/passwd",
      "/%2e%2e/%2e%2e/etc/passwd",
    ];
    for (const path of paths) {
      const answer = await raw("GET", path);
      expectRefused(answer, [400, 404], path);
      expect(leaked(answer), path).toBe(false);
    }
  });

  it("on /docs static files: 404 (or 400), never a file from disk", async () => {
    const paths = [
      "/docs/../../package.json",
      "/docs/..%2F..%2Fpackage.json",
      "/docs/%2e%2e/%2e%2e/package.json",
      "/docs/%2e%2e%2f%2e%2e%2fpackage.json",
      "/docs/..%5C..%5Cpackage.json",
      "/docs/%252e%252e%252fpackage.json",
      "/docs/....//....//package.json",
      "/docs/swagger-ui.css%00.js",
      "/docs/swagger-ui.css%00",
      "/docs//etc/passwd",
      "/docs/%2Fetc%2Fpasswd",
      "/docs/index.html/../../../package.json",
      "/docs/swagger-ui-bundle.js/../../../../etc/passwd",
      "/docs/package.json",
      "/docs/index.js",
      "/docs/absolute-path.js",
      "/docs/swagger-ui.css.map",
      "/docs/%73wagger-ui.css/..%2f..%2fpackage.json",
      "/docs/.%2e/.%2e/package.json",
    ];
    for (const path of paths) {
      const answer = await raw("GET", path, { token: null });
      expect([400, 404], `${path}: ${answer.status} ${answer.text.slice(0, 200)}`).toContain(answer.status);
      expect(leaked(answer), path).toBe(false);
    }
    // The real files are still served.
    for (const file of ["/docs", "/docs/", "/docs/swagger-ui.css", "/docs/swagger-ui-bundle.js"])
      expect((await raw("GET", file, { token: null })).status, file).toBe(200);
  });

  it("on /docs, names of Object.prototype members are a 404 with a request id, nothing logged; the page itself logs nothing", async () => {
    const before = server.output().length;
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"]) {
      const answer = await raw("GET", `/docs/${name}`, { token: null });
      expect(answer.status, `${name}: ${answer.text.slice(0, 200)}`).toBe(404);
      expect(answer.body.error).toMatchObject({ code: "NOT_FOUND", request_id: expect.any(String) });
    }
    for (const page of ["/docs", "/docs/", "/docs/index.html"]) expect((await raw("GET", page, { token: null })).status, page).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the server's log reaches us through a pipe
    const logged = server.output().slice(before);
    expect(logged).not.toMatch(/request failed|ERR_HTTP_HEADERS_SENT|ENOENT|swagger-ui-dist/);
  });
});

describe("afterwards", () => {
  it("the server is healthy, searches work, and acme's data is as it was", async () => {
    expect((await raw("GET", "/health", { token: null })).status).toBe(200);
    const ready = await raw("GET", "/ready", { token: null });
    expect(ready.status, ready.text).toBe(200);
    const search = await raw("GET", "/v1/search/organizations/similar?description=industrial+robots&limit=3");
    expect(search.status).toBe(200);
    expect(search.body.data).toHaveLength(3);
    await expectAcmeIntact();
  });
});
