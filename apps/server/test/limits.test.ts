/**
 * Every limit of the contract over real HTTP, on each backend, with its contract error and the
 * offending parameter named: `limit`, results depth, bulk sizes, request body size, text lengths,
 * items per collection, and cursors that cannot be forged.
 *
 * Tests named "[cursor signing] …" depend on signed cursors (packages/core/src/services/cursor.ts):
 * an unsigned cursor could be edited by the caller and would be accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, api, query, removeDir, TEST_BACKEND, type TestServer, startServer } from "./harness";

const MAX_BODY_BYTES = 5 * 1024 * 1024;
const SAMPLE_SIZE = 30;
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ORGSIM_SAMPLE_SIZE: String(SAMPLE_SIZE) } });
});
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

/** The issues' paths of a 400, as dotted strings. */
const issuePaths = (res: ApiResponse) => (res.body?.error?.details?.issues ?? []).map((i: { path: (string | number)[] }) => i.path.join("."));

/** A contract error (`{ error: { code, message, status, details, request_id } }`) with this status and code. */
function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)?.slice(0, 500)).toBe(status);
  expect(res.body.error).toMatchObject({ code, status, message: expect.any(String), details: expect.any(Object) });
  expect(Object.keys(res.body.error).sort()).toEqual(["code", "details", "message", "request_id", "status"]);
}

/** A 400 VALIDATION_FAILED whose issues name `param` (the first element of an issue's path, or the whole path). */
function expectInvalid(res: ApiResponse, param: string) {
  expectError(res, 400, "VALIDATION_FAILED");
  const paths = issuePaths(res);
  expect(
    paths.some((p: string) => p === param || p.startsWith(`${param}.`)),
    `issues ${JSON.stringify(paths)} should name ${param}`,
  ).toBe(true);
}

/** A tRPC call as the typed client sends it (GET for queries, POST for mutations); the contract error is in error.data.error. */
async function trpc(procedure: string, input: unknown, method: "GET" | "POST" = "GET") {
  const url = `${server.baseUrl}/trpc/${procedure}${method === "GET" ? `?input=${encodeURIComponent(JSON.stringify(input))}` : ""}`;
  const response = await fetch(url, method === "GET" ? {} : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(input) });
  const body = (await response.json()) as any;
  return { status: response.status, body, error: body?.error?.data?.error };
}

