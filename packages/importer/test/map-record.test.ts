import { describe, expect, it } from "vitest";
import { hashId, MAX_HASHED_ID, type MapResult, mapRecord, parseMapping } from "../src/index";

const map = (fields: Record<string, unknown>, record: Record<string, unknown>, id: unknown = "id") =>
  mapRecord({ id: 1, name: "Acme", ...record }, parseMapping({ format: "ndjson", id, fields: { name: "name", ...fields } }));

function ok(result: MapResult) {
  if (!result.ok) throw new Error(result.message);
  return result;
}
function failure(result: MapResult) {
  if (result.ok) throw new Error("expected a failure");
  return result.message;
}

describe("transforms", () => {
  it("int, number, date, year_from_unix", () => {
    const { row } = ok(
      map(
        {
          employee_count: { from: "staff", transform: "int" },
          "funding.total_raised_usd": { from: "raised", transform: "number" },
          "funding.last_round.amount_usd": { from: "last", transform: "number" },
          "funding.last_round.announced_on": { from: "when", transform: "date" },
          founded_year: { from: "launched", transform: "year_from_unix" },
        },
        { staff: "1,200", raised: "$12.5M", last: "3k", when: "2023/5/2", launched: 1322045523 },
      ),
    );
    expect(row.metrics).toEqual({
      employee_count: 1200,
      founded_year: 2011,
      funding: { total_raised_usd: 12_500_000, last_round: { amount_usd: 3000, announced_on: "2023-05-02" } },
    });
  });

  it("domain_from_url and url", () => {
    const { row } = ok(
      map(
        {
          domain: { from: "web", transform: "domain_from_url" },
          website: { from: "web", transform: "url" },
          logo_url: { from: "logo", transform: "url" },
          email: "mail",
        },
        { web: "HTTPS://www.Acme.example/about?x=1", logo: "/company/thumb/missing.png", mail: "hi@acme.example" },
      ),
    );
    expect(row.domain).toBe("acme.example");
    expect(row.contact).toEqual({ website: "HTTPS://www.Acme.example/about?x=1", email: "hi@acme.example" });
    expect(row.logo_url).toBeUndefined(); // a relative path is not a URL: dropped, not invented
    expect(ok(map({ domain: { from: "web", transform: "domain_from_url" } }, { web: "acme.example" })).row.domain).toBe("acme.example");
    expect(ok(map({ website: { from: "web", transform: "url" } }, { web: "acme.example/x" })).row.contact?.website).toBe("https://acme.example/x");
  });

  it("split, lookup, first, rest, default", () => {
    const { row } = ok(
      map(
        {
          categories: {
            from: "tags",
            transform: [{ split: ";" }, { lookup: { robotics: "robotics", "Supply chain": ["logistics-and-supply-chain"], Other: null } }],
          },
          headquarters: { from: "locations", transform: [{ split: "; " }, "location_text", "first"] },
          offices: { from: "locations", transform: [{ split: "; " }, "location_text", "rest"] },
          customer_description: { from: "customers", transform: { default: "Plant managers" } },
        },
        { tags: "Robotics; supply chain ;Other; Unknown", locations: "Lyon, France; Remote; Austin, TX, USA" },
      ),
    );
    expect(row.categories).toEqual(["robotics", "logistics-and-supply-chain"]);
    expect(row.location).toEqual({
      headquarters: { city: "Lyon", country_code: "FR" },
      offices: [{ city: "Austin", subdivision_code: "US-TX", country_code: "US" }],
    });
    expect(row.customer_description).toBe("Plant managers");
  });

  it("joins several fields, skipping empty ones", () => {
    const description = { from: ["one_liner", "long"], join: "\n\n" };
    expect(ok(map({ description }, { one_liner: "Short.", long: "Long text." })).row.description).toBe("Short.\n\nLong text.");
    expect(ok(map({ description }, { one_liner: "Short.", long: "  " })).row.description).toBe("Short.");
    expect(ok(map({ description }, { one_liner: null })).row.description).toBeUndefined();
  });

  it("reads dot paths and keys that contain dots", () => {
    const { row } = ok(map({ description: "about.text", "headquarters.city": "hq.city" }, { about: { text: "Nested" }, "hq.city": "Flat" }));
    expect(row.description).toBe("Nested");
    expect(row.location?.headquarters?.city).toBe("Flat");
  });

  it("country and subdivision in separate columns", () => {
    const fields = {
      "headquarters.country_code": { from: "country", transform: "country" },
      "headquarters.subdivision_code": { from: "state", transform: { subdivision: { country_from: "country" } } },
    };
    expect(ok(map(fields, { country: "Australia", state: "NSW" })).organization.location.headquarters).toMatchObject({
      country_code: "AU",
      subdivision_code: "AU-NSW",
      world_region: "australia-and-new-zealand",
    });
    // a state code that is not a subdivision of that country is dropped, not an error
    expect(ok(map(fields, { country: "China", state: "CA" })).organization.location.headquarters).toMatchObject({
      country_code: "CN",
      subdivision_code: null,
    });
  });

  it("truncate", () => {
    const name = `${"word ".repeat(60)}end`;
    const { row } = ok(map({ name: { from: "name", transform: { truncate: 200 } } }, { name }));
    expect(row.name.length).toBeLessThanOrEqual(200);
    expect(row.name.endsWith("word…")).toBe(true);
  });
});

