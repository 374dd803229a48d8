/**
 * The filter clause of a search does not hold the search's excluded ids (its seeds, mostly): kept
 * apart, it is the same query for every search with the same filter, which Elasticsearch's query
 * cache can then keep. The searches' results with exclusions are checked by the shared conformance
 * suite; this pins only the shape of what is sent.
 */
import type { OrganizationFilter, TextQuery, VectorQuery } from "@orgsim/core";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config";
import { knnSearchBody, wordSearchBody } from "../src/organization-search";
import { pagePlan } from "../src/search-plan";

const config = resolveConfig({ url: "http://127.0.0.1:9200" });
const filter: OrganizationFilter = { location: { countries: ["DE", "FR"], subdivisions: [], hqOnly: true }, employeesMax: 50, foundedYearMin: 2015 };
const excluding = (...ids: number[]): OrganizationFilter => ({ ...filter, excludeIds: ids });
const words = (f: OrganizationFilter): TextQuery => ({ text: "insurance broker", kind: "profile", filter: f, size: 100 });
const vectors = (f: OrganizationFilter): VectorQuery => ({ vector: new Float32Array([1, 0]), kind: "profile", filter: f, offset: 0, size: 100 });
const knnFilterOf = (f: OrganizationFilter) => {
  const query = vectors(f);
  return knnSearchBody(query, pagePlan(config, query, "int8_hnsw"), false).knn.filter;
};

describe("elasticsearch: the filter clause apart from the excluded ids", () => {
  it("is the same word-search filter whichever ids are excluded, with the ids beside it", () => {
    const [a, b, none] = [
      wordSearchBody(words(excluding(1)), ["insurance"]),
      wordSearchBody(words(excluding(2, 3)), ["insurance"]),
      wordSearchBody(words(filter), ["insurance"]),
    ];
    expect(a.query.bool.filter).toEqual(b.query.bool.filter);
    expect(a.query.bool.filter).toEqual(none.query.bool.filter);
    expect(JSON.stringify(a.query.bool.filter)).not.toContain("ids");
    expect(a.query.bool.must_not).toEqual([{ ids: { values: ["1"] } }]);
    expect(b.query.bool.must_not).toEqual([{ ids: { values: ["2", "3"] } }]);
    expect(none.query.bool.must_not).toEqual([]);
  });

  it("is one clause of the kNN filter, the same whichever ids are excluded", () => {
    const [a, b, none] = [knnFilterOf(excluding(1)), knnFilterOf(excluding(2, 3)), knnFilterOf(filter)];
    expect(a).toEqual({ bool: { filter: [none], must_not: [{ ids: { values: ["1"] } }] } });
    expect(b).toEqual({ bool: { filter: [none], must_not: [{ ids: { values: ["2", "3"] } }] } });
    expect(JSON.stringify(none)).not.toContain("ids");
  });
});