async function newCollection(body: Record<string, unknown> = { name: "Limits" }): Promise<string> {
  const res = await api(server, "POST", "/collections", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const person = (id: string) => ({ entity_type: "person", entity_id: id });
const searchPath = (params: Record<string, string | number | boolean | (string | number)[]>) => `/search/organizations/similar?${query(params)}`;

describe("limit: 1–100", () => {
  it("refuses 0, 101 and non-integers with 400 naming limit, on every paged operation", async () => {
    const c = await newCollection();
    const paged = [
      (limit: string) => `/search/organizations/similar?description=industrial+robots&limit=${limit}`,
      (limit: string) => `/search/organizations/similar-customers?organization_customer=dental+clinics&limit=${limit}`,
      (limit: string) => `/search/organizations/1/similar?limit=${limit}`,
      (limit: string) => `/collections?limit=${limit}`,
      (limit: string) => `/collections/${c}/items?limit=${limit}`,
    ];
    for (const path of paged) {
      for (const bad of ["0", "101", "-1", "1.5", "ten", "1e2", "0x10"]) expectInvalid(await api(server, "GET", path(bad)), "limit");
      for (const good of ["1", "100"]) expect((await api(server, "GET", path(good))).status).toBe(200);
    }
    const viaTrpc = await trpc("search.similarToDescription", { description: "industrial robots", limit: 101 });
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.error).toMatchObject({ code: "VALIDATION_FAILED", details: { issues: [expect.objectContaining({ path: ["limit"] })] } });
    expect((await trpc("collections.list", { limit: 0 })).error.details.issues[0].path).toEqual(["limit"]);
  });
});

describe("results deep: 1,000", () => {
  it("stops at 1,000 results however the pages are cut", async () => {
    // 1,000 small organizations (a bulk upsert at its limit) on top of the sample: 1,030 in all.
    const organizations = Array.from({ length: 1000 }, (_, i) => ({ id: 100_001 + i, name: `Widget Works ${i}`, description: "Makes widgets." }));
    const upserted = await api(server, "POST", "/organizations/bulk", { organizations });
    expect(upserted.status, JSON.stringify(upserted.body).slice(0, 300)).toBe(200);
    expect(upserted.body.meta.upserted).toBe(1000);

    // Pages of 100 to 900, then pages of 60 (a cursor resumes its query at any limit): 60, then the last 40.
    const ids: number[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const limit = ids.length < 900 ? 100 : 60;
      const res: ApiResponse = await api(server, "GET", searchPath({ description: "widget makers", limit, ...(cursor ? { cursor } : {}) }));
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
      sizes.push(res.body.data.length);
      expect(res.body.data.map((o: any) => o.similarity.rank)).toEqual(res.body.data.map((_: unknown, i: number) => ids.length + i + 1));
      ids.push(...res.body.data.map((o: any) => o.id));
      cursor = res.body.meta.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([...Array(9).fill(100), 60, 40]);
    expect(new Set(ids).size).toBe(1000);
  });
});

describe("bulk add and bulk upsert: 1,000 a request", () => {
  it("refuses 1,001 items (and none) with 400 naming items, writing nothing", async () => {
    const c = await newCollection();
    const items = Array.from({ length: 1001 }, (_, i) => person(`p${i}`));
    expectInvalid(await api(server, "POST", `/collections/${c}/items/bulk`, { items }), "items");
    expectInvalid(await api(server, "POST", `/collections/${c}/items/bulk`, { items: [] }), "items");
    const viaTrpc = await trpc("collections.items.bulkAdd", { id: c, items }, "POST");
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.error.details.issues.map((i: any) => i.path[0])).toContain("items");
    expect((await api(server, "GET", `/collections/${c}`)).body).toMatchObject({ entity_type: null, item_count: 0 });
    expect((await api(server, "POST", `/collections/${c}/items/bulk`, { items: items.slice(0, 1000) })).status).toBe(201);
  });

  it("refuses 1,001 organizations with 400 naming organizations, writing nothing", async () => {
    const organizations = Array.from({ length: 1001 }, (_, i) => ({ id: 200_001 + i, name: `Org ${i}`, description: "Makes things." }));
    expectInvalid(await api(server, "POST", "/organizations/bulk", { organizations }), "organizations");
    expectInvalid(await api(server, "POST", "/organizations/bulk", { organizations: [] }), "organizations");
    expect((await api(server, "GET", "/organizations/200001")).status).toBe(404);
  });
});

describe("request body: 5 MiB", () => {
  /** A JSON object body of exactly `bytes` bytes: `{"name":"aaa…"}`. */
  const bodyOf = (bytes: number) => `{"name":"${"a".repeat(bytes - 11)}"}`;
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as any,
      headers: r.headers,
    }));

  it("answers a REST body over 5 MiB with 413 PAYLOAD_TOO_LARGE in the contract's shape; 5 MiB exactly is read", async () => {
    expect(Buffer.byteLength(bodyOf(MAX_BODY_BYTES))).toBe(MAX_BODY_BYTES);
    const over = await post("/v1/collections", bodyOf(MAX_BODY_BYTES + 1));
    expectError(over, 413, "PAYLOAD_TOO_LARGE");
    expect(over.body.error.request_id).toEqual(expect.any(String));
    // At the limit the body is parsed: the name is what is wrong.
    expectInvalid(await post("/v1/collections", bodyOf(MAX_BODY_BYTES)), "name");

    const c = await newCollection();
    const items = Array.from({ length: 1000 }, (_, i) => ({ entity_type: "person", entity_id: `p${i}`, notes: "n".repeat(6000) }));
    expectError(await api(server, "POST", `/collections/${c}/items/bulk`, { items }), 413, "PAYLOAD_TOO_LARGE");
    expectError(await api(server, "PUT", "/organizations/5", { name: "x".repeat(MAX_BODY_BYTES) }), 413, "PAYLOAD_TOO_LARGE");
    expect((await api(server, "GET", `/collections/${c}`)).body.item_count).toBe(0);
  });

  it("answers a chunked body (no content-length) over 5 MiB with 413 too", async () => {
    const text = new TextEncoder().encode(bodyOf(MAX_BODY_BYTES + 1024));
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < text.length; i += 256 * 1024) controller.enqueue(text.subarray(i, i + 256 * 1024));
        controller.close();
      },
    });
    const res = await fetch(`${server.baseUrl}/v1/collections`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expectError({ status: res.status, body: await res.json(), headers: res.headers }, 413, "PAYLOAD_TOO_LARGE");
  });

  it("answers a tRPC body over 5 MiB with 413 PAYLOAD_TOO_LARGE in its error data", async () => {
    const res = await post("/trpc/collections.create", bodyOf(MAX_BODY_BYTES + 1));
    expect(res.status).toBe(413);
    expect(res.body.error.data.error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    expect(res.body.error.data.httpStatus).toBe(413);
  });
});

