import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMapping, MappingError, parseMapping } from "../src/index";
import { exampleMapping, fixture } from "./helpers";

const base = { format: "ndjson", id: "source_id", fields: { name: "name" } };

function errorOf(raw: unknown): MappingError {
  try {
    parseMapping(raw);
  } catch (error) {
    if (error instanceof MappingError) return error;
    throw error;
  }
  throw new Error("mapping was accepted");
}

describe("mapping validation", () => {
  it("accepts the shorthand and normalizes it", () => {
    const mapping = parseMapping({
      ...base,
      fields: {
        name: "name",
        description: { from: ["one_liner", "long_description"], join: "\n\n" },
        categories: { from: "tags", transform: { lookup: { Robotics: "robotics" } } },
      },
    });
    expect(mapping.id).toEqual({ from: ["source_id"], steps: [], hash: null });
    expect(mapping.fields.map((f) => f.key)).toEqual(["name", "description", "categories"]);
    expect(mapping.fields[1]).toMatchObject({ from: ["one_liner", "long_description"], join: "\n\n", onInvalid: "fail" });
    expect(mapping.fields[2]?.steps).toEqual([{ name: "lookup", arg: { Robotics: "robotics" } }]);
  });

  it("names an unknown organization field and suggests the right one", () => {
    const error = errorOf({ ...base, fields: { name: "name", descripton: "about" } });
    expect(error.issues).toEqual([expect.objectContaining({ path: "fields.descripton" })]);
    expect(error.message).toContain('fields.descripton: unknown organization field (did you mean "description"?)');
  });

  it("names an unknown transform with its position and suggests one", () => {
    const error = errorOf({ ...base, fields: { name: "name", domain: { from: "website", transform: ["url", "domian_from_url"] } } });
    expect(error.message).toContain('fields.domain.transform[1]: unknown transform "domian_from_url" (did you mean "domain_from_url"?)');
  });

  it("checks transform arguments", () => {
    expect(errorOf({ ...base, fields: { name: { from: "name", transform: { truncate: "short" } } } }).message).toMatch(
      /fields\.name\.transform\[0\]\.truncate: argument of "truncate": .*expected number/,
    );
    expect(errorOf({ ...base, fields: { name: { from: "name", transform: { int: true } } } }).message).toContain('transform "int" takes no argument');
    expect(errorOf({ ...base, fields: { name: "name", categories: { from: "tags", transform: "lookup" } } }).message).toContain(
      'transform "lookup" needs an argument',
    );
  });

  it("requires a name, a valid format and exactly one id source", () => {
    expect(errorOf({ ...base, fields: { description: "about" } }).message).toContain('fields.name: "name" must be mapped');
    expect(errorOf({ ...base, format: "xml" }).message).toContain("format: format must be one of ndjson, json, csv");
    expect(errorOf({ ...base, id: { from: "id", hash: ["symbol"] } }).message).toContain('give either "from"');
    expect(errorOf({ format: "csv", fields: { name: "name" } }).message).toContain("id: is required");
  });

  it("rejects unknown keys and options for another format", () => {
    expect(errorOf({ ...base, fields: { name: { from: "name", tranform: "int" } } }).message).toContain(
      'fields.name: unknown key "tranform"; allowed: from, join, transform, on_invalid',
    );
    expect(errorOf({ ...base, records: "data" }).message).toContain('records: "records" applies to format "json" only');
    expect(errorOf({ ...base, fields: { name: "name", id: "id" } }).message).toContain('the id is set by the top-level "id"');
  });

  it("reports every problem at once", () => {
    const error = errorOf({ format: "ndjson", id: 5, fields: { nme: "name", domain: { from: "" } } });
    expect(error.issues.length).toBeGreaterThanOrEqual(3);
  });

  it("says when a mapping file is not JSON", async () => {
    await expect(loadMapping(fixture("companies.csv"))).rejects.toThrow(/is not valid JSON/);
    await expect(loadMapping(fixture("nope.json"))).rejects.toThrow(/Cannot read mapping/);
  });

  it("every example mapping is valid", async () => {
    const folder = dirname(exampleMapping("yc.json"));
    const files = readdirSync(folder).filter((f) => f.endsWith(".json"));
    expect(files).toEqual(expect.arrayContaining(["yc.json", "equities.json", "my-companies.csv.json"]));
    for (const file of files) await expect(loadMapping(`${folder}/${file}`)).resolves.toBeTruthy();
  });
});

describe("mapping validation, more", () => {
  it("refuses to leave the name empty", () => {
    expect(errorOf({ ...base, fields: { name: { from: "name", on_invalid: "null" } } }).message).toContain(
      "fields.name.on_invalid: a name cannot be left empty",
    );
  });

  it("lists the allowed keys of the csv options", () => {
    expect(errorOf({ format: "csv", csv: { separator: ";" }, id: "id", fields: { name: "name" } }).message).toContain(
      'csv: unknown key "separator"; allowed: delimiter, quote, encoding',
    );
  });
});
