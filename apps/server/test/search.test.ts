/** Search over real HTTP: the three modes, every filter against ground truth, paging, exclusions, bad input. */
import { countriesInRegion, customerTextOf, type Organization } from "@orgsim/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, query, removeDir, sampleOrganizations, TEST_BACKEND, type TestServer, startServer } from "./harness";

let server: TestServer;
const sample = sampleOrganizations();
const byId = new Map(sample.map((o) => [o.id, o]));

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

const DESCRIPTION = "software that helps companies manage payments and invoices";

/** Follows cursors to the end and returns every id, in order. */
async function allIds(path: string, params: Record<string, any>): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | undefined;
  do {
    const res = await api(server, "GET", `${path}?${query({ ...params, limit: 100, ...(cursor ? { cursor } : {}) })}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.data.map((o: Organization) => o.id));
    cursor = res.body.meta.next_cursor ?? undefined;
  } while (cursor);
  return ids;
}

// An independent reading of the contract's filters, to check the server against.
type Place = NonNullable<Organization["location"]["headquarters"]>;
const places = (o: Organization, hqOnly: boolean): Place[] =>
  [o.location.headquarters, ...(hqOnly ? [] : o.location.offices)].filter((p): p is Place => p !== null);

const predicates: Record<string, { params: Record<string, any>; keep: (o: Organization) => boolean }> = {
  "countries (alpha-2)": { params: { countries: "US" }, keep: (o) => o.location.headquarters?.country_code === "US" },
  "countries (alpha-3, comma list)": {
    params: { countries: "DEU,FRA" },
    keep: (o) => ["DE", "FR"].includes(o.location.headquarters?.country_code ?? ""),
  },
  "countries, any office": {
    params: { countries: "GB", hq_only: "false" },
    keep: (o) => places(o, false).some((p) => p.country_code === "GB"),
  },
  "regions (M49 slug)": {
    params: { regions: "europe" },
    keep: (o) => countriesInRegion("europe").includes(o.location.headquarters?.country_code ?? ""),
  },
  "regions (subdivision)": { params: { regions: "US-CA" }, keep: (o) => o.location.headquarters?.subdivision_code === "US-CA" },
  "regions, any office": {
    params: { regions: "south-eastern-asia", hq_only: false },
    keep: (o) => places(o, false).some((p) => countriesInRegion("south-eastern-asia").includes(p.country_code ?? "")),
  },
  employee_ranges: {
    params: { employee_ranges: ["11-50", "51-200"] },
    keep: (o) => ["11-50", "51-200"].includes(o.metrics.employee_range ?? ""),
  },
  "employees_min/max": {
    params: { employees_min: 20, employees_max: 300 },
    keep: (o) => o.metrics.employee_count !== null && o.metrics.employee_count >= 20 && o.metrics.employee_count <= 300,
  },
  "founded_year_min/max": {
    params: { founded_year_min: 2010, founded_year_max: 2018 },
    keep: (o) => o.metrics.founded_year !== null && o.metrics.founded_year >= 2010 && o.metrics.founded_year <= 2018,
  },
  categories: {
    params: { categories: "payments,banking" },
    keep: (o) => o.categories.some((c) => ["payments", "banking"].includes(c)),
  },
  funding_stages: {
    params: { funding_stages: ["seed", "series_a"] },
    keep: (o) => ["seed", "series_a"].includes(o.metrics.funding?.last_round?.stage ?? ""),
  },
  "last_funding_from/to": {
    params: { last_funding_from: "2022-01-01", last_funding_to: "2023-12-31" },
    keep: (o) => {
      const date = o.metrics.funding?.last_round?.announced_on;
      return !!date && date >= "2022-01-01" && date <= "2023-12-31";
    },
  },
};

describe("similar to a business description", () => {
  it("returns `limit` organizations with similarity scores, best first, with the response meta", async () => {
    const res = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, limit: 7 })}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(7);
    expect(res.body.meta).toMatchObject({ limit: 7, backend: TEST_BACKEND, ranking: "hybrid" });
    expect(res.body.meta.model).toMatch(/.+/);
    expect(typeof res.body.meta.took_ms).toBe("number");
    // Results come in score order in every ranking; with ranking=vector the score is the cosine, and the cosines are the same whichever the ranking.
    const byVector = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, limit: 7, ranking: "vector" })}`);
    expect(byVector.body.meta.ranking).toBe("vector");
    const cosines = new Map(byVector.body.data.map((o: any) => [o.id, o.similarity.cosine_similarity]));
    for (const o of byVector.body.data) expect(o.similarity.score).toBe(o.similarity.cosine_similarity);
    for (const o of res.body.data) if (cosines.has(o.id)) expect(o.similarity.cosine_similarity).toBe(cosines.get(o.id));
    for (const page of [res.body.data, byVector.body.data]) {
      const scores = page.map((o: any) => o.similarity.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    }
    res.body.data.forEach((o: any, i: number) => {
      expect(o.similarity.rank).toBe(i + 1);
      expect(o.similarity.cosine_distance).toBeCloseTo(1 - o.similarity.cosine_similarity, 5);
      expect(o.similarity.cosine_similarity).toBeGreaterThan(-1);
      expect(o.similarity.cosine_similarity).toBeLessThanOrEqual(1);
      // Hybrid: the fused relevance, 0..1.
      expect(o.similarity.score).toBeGreaterThan(0);
      expect(o.similarity.score).toBeLessThanOrEqual(1);
    });
  });

  it("orders hybrid results by score all the way down, across the fused places and the vector ranking past them", async () => {
    const ids = await allIds("/search/organizations/similar", { description: DESCRIPTION });
    expect(ids.length).toBeGreaterThan(100);
    const scores: number[] = [];
    let cursor: string | undefined;
    do {
      const res = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, limit: 100, ...(cursor ? { cursor } : {}) })}`);
      scores.push(...res.body.data.map((o: any) => o.similarity.score));
      cursor = res.body.meta.next_cursor ?? undefined;
    } while (cursor);
    for (let i = 1; i < scores.length; i++) expect(scores[i], `place ${i + 1}`).toBeLessThanOrEqual(scores[i - 1] as number);
  });

  it("ranks organizations of the described business first", async () => {
    const res = await api(server, "GET", `/search/organizations/similar?${query({ description: "robots and automation for factories", limit: 5 })}`);
    const relevant = new Set(["industrial-automation", "robotics", "manufacturing"]);
    const hits = res.body.data.filter((o: Organization) => o.categories.some((c) => relevant.has(c)));
    expect(hits.length).toBeGreaterThanOrEqual(4);
  });

  for (const [name, { params, keep }] of Object.entries(predicates)) {
    it(`filter ${name}: returns exactly the matching organizations`, async () => {
      const expected = sample.filter(keep).map((o) => o.id);
      expect(expected.length, "the sample should exercise this filter").toBeGreaterThan(0);
      const ids = await allIds("/search/organizations/similar", { description: DESCRIPTION, ...params });
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
    });
  }

  it("combines filters of different categories with AND", async () => {
    const params = { regions: "europe", founded_year_min: 2005, employees_max: 500, hq_only: "true" };
    const expected = sample.filter(
      (o) =>
        predicates["regions (M49 slug)"]!.keep(o) &&
        (o.metrics.founded_year ?? 0) >= 2005 &&
        o.metrics.employee_count !== null &&
        o.metrics.employee_count <= 500,
    );
    expect(expected.length).toBeGreaterThan(5);
    const ids = await allIds("/search/organizations/similar", { description: DESCRIPTION, ...params });
    expect(ids.sort((a, b) => a - b)).toEqual(expected.map((o) => o.id).sort((a, b) => a - b));
  });

  it("returns `limit` results for a restrictive filter whenever that many match", async () => {
    const matching = sample.filter(predicates.categories!.keep);
    const limit = Math.min(10, matching.length);
    const res = await api(
      server,
      "GET",
      `/search/organizations/similar?${query({ description: "organic farming robots", categories: "payments,banking", limit })}`,
    );
    expect(res.body.data).toHaveLength(limit);
  });

  it("pages with cursors: two pages equal one page of twice the size", async () => {
    const base = { description: DESCRIPTION };
    const whole = await api(server, "GET", `/search/organizations/similar?${query({ ...base, limit: 10 })}`);
    const first = await api(server, "GET", `/search/organizations/similar?${query({ ...base, limit: 5 })}`);
    const second = await api(server, "GET", `/search/organizations/similar?${query({ ...base, limit: 5, cursor: first.body.meta.next_cursor })}`);
    expect([...first.body.data, ...second.body.data].map((o: any) => o.id)).toEqual(whole.body.data.map((o: any) => o.id));
    expect(second.body.data[0].similarity.rank).toBe(6);
  });

  it("refuses a cursor from another query", async () => {
    const first = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, limit: 5 })}`);
    const res = await api(server, "GET", `/search/organizations/similar?${query({ description: "another query", cursor: first.body.meta.next_cursor })}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    expect(res.body.error.message).toContain("cursor");
  });

  it("leaves out exclude_ids and applies min_similarity (or its deprecated alias min_score) as a floor on the cosine", async () => {
    const top = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, limit: 10, ranking: "vector" })}`);
    const excluded = top.body.data.slice(0, 3).map((o: any) => o.id);
    const res = await api(
      server,
      "GET",
      `/search/organizations/similar?${query({ description: DESCRIPTION, limit: 7, ranking: "vector", exclude_ids: excluded.join(",") })}`,
    );
    expect(res.body.data.map((o: any) => o.id)).toEqual(top.body.data.slice(3, 10).map((o: any) => o.id));
    // Hybrid: excluded before ranking too, so the page is still full.
    const hybrid = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, limit: 7, exclude_ids: excluded.join(",") })}`);
    expect(hybrid.body.data).toHaveLength(7);
    expect(hybrid.body.data.some((o: any) => excluded.includes(o.id))).toBe(false);

    const floor = top.body.data[4].similarity.cosine_similarity;
    const floored = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, limit: 50, min_similarity: floor })}`);
    expect(floored.body.data.length).toBeGreaterThanOrEqual(5);
    expect(floored.body.data.every((o: any) => o.similarity.cosine_similarity >= floor)).toBe(true);
    expect(floored.body.meta.next_cursor).toBeNull();
    const aliased = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, limit: 50, min_score: floor })}`);
    expect(aliased.body.data).toEqual(floored.body.data);
    const both = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, min_score: floor, min_similarity: floor })}`);
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body.error)).toContain("min_similarity only");
  });
});