describe("text inputs: 2,000 for queries, 200 for names, 10,000 for notes, 50 tags of 64", () => {
  it("refuses a 2,001-character query, naming it", async () => {
    const text = (n: number) => `${"robots ".repeat(Math.ceil(n / 7))}`.slice(0, n);
    expect((await api(server, "GET", searchPath({ description: text(2000), limit: 1 }))).status).toBe(200);
    expectInvalid(await api(server, "GET", searchPath({ description: text(2001) })), "description");
    expectInvalid(await api(server, "GET", `/search/organizations/similar-customers?${query({ organization_customer: text(2001) })}`), "organization_customer");
    const viaTrpc = await trpc("search.similarToDescription", { description: text(2001) });
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.error.details.issues[0].path).toEqual(["description"]);
  });

  it("refuses a 201-character name and a 2,001-character collection description", async () => {
    expect((await api(server, "POST", "/collections", { name: "n".repeat(200) })).status).toBe(201);
    expectInvalid(await api(server, "POST", "/collections", { name: "n".repeat(201) }), "name");
    expectInvalid(await api(server, "POST", "/collections", { name: "ok", description: "d".repeat(2001) }), "description");
    const c = await newCollection();
    expectInvalid(await api(server, "PATCH", `/collections/${c}`, { name: "n".repeat(201) }), "name");
    expectInvalid(await api(server, "PUT", "/organizations/7", { name: "n".repeat(201) }), "name");
    expect((await api(server, "GET", `/collections/${c}`)).body.name).toBe("Limits");
  });

  it("refuses 10,001 characters of notes, 51 tags and a 65-character tag, naming each", async () => {
    const c = await newCollection();
    const ok = await api(server, "POST", `/collections/${c}/items`, {
      ...person("a"),
      notes: "n".repeat(10_000),
      tags: Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(64, "t")),
    });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(201);
    expectInvalid(await api(server, "POST", `/collections/${c}/items`, { ...person("b"), notes: "n".repeat(10_001) }), "notes");
    expectInvalid(await api(server, "POST", `/collections/${c}/items`, { ...person("b"), tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }), "tags");
    const longTag = await api(server, "POST", `/collections/${c}/items`, { ...person("b"), tags: ["fine", "t".repeat(65)] });
    expectInvalid(longTag, "tags");
    expect(issuePaths(longTag)).toContain("tags.1");
    expectInvalid(await api(server, "POST", `/collections/${c}/items`, { ...person("x".repeat(201)) }), "entity_id");
    // The same limits on update and in a bulk (where the failing index is named).
    expectInvalid(await api(server, "PATCH", `/collections/${c}/items/${ok.body.id}`, { notes: "n".repeat(10_001) }), "notes");
    expectInvalid(await api(server, "PATCH", `/collections/${c}/items/${ok.body.id}`, { tags: ["t".repeat(65)] }), "tags");
    const bulk = await api(server, "POST", `/collections/${c}/items/bulk`, { items: [person("c"), { ...person("d"), tags: Array(51).fill("t") }] });
    expectInvalid(bulk, "items");
    expect(bulk.body.error.details.failing_indexes).toEqual([1]);
    expect((await api(server, "GET", `/collections/${c}`)).body.item_count).toBe(1);
  });

  it("refuses a cursor longer than 2,000 characters, naming it", async () => {
    expectInvalid(await api(server, "GET", searchPath({ description: "industrial robots", cursor: "a".repeat(2001) })), "cursor");
    expectInvalid(await api(server, "GET", `/collections?cursor=${"a".repeat(2001)}`), "cursor");
  });
});

