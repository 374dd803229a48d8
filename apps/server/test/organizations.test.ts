/** Organizations, categories, the OpenAPI document, the typed client, and restarts, over real HTTP. */
import { createOrgsimClient, orgsimErrorOf } from "@orgsim/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, removeDir, TEST_BACKEND, type TestServer, startServer } from "./harness";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ORGSIM_SAMPLE_SIZE: "20" } });
});
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

const lyonRobotics = {
  name: "Lyon Test Robotics",
  description: "Builds collaborative robot arms for food packaging lines. Its customers are plant managers at mid-sized food manufacturers.",
  categories: ["robotics", "industrial-automation"],
  metrics: {
    employee_count: 42,
    founded_on: "2015-03-01",
    funding: { total_raised_usd: 12_000_000, rounds_count: 3, last_round: { stage: "series_a", announced_on: "2023-05-02", amount_usd: 8_000_000 } },
  },
  location: {
    headquarters: { city: "Lyon", subdivision_code: "FR-ARA", country_code: "FRA" },
    offices: [{ city: "Austin", country_code: "US", subdivision_code: "US-TX" }],
  },
};

describe("lookup by name and domain", () => {
  const names: [number, string, string | null][] = [
    [7101, "Zorblax", "zorblax.example"],
    [7102, "Zorblax Atlas", "https://www.zorblax.example/atlas"],
    [7103, "Acme Zorblax Payments", null],
    [7104, "Zorblaxian Labs", null],
  ];
  beforeAll(async () => {
    const organizations = names.map(([id, name, domain]) => ({ id, name, domain, description: `${name} makes test fixtures` }));
    const bulk = await api(server, "POST", "/organizations/bulk", { organizations });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
  });
  const ids = (body: { data: { id: number }[] }) => body.data.map((o) => o.id);

  it("finds by name prefix, best first, paged by cursor", async () => {
    const first = await api(server, "GET", "/organizations?name=zorb&limit=2");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // Names that start with it (by name), then a name where a word starts with it.
    expect(ids(first.body)).toEqual([7101, 7102]);
    const second = await api(server, "GET", `/organizations?name=zorb&limit=2&cursor=${first.body.meta.next_cursor}`);
    expect(ids(second.body)).toEqual([7104, 7103]);
    expect(second.body.meta).toEqual({ limit: 2, next_cursor: null });
    expect((await api(server, "GET", "/organizations?name=Zorblax%20atl")).body.data).toMatchObject([{ id: 7102, name: "Zorblax Atlas" }]);
    // A cursor resumes only its own query.
    const other = await api(server, "GET", `/organizations?name=zorblax&limit=2&cursor=${first.body.meta.next_cursor}`);
    expect(other.status).toBe(400);
  });

  it("finds by domain whatever the scheme, www. or path, alone or with a name", async () => {
    const byDomain = await api(server, "GET", `/organizations?domain=${encodeURIComponent("HTTPS://WWW.Zorblax.example/pricing?x=1")}`);
    expect(ids(byDomain.body)).toEqual([7101, 7102]);
    expect(ids((await api(server, "GET", "/organizations?domain=zorblax.example&name=atlas")).body)).toEqual([7102]);
    expect(ids((await api(server, "GET", "/organizations?domain=zorblax.org")).body)).toEqual([]);
  });

  it("refuses a lookup without a name or domain, or with one that names nothing, naming the parameter", async () => {
    for (const [path, parameter] of [
      ["/organizations", "name"],
      ["/organizations?name=%21%21", "name"],
      ["/organizations?domain=not%20a%20domain", "domain"],
      ["/organizations?name=x&limit=101", "limit"],
    ] as const) {
      const response = await api(server, "GET", path);
      expect(response.status, path).toBe(400);
      expect(
        response.body.error.details.issues.map((i: { path: string[] }) => i.path.join(".")),
        path,
      ).toContain(parameter);
    }
  });

  it("answers the typed client the same", async () => {
    const client = createOrgsimClient({ url: server.baseUrl });
    const page = await client.organizations.find.query({ name: "zorblax", limit: 10 });
    expect(page.data.map((o) => o.id)).toEqual([7101, 7102, 7104, 7103]);
    // From a lookup to several seeds, typed end to end.
    const like = await client.search.similarToSeeds.mutate({
      like: [{ organization_id: 7101 }, { domain: "zorblax.example" }, { organization_id: 1 }],
      limit: 5,
    });
    expect(like.meta.missing_seeds).toEqual([]);
    expect(like.data.map((o) => o.id)).not.toContain(7101);
    expect(like.data).toHaveLength(5);
  });
});

