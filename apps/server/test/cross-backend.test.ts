/**
 * Both backends, same data, same model: the same query returns the same ids in the same order
 * with scores equal to 4 decimals, in both rankings (hybrid: both word indexes score BM25 as
 * Lucene does). Runs in the elasticsearch project (it needs the node).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, query, removeDir, sampleOrganizations, TEST_BACKEND, type TestServer, startServer } from "./harness";

const sample = sampleOrganizations();
const queries: [string, string][] = [
  ["description", `/search/organizations/similar?${query({ description: "software that helps companies manage payments", limit: 20 })}`],
  ["description + country", `/search/organizations/similar?${query({ description: "robots for factories", countries: "US", limit: 20 })}`],
  [
    "description + region any office",
    `/search/organizations/similar?${query({ description: "online education for schools", regions: "europe", hq_only: false, limit: 20 })}`,
  ],
  [
    "description + size + age",
    `/search/organizations/similar?${query({ description: "cybersecurity monitoring", employee_ranges: "11-50,51-200", founded_year_min: 2010, limit: 20 })}`,
  ],
  [
    "description + funding",
    `/search/organizations/similar?${query({ description: "electric vehicle charging", funding_stages: "seed,series_a,series_b", last_funding_from: "2021-01-01", limit: 20 })}`,
  ],
  [
    "description + category",
    `/search/organizations/similar?${query({ description: "a marketplace for farmers", categories: "agriculture-and-food-tech,marketplaces", limit: 20 })}`,
  ],
  ["description, page 2", `/search/organizations/similar?${query({ description: "hospital software", limit: 10 })}`],
  ["customers", `/search/organizations/similar-customers?${query({ organization_customer: "hospitals and clinics", limit: 20 })}`],
  [
    "customers + filter",
    `/search/organizations/similar-customers?${query({ organization_customer: "small retailers", regions: "northern-america", limit: 20 })}`,
  ],
  ...sample.slice(0, 5).map((o): [string, string] => [`similar to ${o.id}`, `/search/organizations/${o.id}/similar?limit=20`]),
  ["similar + min_score", `/search/organizations/${sample[6]!.id}/similar?${query({ min_score: 0.6, limit: 50 })}`],
];

describe.skipIf(TEST_BACKEND !== "elasticsearch")("embedded and Elasticsearch agree", () => {
  let embedded: TestServer;
  let elasticsearch: TestServer;
  beforeAll(async () => {
    embedded = await startServer({ env: { ORGSIM_BACKEND: "embedded" } });
    elasticsearch = await startServer();
  });
  afterAll(async () => {
    for (const server of [embedded, elasticsearch]) {
      await server?.stop();
      if (server) removeDir(server.dataDir);
    }
  });

  for (const [name, path] of queries.flatMap(([n, p]) => (["hybrid", "vector"] as const).map((r): [string, string] => [`${n} (${r})`, `${p}&ranking=${r}`]))) {
    it(name, async () => {
      const [a, b] = await Promise.all([api(embedded, "GET", path), api(elasticsearch, "GET", path)]);
      expect(a.body.meta.backend).toBe("embedded");
      expect(b.body.meta.backend).toBe("elasticsearch");
      const ids = (res: typeof a) => res.body.data.map((o: any) => o.id);
      expect(ids(b)).toEqual(ids(a));
      expect(b.body.data.length).toBeGreaterThan(0);
      // Equal to 4 decimals: (rounding both to 4 places could split values that differ by 1e-6).
      a.body.data.forEach((o: any, i: number) => {
        expect(Math.abs(o.similarity.score - b.body.data[i].similarity.score)).toBeLessThan(5e-5);
        expect(Math.abs(o.similarity.cosine_similarity - b.body.data[i].similarity.cosine_similarity)).toBeLessThan(5e-5);
      });
    });
  }
});