describe("hybrid ranking (the default)", () => {
  it("finds an organization by the words of its own description first, where words matter", async () => {
    let first = 0;
    const targets = sample.filter((o) => (o.description ?? "").length > 80).slice(0, 10);
    for (const target of targets) {
      const words = `${target.name} ${(target.description ?? "").split(" ").slice(0, 12).join(" ")}`;
      const res = await api(server, "GET", `/search/organizations/similar?${query({ description: words, limit: 3 })}`);
      if (res.body.data[0]?.id === target.id) first++;
    }
    expect(first).toBeGreaterThanOrEqual(9);
  });

  it("pages through one fixed ranking 1,000 deep: no repeats, no gaps, ranks in order", async () => {
    const base = { description: DESCRIPTION, limit: 100 };
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const res = await api(server, "GET", `/search/organizations/similar?${query({ ...base, ...(cursor ? { cursor } : {}) })}`);
      expect(res.status).toBe(200);
      expect(res.body.data.map((o: any) => o.similarity.rank)).toEqual(res.body.data.map((_: unknown, i: number) => seen.length + i + 1));
      seen.push(...res.body.data.map((o: any) => o.id));
      cursor = res.body.meta.next_cursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(Math.min(1000, sample.length));
    // Each page is a slice of the same ranking: a page of 30 from the middle agrees with it.
    const first = await api(server, "GET", `/search/organizations/similar?${query({ ...base, limit: 90 })}`);
    const next = await api(server, "GET", `/search/organizations/similar?${query({ ...base, limit: 30, cursor: first.body.meta.next_cursor })}`);
    expect(next.body.data.map((o: any) => o.id)).toEqual(seen.slice(90, 120));
  });

  it("refuses an unknown ranking, naming the parameter", async () => {
    const res = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, ranking: "bm25" })}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.error)).toContain("ranking");
  });
});