describe("organizations", () => {
  it("upserts, normalizes and derives fields, then reads back", async () => {
    const put = await api(server, "PUT", "/organizations/5001", lyonRobotics);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({
      id: 5001,
      metrics: { employee_range: "11-50", founded_year: 2015 },
      location: { headquarters: { country_code: "FR", country: "France", world_region: "western-europe" } },
      domain: null,
      logo_url: null,
      fictional: false,
    });
    const got = await api(server, "GET", "/organizations/5001");
    expect(got.body).toEqual(put.body);
  });

  it("round-trips: PUT and bulk accept what GET returns (id, derived fields), and ignore a place's derived names", async () => {
    const got = (await api(server, "GET", "/organizations/5001")).body;
    expect(got.location.headquarters).toMatchObject({ country: "France", world_region: "western-europe" });
    const put = await api(server, "PUT", "/organizations/5001", got);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual(got);
    const bulk = await api(server, "POST", "/organizations/bulk", { organizations: [got] });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    expect(bulk.body.data).toEqual([got]);

    // A sample organization (every field filled) too.
    const sample = (await api(server, "GET", "/organizations/1")).body;
    expect((await api(server, "PUT", "/organizations/1", sample)).body).toEqual(sample);

    // Derived names are recomputed from country_code, whatever is sent.
    const stale = structuredClone(got);
    stale.location.headquarters.country = "Atlantis";
    stale.location.headquarters.world_region = "nowhere";
    expect((await api(server, "PUT", "/organizations/5001", stale)).body).toEqual(got);

    // The id a read returns must be the path's.
    const elsewhere = await api(server, "PUT", "/organizations/5003", got);
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.details.issues.map((i: { path: string[] }) => i.path.join("."))).toEqual(["id"]);
    expect((await api(server, "GET", "/organizations/5003")).status).toBe(404);

    const doc: any = await (await fetch(`${server.baseUrl}/openapi.json`)).json();
    const putBody = doc.paths["/organizations/{organization_id}"].put.requestBody.content["application/json"].schema;
    for (const schema of [putBody, doc.components.schemas.OrganizationWithId]) expect(schema.description).toContain("ignored and recomputed from country_code");
  });

  it("finds an upserted organization by its description and its customers", async () => {
    const byDescription = await api(server, "GET", "/search/organizations/similar?description=collaborative+robot+arms+for+food+packaging&limit=1");
    expect(byDescription.body.data[0].id).toBe(5001);
    const byCustomers = await api(server, "GET", "/search/organizations/similar-customers?organization_customer=plant+managers+at+food+manufacturers&limit=1");
    expect(byCustomers.body.data[0].id).toBe(5001);
  });

  it("replaces on a second upsert (idempotent by id)", async () => {
    await api(server, "PUT", "/organizations/5002", { name: "Before" });
    const second = await api(server, "PUT", "/organizations/5002", { name: "After", description: "Now with a description." });
    expect(second.body).toMatchObject({ name: "After", description: "Now with a description." });
    expect((await api(server, "GET", "/organizations/5002")).body.name).toBe("After");
  });

  it("bulk upserts all or nothing, naming the failing indexes", async () => {
    const ok = await api(server, "POST", "/organizations/bulk", {
      organizations: [
        { id: 6001, name: "Bulk One" },
        { id: 6002, name: "Bulk Two", location: { headquarters: { country_code: "DE" } } },
      ],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.meta.upserted).toBe(2);

    const bad = await api(server, "POST", "/organizations/bulk", {
      organizations: [
        { id: 6003, name: "Fine" },
        { id: 6004, name: "Bad country", location: { headquarters: { country_code: "ZZ" } } },
        { id: 6005, name: "" },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.failing_indexes).toEqual([1, 2]);
    expect((await api(server, "GET", "/organizations/6003")).status).toBe(404);
  });

  it("deletes, then answers 404", async () => {
    await api(server, "PUT", "/organizations/5003", { name: "Short-lived" });
    expect((await api(server, "DELETE", "/organizations/5003")).status).toBe(204);
    expect((await api(server, "GET", "/organizations/5003")).status).toBe(404);
    expect((await api(server, "DELETE", "/organizations/5003")).status).toBe(404);
  });

  it.each([
    [{}, "name"],
    [{ name: "x", location: { headquarters: { country_code: "Narnia" } } }, "country_code"],
    [{ name: "x", location: { headquarters: { subdivision_code: "FR-XXX" } } }, "subdivision_code"],
    [{ name: "x", categories: ["not-a-category"] }, "categories"],
    [{ name: "x", metrics: { employee_count: -1 } }, "employee_count"],
    [{ name: "x", metrics: { employee_count: 5, employee_range: "10001+" } }, "employee_range"],
    [{ name: "x", metrics: { founded_on: "2015-02-30" } }, "founded_on"],
    [{ name: "x", unknown_field: 1 }, "unknown_field"],
  ])("refuses a bad organization %j with 400 naming %s, storing nothing", async (body, parameter) => {
    const res = await api(server, "PUT", "/organizations/7001", body);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.error)).toContain(parameter);
    expect((await api(server, "GET", "/organizations/7001")).status).toBe(404);
  });

  it("keeps the stored record when a replacement is invalid", async () => {
    const res = await api(server, "PUT", "/organizations/5001", { name: "" });
    expect(res.status).toBe(400);
    expect((await api(server, "GET", "/organizations/5001")).body.name).toBe("Lyon Test Robotics");
  });
});

