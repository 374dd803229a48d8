/**
 * What is stored must read back (issue 15): writes and reads share one schema, a refused write
 * stores nothing, bounds fit both backends, and a stored record that cannot be read (an older
 * version's, a hand edit) is left out of searches, named in the log and counted by /ready.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rewriteStoredOrganization } from "./failures-support";
import { api, removeDir, type TestServer, startServer } from "./harness";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ORGSIM_SAMPLE_SIZE: "20" } });
});
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

const issuePaths = (body: any) => (body.error.details.issues as { path: (string | number)[] }[]).map((i) => i.path.join("."));

async function ready() {
  const response = await fetch(`${server.baseUrl}/ready`);
  return { status: response.status, body: (await response.json()) as any };
}

/** Every organization a vector search returns (the store holds fewer than 100). */
async function searchedIds(): Promise<number[]> {
  const response = await api(server, "GET", "/search/organizations/similar?description=robots+for+factories&ranking=vector&limit=100");
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data.map((o: { id: number }) => o.id);
}

describe("a refused write stores nothing", () => {
  it("refuses a founded_on outside 1600..2100 on PUT, naming the field, and stores nothing", async () => {
    const put = await api(server, "PUT", "/organizations/991001", { name: "poison", description: "very old org", metrics: { founded_on: "1599-12-31" } });
    expect(put.status).toBe(400);
    expect(issuePaths(put.body)).toEqual(["metrics.founded_on"]);
    expect((await api(server, "GET", "/organizations/991001")).status).toBe(404);
    expect(await searchedIds()).not.toContain(991001);
  });

  for (const foundedOn of ["0000-06-01", "2101-01-01"]) {
    it(`refuses a bulk with founded_on ${foundedOn} as a whole: neither organization is stored`, async () => {
      const bulk = await api(server, "POST", "/organizations/bulk", {
        organizations: [
          { id: 991002, name: "Good one" },
          { id: 991003, name: "Bad date", metrics: { founded_on: foundedOn } },
        ],
      });
      expect(bulk.status).toBe(400);
      expect(bulk.body.error.details.failing_indexes).toEqual([1]);
      expect(issuePaths(bulk.body)).toEqual(["organizations.1.metrics.founded_on"]);
      for (const id of [991002, 991003]) expect((await api(server, "GET", `/organizations/${id}`)).status).toBe(404);
    });
  }

  it("bounds numbers to what both backends store (employee_count 2^31, ids past 2^53), the whole bulk before any write", async () => {
    const bulk = await api(server, "POST", "/organizations/bulk", {
      organizations: [
        { id: 991004, name: "Fine" },
        { id: 991005, name: "Too many people", metrics: { employee_count: 2_147_483_648 } },
        { id: 991006, name: "Too rich", metrics: { funding: { total_raised_usd: 1e300 } } },
      ],
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(400);
    expect(bulk.body.error.details.failing_indexes).toEqual([1, 2]);
    expect(issuePaths(bulk.body)).toEqual(["organizations.1.metrics.employee_count", "organizations.2.metrics.funding.total_raised_usd"]);
    for (const id of [991004, 991005, 991006]) expect((await api(server, "GET", `/organizations/${id}`)).status).toBe(404);

    const unsafeId = await api(server, "POST", "/organizations/bulk", { organizations: [{ id: 2 ** 53, name: "Unsafe id" }] });
    expect(unsafeId.status).toBe(400);
    expect(new Set(issuePaths(unsafeId.body))).toEqual(new Set(["organizations.0.id"]));
    const largest = await api(server, "PUT", "/organizations/991007", {
      name: "Largest",
      metrics: { employee_count: 2_147_483_647, founded_on: "2100-12-31" },
    });
    expect(largest.status, JSON.stringify(largest.body)).toBe(200);
    expect((await api(server, "GET", "/organizations/991007")).body).toEqual(largest.body);
  });
});

describe("the stored form is checked before any write", () => {
  it("refuses an organization whose normalized form the read schema refuses, naming the input field", async () => {
    // 200 characters pass the write schema's 253; lower-cased ("İ" -> "i̇") they are 400.
    const put = await api(server, "PUT", "/organizations/991020", { name: "Long domain", domain: "İ".repeat(200) });
    expect(put.status).toBe(400);
    expect(issuePaths(put.body)).toEqual(["domain"]);
    expect((await api(server, "GET", "/organizations/991020")).status).toBe(404);
    const bulk = await api(server, "POST", "/organizations/bulk", {
      organizations: [
        { id: 991021, name: "Fine" },
        { id: 991020, name: "Long domain", domain: "İ".repeat(200) },
      ],
    });
    expect(bulk.status).toBe(400);
    expect(bulk.body.error.details.failing_indexes).toEqual([1]);
    expect((await api(server, "GET", "/organizations/991021")).status).toBe(404);
  });
});

describe("a stored record that cannot be read", () => {
  it("is left out of searches, refused by GET with its id, logged once and counted by /ready until rewritten", async () => {
    const put = await api(server, "PUT", "/organizations/991010", {
      name: "Factory Robots",
      description: "Robots for factories.",
      metrics: { founded_on: "1990-01-01" },
    });
    expect(put.status).toBe(200);
    expect(await searchedIds()).toContain(991010);
    expect((await ready()).body.checks.unreadable_organizations).toBe(0);

    // As an older version (or a hand edit) could have stored it: a year the read schema refuses.
    await rewriteStoredOrganization(server.dataDir, 991010, (doc) => {
      doc.metrics.founded_year = 1599;
    });
    const ids = await searchedIds();
    expect(ids).not.toContain(991010);
    expect(ids.length).toBeGreaterThan(10);
    await searchedIds();
    const get = await api(server, "GET", "/organizations/991010");
    expect(get.status).toBe(500);
    expect(get.body.error.message).toContain("Organization 991010 is stored but cannot be read");
    const logged = server.output().match(/organization 991010 is stored but unreadable[^\n]*/g) ?? [];
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain("metrics.founded_year");
    const counted = await ready();
    expect(counted.status).toBe(200);
    expect(counted.body).toMatchObject({ status: "ready", checks: { unreadable_organizations: 1, backend: true } });

    // Rewriting it makes it readable again.
    expect((await api(server, "PUT", "/organizations/991010", { name: "Factory Robots", description: "Robots for factories." })).status).toBe(200);
    expect(await searchedIds()).toContain(991010);
    expect((await ready()).body.checks.unreadable_organizations).toBe(0);
  });
  it("never ends paging early: pages of 5 reach every readable organization, in both rankings", async () => {
    for (const ranking of ["vector", "hybrid"]) {
      const query = `/search/organizations/similar?description=software+for+hospitals&ranking=${ranking}&limit=5`;
      // Places 2 and 3 of the first page become unreadable, unknown to the server until a search meets them.
      const bad = ((await api(server, "GET", query)).body.data as { id: number }[]).slice(1, 3).map((o) => o.id);
      for (const id of bad) {
        await rewriteStoredOrganization(server.dataDir, id, (doc) => {
          doc.metrics.founded_year = 1599;
        });
      }
      const paged: number[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: any } = await api(server, "GET", `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        expect(page.status).toBe(200);
        paged.push(...page.body.data.map((o: { id: number }) => o.id));
        cursor = page.body.meta.next_cursor;
      } while (cursor);
      const whole = (await api(server, "GET", query.replace("limit=5", "limit=100"))).body.data.map((o: { id: number }) => o.id);
      expect(paged.length).toBeGreaterThan(10);
      expect(paged).toEqual(whole);
      for (const id of bad) expect(paged).not.toContain(id);
      for (const id of bad) expect((await api(server, "DELETE", `/organizations/${id}`)).status).toBe(204);
    }
  });
});