describe("row errors name the field and its source", () => {
  it("a value a transform cannot convert", () => {
    expect(failure(map({ employee_count: { from: "team_size", transform: "int" } }, { team_size: "lots" }))).toBe(
      'employee_count (from "team_size"): int: "lots" is not a whole number',
    );
    expect(failure(map({ "headquarters.country_code": { from: "country", transform: "country" } }, { country: "Atlantis" }))).toBe(
      'headquarters.country_code (from "country"): country: unknown country "Atlantis"',
    );
  });

  it("a value the organization schema refuses", () => {
    expect(failure(map({ logo_url: "logo" }, { logo: "/missing.png" }))).toMatch(/^logo_url \(from "logo"\): Invalid URL/);
    expect(failure(map({}, { name: "  " }))).toBe('name (from "name"): is empty');
    expect(failure(map({ "headquarters.country_code": "country" }, { country: "Germany" }))).toBe(
      'headquarters.country_code (from "country"): unknown country code "Germany"; add the "country" transform to read country names',
    );
  });

  it("a list where one value is expected", () => {
    expect(failure(map({ description: "tags" }, { tags: ["a", "b"] }))).toContain('description (from "tags"): got a list of 2 values; add a "first"');
  });

  it('on_invalid "null" leaves the field empty and warns', () => {
    const result = ok(
      map(
        {
          "headquarters.country_code": { from: "country", transform: "country", on_invalid: "null" },
          logo_url: { from: "logo", on_invalid: "null" },
          "headquarters.city": "city",
        },
        { country: "Netherlands Antilles", logo: "not a url", city: "Willemstad" },
      ),
    );
    expect(result.row.location?.headquarters).toEqual({ city: "Willemstad" });
    expect(result.row.logo_url).toBeUndefined();
    expect(result.warnings).toEqual([
      'headquarters.country_code (from "country"): country: unknown country "Netherlands Antilles"; left empty',
      expect.stringMatching(/^logo_url \(from "logo"\): Invalid URL.*left empty$/),
    ]);
  });

  it("ids: a numeric field", () => {
    expect(ok(map({}, { id: "42" })).row.id).toBe(42);
    expect(failure(map({}, { id: -3 }))).toBe('id (from "id"): -3 is not a positive integer');
    expect(failure(map({}, { id: null }))).toBe('id (from "id"): is empty');
    expect(failure(map({}, { id: "A-7" }))).toBe('id (from "id"): "A-7" is not a whole number');
  });

  it("ids: hashed from key fields, stable and positive", () => {
    const a = ok(map({}, { symbol: "ACME", exchange: "NYSE" }, { hash: ["symbol", "exchange"] }));
    const b = ok(map({}, { symbol: "ACME", exchange: "NYSE", name: "Other name" }, { hash: ["symbol", "exchange"] }));
    const c = ok(map({}, { symbol: "ACME", exchange: "LSE" }, { hash: ["symbol", "exchange"] }));
    expect(a.row.id).toBe(b.row.id);
    expect(a.row.id).not.toBe(c.row.id);
    expect(a.row.id).toBe(hashId("ACME\u001fNYSE"));
    expect(a.row.id).toBeGreaterThan(0);
    expect(a.row.id).toBeLessThanOrEqual(MAX_HASHED_ID);
    expect(failure(map({}, { symbol: null, exchange: "" }, { hash: ["symbol", "exchange"] }))).toContain("the key fields are empty");
  });
});