describe("reference and documents", () => {
  it("lists the category taxonomy", async () => {
    const res = await api(server, "GET", "/categories");
    expect(res.body.data.length).toBeGreaterThan(30);
    expect(res.body.data).toContainEqual(expect.objectContaining({ slug: "industrial-automation" }));
  });

  it("serves the OpenAPI document with every contract path and the contract's error schema", async () => {
    const doc: any = await (await fetch(`${server.baseUrl}/openapi.json`)).json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const path of [
      "/search/organizations/{organization_id}/similar",
      "/search/organizations/similar",
      "/search/organizations/similar-customers",
      "/collections/{id}/items",
      "/collections/{id}/items/bulk",
      "/collections/{id}/items/{item_id}",
      "/organizations/{organization_id}",
      "/organizations/bulk",
      "/categories",
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.servers[0].url).toBe(`${server.baseUrl}/v1`);
    expect(doc.components.schemas.Error).toBeDefined();
    // The search parameters carry the core schemas' descriptions, and the deprecated alias says so.
    const parameters = doc.paths["/search/organizations/similar"].get.parameters as { name: string; description?: string; deprecated?: boolean }[];
    const byName = new Map(parameters.map((p) => [p.name, p]));
    for (const name of ["countries", "exclude_ids", "exclude_collection_ids", "min_similarity", "ranking", "cursor"])
      expect(byName.get(name)?.description, name).toBeTruthy();
    expect(byName.get("min_score")).toMatchObject({ deprecated: true, description: expect.stringContaining("min_similarity") });
    expect(byName.get("min_similarity")?.deprecated).toBeUndefined();
  });

  it("documents each 409 with the codes its operation declares, and links to no outside site", async () => {
    const doc: any = await (await fetch(`${server.baseUrl}/openapi.json`)).json();
    const conflictCodes = (operation: any) => operation.responses["409"]?.content["application/json"].schema.allOf[1].properties.error.properties.code.enum;
    expect(conflictCodes(doc.paths["/collections/{id}/items"].post)).toEqual(["ENTITY_TYPE_MISMATCH", "CONFLICT"]);
    expect(conflictCodes(doc.paths["/collections/{id}/items/{item_id}"].patch)).toEqual(["CONFLICT"]);
    expect(conflictCodes(doc.paths["/organizations/{organization_id}"].put)).toEqual(["CONFLICT"]);
    expect(conflictCodes(doc.paths["/collections/{id}/items"].get)).toBeUndefined();
    expect(doc.externalDocs).toBeUndefined();
  });

  it("documents on every operation the Host check's 403 and the timeouts' 408", async () => {
    const doc: any = await (await fetch(`${server.baseUrl}/openapi.json`)).json();
    const operations = Object.values(doc.paths).flatMap((path: any) => Object.values(path)) as any[];
    expect(operations.length).toBeGreaterThan(10);
    for (const operation of operations) {
      expect(operation.responses["403"].description, operation.operationId).toMatch(/Host/);
      expect(operation.responses["408"], operation.operationId).toEqual({ $ref: "#/components/responses/RequestTimeout" });
    }
    expect(doc.paths["/categories"].get.responses["403"]).toBeDefined();
  });

  it("serves a browsable /docs page with its assets", async () => {
    const page = await fetch(`${server.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/openapi.json");
    expect((await fetch(`${server.baseUrl}/docs/swagger-ui-bundle.js`)).status).toBe(200);
  });

  it("answers health and readiness", async () => {
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
    const ready = await (await fetch(`${server.baseUrl}/ready`)).json();
    expect(ready).toMatchObject({ status: "ready", backend: TEST_BACKEND });
  });

  it("answers unknown paths with the contract's 404", async () => {
    const res = await api(server, "GET", "/no/such/path");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });
});

describe("the typed tRPC client", () => {
  it("searches and manages collections with typed calls", async () => {
    const client = createOrgsimClient({ url: server.baseUrl });
    const result = await client.search.similarToDescription.query({ description: "robot arms for food factories", countries: ["FR"], limit: 3 });
    expect(result.data[0]?.id).toBe(5001);
    expect(result.meta.backend).toBe(TEST_BACKEND);

    const collection = await client.collections.create.mutate({ name: "From the client" });
    await client.collections.items.add.mutate({ id: collection.id, entity_type: "organization", entity_id: "5001" });
    const error = await client.collections.items.add.mutate({ id: collection.id, entity_type: "person", entity_id: "p1" }).catch((e) => e);
    expect(orgsimErrorOf(error)).toMatchObject({ code: "ENTITY_TYPE_MISMATCH", status: 409 });
  });

  it("reports validation errors in the contract's shape", async () => {
    const client = createOrgsimClient({ url: server.baseUrl });
    const error = await client.search.similarToDescription.query({ description: "ab" }).catch((e) => e);
    expect(orgsimErrorOf(error)).toMatchObject({ code: "VALIDATION_FAILED", status: 400 });
  });
});

describe("restart", () => {
  it("keeps organizations, collections and items", async () => {
    const collection = (await api(server, "POST", "/collections", { name: "Survivor" })).body;
    await api(server, "POST", `/collections/${collection.id}/items`, { entity_type: "organization", entity_id: "5001" });
    const before = await api(server, "GET", "/search/organizations/similar?description=robots+for+food+packaging&limit=5");

    await server.stop();
    server = await startServer({ dataDir: server.dataDir, env: { ORGSIM_SAMPLE_SIZE: "20" } });

    expect((await api(server, "GET", "/organizations/5001")).body.name).toBe("Lyon Test Robotics");
    expect((await api(server, "GET", `/collections/${collection.id}`)).body).toMatchObject({ name: "Survivor", entity_type: "organization", item_count: 1 });
    const after = await api(server, "GET", "/search/organizations/similar?description=robots+for+food+packaging&limit=5");
    expect(after.body.data.map((o: any) => [o.id, o.similarity.score])).toEqual(before.body.data.map((o: any) => [o.id, o.similarity.score]));
  });
});