describe("similar to a known organization", () => {
  it("never returns the organization itself and ranks by its profile", async () => {
    const target = sample[0]!;
    const res = await api(server, "GET", `/search/organizations/${target.id}/similar?limit=20`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(20);
    expect(res.body.data.map((o: any) => o.id)).not.toContain(target.id);
    const shared = res.body.data.slice(0, 5).filter((o: Organization) => o.categories.some((c) => target.categories.includes(c)));
    expect(shared.length).toBeGreaterThanOrEqual(3);
  });

  it("takes filters too", async () => {
    const ids = await allIds(`/search/organizations/${sample[1]!.id}/similar`, { countries: "US" });
    const expected = sample.filter((o) => o.id !== sample[1]!.id && o.location.headquarters?.country_code === "US");
    expect(ids.sort((a, b) => a - b)).toEqual(expected.map((o) => o.id).sort((a, b) => a - b));
  });

  it("answers 404 for an unknown organization and 400 for a malformed id", async () => {
    const missing = await api(server, "GET", "/search/organizations/999999/similar");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: "NOT_FOUND", status: 404 });
    const malformed = await api(server, "GET", "/search/organizations/abc/similar");
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body.error.details.issues)).toContain("organization_id");
  });
});

describe("similar customer base", () => {
  const withCustomerText = () => sample.filter((o) => customerTextOf(o) !== null).map((o) => o.id);

  it.each(["vector", "hybrid"])("ranking=%s returns only organizations that have customer text, each once", async (ranking) => {
    const ids = await allIds("/search/organizations/similar-customers", { organization_customer: "hospitals and clinics", ranking });
    const expected = withCustomerText();
    expect(expected.length).toBeLessThan(sample.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
  });

  it("hybrid ranking leaves out a word match without customer text", async () => {
    const without = sample.find((o) => customerTextOf(o) === null && o.name.trim().length > 0)!;
    const ids = await allIds("/search/organizations/similar-customers", { organization_customer: without.name });
    expect(ids).not.toContain(without.id);
  });

  it("hybrid ranking pages through the fused places, then the customer vectors, scores descending", async () => {
    const params = { organization_customer: "hospitals and clinics", limit: 100 };
    const first = await api(server, "GET", `/search/organizations/similar-customers?${query(params)}`);
    const rest = await allIds("/search/organizations/similar-customers", { ...params, cursor: first.body.meta.next_cursor });
    const withText = new Set(withCustomerText());
    const all = [...first.body.data.map((o: Organization) => o.id), ...rest];
    expect(all.every((id) => withText.has(id))).toBe(true);
    // Scores keep descending across the seam between the fused places and the continuation.
    const next = await api(server, "GET", `/search/organizations/similar-customers?${query({ ...params, cursor: first.body.meta.next_cursor, limit: 5 })}`);
    const scores = [...first.body.data, ...next.body.data].map((o: { similarity: { score: number } }) => o.similarity.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it("ranks organizations whose customers match first", async () => {
    const res = await api(
      server,
      "GET",
      `/search/organizations/similar-customers?${query({ organization_customer: "hospitals, clinics and doctors", limit: 5 })}`,
    );
    const texts = res.body.data.map((o: Organization) => (customerTextOf(byId.get(o.id)!) ?? "").toLowerCase());
    const medical = texts.filter((t: string) => /hospital|clinic|doctor|patient|health|medical|care/.test(t));
    expect(medical.length).toBeGreaterThanOrEqual(3);
  });
});

describe("bad input answers 400 naming the parameter", () => {
  const cases: [string, string, string][] = [
    ["missing description", "/search/organizations/similar", "description"],
    ["short description", `/search/organizations/similar?description=ab`, "description"],
    ["limit 0", `/search/organizations/similar?description=robots&limit=0`, "limit"],
    ["limit 101", `/search/organizations/similar?description=robots&limit=101`, "limit"],
    ["unknown country", `/search/organizations/similar?description=robots&countries=XX`, "countries"],
    ["unknown region", `/search/organizations/similar?description=robots&regions=atlantis`, "regions"],
    ["unknown employee range", `/search/organizations/similar?description=robots&employee_ranges=2-3`, "employee_ranges"],
    ["min > max", `/search/organizations/similar?description=robots&founded_year_min=2020&founded_year_max=2010`, "founded_year_min"],
    ["employees min > max", `/search/organizations/similar?description=robots&employees_min=50&employees_max=10`, "employees_min"],
    // Above any count a backend stores (Elasticsearch compared it with its integer field and failed with a 500).
    [
      "employees_min above the largest count",
      `/search/organizations/similar-customers?organization_customer=dentists&employees_min=4398046511105`,
      "employees_min",
    ],
    ["employees_max above the largest count", `/search/organizations/similar?description=robots&employees_max=2147483648`, "employees_max"],
    ["bad date", `/search/organizations/similar?description=robots&last_funding_from=2020-13-01`, "last_funding_from"],
    ["unknown stage", `/search/organizations/similar?description=robots&funding_stages=series_z`, "funding_stages"],
    ["unknown category", `/search/organizations/similar?description=robots&categories=wizardry`, "categories"],
    ["non-boolean hq_only", `/search/organizations/similar?description=robots&hq_only=maybe`, "hq_only"],
    ["min_score out of range", `/search/organizations/similar?description=robots&min_score=2`, "min_score"],
    ["bad exclude id", `/search/organizations/similar?description=robots&exclude_ids=-4`, "exclude_ids"],
    ["exclude id above the largest id", `/search/organizations/similar?description=robots&exclude_ids=${"9".repeat(30)}`, "exclude_ids"],
    ["unknown parameter", `/search/organizations/similar?description=robots&colour=blue`, "colour"],
    ["missing customer text", `/search/organizations/similar-customers`, "organization_customer"],
  ];
  for (const [name, path, parameter] of cases) {
    it(name, async () => {
      const res = await api(server, "GET", path);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(res.body.error.status).toBe(400);
      expect(typeof res.body.error.request_id).toBe("string");
      expect(`${res.body.error.message} ${JSON.stringify(res.body.error.details.issues)}`).toContain(parameter);
    });
  }
});

describe("several seeds (POST /search/organizations/similar)", () => {
  const seeds = (body: Record<string, unknown>) => api(server, "POST", "/search/organizations/similar", body);
  const ids = (res: { body: { data: Organization[] } }) => res.body.data.map((o) => o.id);
  const [a, b] = sample.filter((o) => o.domain) as [Organization, Organization];

  it("with one organization seed is similar-to-organization, in either ranking; a domain seed names the same organization", async () => {
    for (const ranking of ["vector", "hybrid"] as const) {
      const single = await api(server, "GET", `/search/organizations/${a.id}/similar?${query({ ranking, limit: 20 })}`);
      const byId = await seeds({ like: [{ organization_id: a.id }], ranking, limit: 20 });
      expect(byId.status, JSON.stringify(byId.body)).toBe(200);
      expect(byId.body.data.map((o: Organization & { similarity: unknown }) => [o.id, o.similarity])).toEqual(
        single.body.data.map((o: Organization & { similarity: unknown }) => [o.id, o.similarity]),
      );
      expect(byId.body.meta.missing_seeds).toEqual([]);
      const byDomain = await seeds({ like: [{ domain: `https://www.${a.domain}/about` }], ranking, limit: 20 });
      expect(ids(byDomain)).toEqual(ids(single));
    }
  });

  it("with one description seed ranks by the description's vector, as the description search does", async () => {
    const single = await api(server, "GET", `/search/organizations/similar?${query({ description: DESCRIPTION, ranking: "vector" })}`);
    const seeded = await seeds({ like: [{ description: DESCRIPTION }], ranking: "vector" });
    expect(seeded.body.data.map((o: any) => o.similarity.cosine_similarity)).toEqual(single.body.data.map((o: any) => o.similarity.cosine_similarity));
    expect(ids(seeded)).toEqual(ids(single));
  });

  it("leaves every seed organization out, and pushes the results away from a counter-example", async () => {
    const both = await seeds({ like: [{ organization_id: a.id }, { organization_id: b.id }], ranking: "vector", limit: 100 });
    expect(ids(both)).not.toContain(a.id);
    expect(ids(both)).not.toContain(b.id);
    const nearest = ids(await seeds({ like: [{ organization_id: a.id }], ranking: "vector", limit: 100 }))[0] as number;
    const away = await seeds({ like: [{ organization_id: a.id }], unlike: [{ organization_id: nearest }], ranking: "vector", limit: 100 });
    // The counter-example is a seed too: never a result.
    expect(ids(away)).not.toContain(nearest);
    const cosines = (res: any) => new Map<number, number>(res.body.data.map((o: any) => [o.id, o.similarity.cosine_similarity]));
    // Away from the counter-example: the organizations most like it fall behind.
    const towardA = ids(await seeds({ like: [{ organization_id: a.id }], exclude_ids: [nearest], ranking: "vector", limit: 10 }));
    expect(ids(away).slice(0, 10)).not.toEqual(towardA);
    expect(cosines(away).size).toBe(100);
  });

  it("reports seeds that name no organization and uses the others; none left is a 404", async () => {
    const partial = await seeds({
      like: [{ organization_id: a.id }, { organization_id: 999_999_999 }, { domain: "nowhere.example" }],
      unlike: [{ domain: "nowhere-else.example" }],
    });
    expect(partial.status, JSON.stringify(partial.body)).toBe(200);
    expect(ids(partial)).toEqual(ids(await seeds({ like: [{ organization_id: a.id }] })));
    expect(partial.body.meta.missing_seeds).toEqual([
      { list: "like", index: 1, seed: { organization_id: 999_999_999 }, reason: "no stored organization has the id 999999999" },
      { list: "like", index: 2, seed: { domain: "nowhere.example" }, reason: "no stored organization has the domain nowhere.example" },
      { list: "unlike", index: 0, seed: { domain: "nowhere-else.example" }, reason: "no stored organization has the domain nowhere-else.example" },
    ]);
    const none = await seeds({ like: [{ organization_id: 999_999_999 }] });
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe("NOT_FOUND");
  });

  it("refuses malformed seeds and too many, naming them", async () => {
    for (const [body, path] of [
      [{ like: [] }, "like"],
      [{ like: Array.from({ length: 21 }, (_, i) => ({ organization_id: i + 1 })) }, "like"],
      [{ like: [{ domain: "not a domain" }] }, "like.0.domain"],
      [{ like: [{ organization_id: 1, domain: "a.example" }] }, "like.0"],
      [{ like: [{ description: "ab" }] }, "like.0.description"],
      [{ like: [{ organization_id: a.id }], unlike: [{ name: "x" }] }, "unlike.0"],
    ] as const) {
      const res = await seeds(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(
        res.body.error.details.issues.map((i: { path: (string | number)[] }) => i.path.join(".")),
        JSON.stringify(body),
      ).toContain(path);
    }
  });
});

describe("explain=true", () => {
  const get = async (path: string, params: Record<string, any>) => {
    const res = await api(server, "GET", `${path}?${query(params)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { data: (Organization & { similarity: any })[]; meta: { next_cursor: string | null } };
  };
  const bare = (body: { data: { id: number; similarity: any }[] }) => body.data.map((o) => [o.id, { ...o.similarity, explanation: undefined }]);

  it("explains without changing the ranking: the rankings' shares add up to the score, matched words are in the fields named", async () => {
    const params = { description: DESCRIPTION, limit: 30 };
    const plain = await get("/search/organizations/similar", params);
    const explained = await get("/search/organizations/similar", { ...params, explain: true });
    expect(bare(explained)).toEqual(bare(plain));
    // A cursor serves both.
    expect((await get("/search/organizations/similar", { ...params, explain: true, cursor: plain.meta.next_cursor })).data).toHaveLength(30);
    const queryWords = new Set(DESCRIPTION.toLowerCase().split(/\W+/));
    for (const o of explained.data) {
      const e = o.similarity.explanation;
      expect(e.summary.length).toBeGreaterThan(0);
      expect((e.vector?.share ?? 0) + (e.words?.share ?? 0)).toBeCloseTo(o.similarity.score, 5);
      expect(e.vector !== null || e.words !== null).toBe(true);
      expect(e.shared).toBeNull();
      for (const { word, fields } of e.matched_words) {
        expect(queryWords.has(word)).toBe(true);
        const text = { name: o.name, description: o.description ?? "", categories: o.categories.join(" "), customer_text: "" } as Record<string, string>;
        for (const field of fields) expect(text[field]?.toLowerCase(), `${word} in ${field}`).toMatch(new RegExp(`\\b${word}\\b`));
      }
    }
    expect(explained.data.some((o) => o.similarity.explanation.matched_words.length > 0)).toBe(true);
  });

  it("names the facets a result shares with the seed organization, and its place in the vector ranking", async () => {
    const seed = sample.find((o) => o.categories.length > 0 && o.location.headquarters) as Organization;
    for (const ranking of ["hybrid", "vector"] as const) {
      const body = await get(`/search/organizations/${seed.id}/similar`, { ranking, explain: true, limit: 20 });
      for (const o of body.data) {
        const { shared, vector, words } = o.similarity.explanation;
        expect(shared.categories).toEqual(o.categories.filter((c) => seed.categories.includes(c)));
        const sameCountry = o.location.headquarters?.country_code === seed.location.headquarters?.country_code;
        expect(shared.hq_country_code).toBe(sameCountry ? (o.location.headquarters?.country_code ?? null) : null);
        const sameRange = o.metrics.employee_range !== null && o.metrics.employee_range === seed.metrics.employee_range;
        expect(shared.employee_range).toBe(sameRange ? o.metrics.employee_range : null);
        if (ranking === "vector") {
          expect(vector).toEqual({ rank: o.similarity.rank, share: o.similarity.score });
          expect(words).toBeNull();
        }
      }
      expect(body.data.some((o) => o.similarity.explanation.summary.startsWith("shares: "))).toBe(true);
    }
  });
});