describe("items in a collection: 100,000", () => {
  const BULK = 1000;
  const bulkOf = (collectionId: string, batch: number, count = BULK) =>
    api(server, "POST", `/collections/${collectionId}/items/bulk`, { items: Array.from({ length: count }, (_, i) => person(`p${batch * BULK + i}`)) });

  it("fills to 100,000 with bulk adds of 1,000, refuses overfilling bulks racing at the limit, then the 100,001st with 409 CONFLICT", async () => {
    const c = await newCollection({ name: "Full", entity_type: "person" });
    // 99 bulks, four requests at a time (on Elasticsearch each write waits for a refresh).
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      for (let batch = next++; batch < 99; batch = next++) {
        const res = await bulkOf(c, batch);
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const seconds = (performance.now() - started) / 1000;
    console.log(`[limits] ${TEST_BACKEND}: 99,000 items in 99 bulk adds of 1,000 (4 at a time) in ${seconds.toFixed(1)} s`);
    expect((await api(server, "GET", `/collections/${c}`)).body.item_count).toBe(99_000);

    // Three bulks of 1,000 new items at once: at most one fits; the others are refused whole.
    const racing = await Promise.all([bulkOf(c, 200), bulkOf(c, 201), bulkOf(c, 202)]);
    const fitted = racing.filter((r) => r.status === 201);
    expect(fitted.length).toBeLessThanOrEqual(1);
    for (const refused of racing.filter((r) => r.status !== 201)) expectError(refused, 409, "CONFLICT");
    let count = (await api(server, "GET", `/collections/${c}`)).body.item_count;
    expect(count).toBe(99_000 + BULK * fitted.length);
    if (fitted.length === 0) expect((await bulkOf(c, 99)).status).toBe(201);
    count = (await api(server, "GET", `/collections/${c}`)).body.item_count;
    expect(count).toBe(100_000);

    const extra = await api(server, "POST", `/collections/${c}/items`, person("one-too-many"));
    expectError(extra, 409, "CONFLICT");
    expect(extra.body.error.details).toMatchObject({ item_count: 100_000, limit: 100_000 });
    expect(extra.body.error.message).toContain("100000");
    expectError(await api(server, "POST", `/collections/${c}/items/bulk`, { items: [person("p0"), person("new-1")] }), 409, "CONFLICT");
    // Retrying an add that is already there is no new item: still answered.
    const again = await api(server, "POST", `/collections/${c}/items`, person("p5"));
    expect(again.status).toBe(200);
    expect((await api(server, "POST", `/collections/${c}/items/bulk`, { items: [person("p0"), person("p1")] })).status).toBe(200);

    // Room for one after a delete, and only one.
    expect((await api(server, "DELETE", `/collections/${c}/items/${again.body.id}`)).status).toBe(204);
    expect((await api(server, "POST", `/collections/${c}/items`, person("one-too-many"))).status).toBe(201);
    expectError(await api(server, "POST", `/collections/${c}/items`, person("two-too-many")), 409, "CONFLICT");
    expect((await api(server, "GET", `/collections/${c}`)).body.item_count).toBe(100_000);
  }, 180_000);
});

describe("cursors cannot be forged", () => {
  const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  /** Changes the character at `at` in its most significant bit (a low bit of a last base64 character may be padding). */
  const flip = (s: string, at: number) => {
    const index = BASE64URL.indexOf(s[at] ?? "");
    return s.slice(0, at) + (index < 0 ? "A" : BASE64URL[index ^ 32]) + s.slice(at + 1);
  };
  const decodePart = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  const encodePart = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

  async function firstSearchCursor(params: Record<string, string | number> = {}) {
    const res = await api(server, "GET", searchPath({ description: "industrial robots", limit: 5, ...params }));
    expect(res.status).toBe(200);
    expect(res.body.meta.next_cursor).toEqual(expect.any(String));
    return res.body.meta.next_cursor as string;
  }

  it("resumes the same query with its own cursor", async () => {
    const cursor = await firstSearchCursor();
    const next = await api(server, "GET", searchPath({ description: "industrial robots", limit: 5, cursor }));
    expect(next.status).toBe(200);
    expect(next.body.data.map((o: any) => o.similarity.rank)).toEqual([6, 7, 8, 9, 10]);
  });

  it("refuses a cursor edited by the caller with 400 naming cursor (REST and tRPC)", async () => {
    const cursor = await firstSearchCursor();
    const tampered = [
      flip(cursor, 0),
      flip(cursor, cursor.length - 1),
      flip(cursor, Math.floor(cursor.length / 2)),
      cursor.slice(0, -1),
      `${cursor}A`,
      `${cursor}.x`,
      cursor.split("").reverse().join(""),
      "not-a-cursor",
      "e30",
      "%00",
    ];
    for (const bad of tampered) {
      expectInvalid(await api(server, "GET", searchPath({ description: "industrial robots", limit: 5, cursor: bad })), "cursor");
    }
    const viaTrpc = await trpc("search.similarToDescription", { description: "industrial robots", limit: 5, cursor: flip(cursor, 3) });
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.error.details.issues[0].path).toEqual(["cursor"]);
  });

  it("decodes cursors strictly: padding, trailing characters and other spellings of the signature are refused (REST and tRPC)", async () => {
    const cursor = await firstSearchCursor();
    const [payload, signature = ""] = cursor.split(".");
    const last = BASE64URL.indexOf(signature.at(-1) ?? "");
    // The last of 22 characters carries 2 bits of the 16-byte signature; its 4 low bits are unused.
    const respelled = `${payload}.${signature.slice(0, -1)}${BASE64URL[last ^ 1]}`;
    const variants = [`${cursor}=`, `${cursor}==`, `${payload}=.${signature}`, `${cursor} `, `${cursor}%0A`, respelled, `${payload}.${signature}.`];
    for (const bad of variants) {
      const res = await api(server, "GET", `${searchPath({ description: "industrial robots", limit: 5 })}&cursor=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(issuePaths(res), bad).toEqual(["cursor"]);
      const viaTrpc = await trpc("search.similarToDescription", { description: "industrial robots", limit: 5, cursor: bad });
      expect(viaTrpc.status, bad).toBe(400);
      expect(viaTrpc.error.details.issues[0].path).toEqual(["cursor"]);
    }
  });

  it("[cursor signing] refuses a cursor whose position was edited (deeper than 1,000 or anywhere else)", async () => {
    const cursor = await firstSearchCursor();
    const [payload, signature] = cursor.split(".");
    expect(signature, "a signed cursor is <payload>.<signature>").toEqual(expect.any(String));
    const decoded = decodePart(payload!);
    for (const position of [995, 5000, 0, -1, 6]) {
      const edited = `${encodePart({ ...decoded, p: position })}.${signature}`;
      expectInvalid(await api(server, "GET", searchPath({ description: "industrial robots", limit: 5, cursor: edited })), "cursor");
    }
    // An unsigned cursor, as a caller would make one.
    expectInvalid(await api(server, "GET", searchPath({ description: "industrial robots", limit: 5, cursor: encodePart(decoded) })), "cursor");
  });

  it("refuses a cursor of another query", async () => {
    const cursor = await firstSearchCursor();
    expectInvalid(await api(server, "GET", searchPath({ description: "dental clinics software", limit: 5, cursor })), "cursor");
    expectInvalid(await api(server, "GET", searchPath({ description: "industrial robots", countries: "DE", limit: 5, cursor })), "cursor");
    expectInvalid(
      await api(server, "GET", `/search/organizations/similar-customers?${query({ organization_customer: "industrial robots", limit: 5, cursor })}`),
      "cursor",
    );
    expectInvalid(await api(server, "GET", `/search/organizations/3/similar?${query({ limit: 5, cursor })}`), "cursor");
    expectInvalid(await api(server, "GET", `/collections?${query({ cursor })}`), "cursor");
  });

  it("refuses a cursor of another collection, and an items cursor on the collections list", async () => {
    const a = await newCollection({ name: "A", entity_type: "person" });
    const b = await newCollection({ name: "B", entity_type: "person" });
    for (const c of [a, b]) expect((await bulkOfPeople(c, 5)).status).toBe(201);
    const page = await api(server, "GET", `/collections/${a}/items?limit=2`);
    const cursor = page.body.meta.next_cursor as string;
    expect(cursor).toEqual(expect.any(String));
    expect((await api(server, "GET", `/collections/${a}/items?${query({ limit: 2, cursor })}`)).status).toBe(200);
    expectInvalid(await api(server, "GET", `/collections/${b}/items?${query({ limit: 2, cursor })}`), "cursor");
    expectInvalid(await api(server, "GET", `/collections?${query({ limit: 2, cursor })}`), "cursor");
    const searchCursor = await firstSearchCursor();
    expectInvalid(await api(server, "GET", `/collections/${a}/items?${query({ cursor: searchCursor })}`), "cursor");
  });

  it("[cursor signing] refuses an items cursor whose position or collection was edited", async () => {
    const a = await newCollection({ name: "A", entity_type: "person" });
    const b = await newCollection({ name: "B", entity_type: "person" });
    for (const c of [a, b]) expect((await bulkOfPeople(c, 5)).status).toBe(201);
    const cursorA = (await api(server, "GET", `/collections/${a}/items?limit=2`)).body.meta.next_cursor as string;
    const cursorB = (await api(server, "GET", `/collections/${b}/items?limit=2`)).body.meta.next_cursor as string;
    const [payloadA, signatureA] = cursorA.split(".");
    const [payloadB] = cursorB.split(".");
    const decodedA = decodePart(payloadA!);
    // A's position under B's scope (the scope of B, the signature of A), and an edited position.
    const spliced = `${encodePart({ ...decodedA, q: decodePart(payloadB!).q })}.${signatureA}`;
    expectInvalid(await api(server, "GET", `/collections/${b}/items?${query({ cursor: spliced })}`), "cursor");
    const edited = `${encodePart({ ...decodedA, p: ["", ""] })}.${signatureA}`;
    expectInvalid(await api(server, "GET", `/collections/${a}/items?${query({ cursor: edited })}`), "cursor");
  });

  const bulkOfPeople = (collectionId: string, count: number) =>
    api(server, "POST", `/collections/${collectionId}/items/bulk`, { items: Array.from({ length: count }, (_, i) => person(`p${i}`)) });
});
