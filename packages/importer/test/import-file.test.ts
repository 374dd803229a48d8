import { OrgsimError } from "@orgsim/core";
import { describe, expect, it } from "vitest";
import { ImportAbortedError, type ImportProgress, importFile, loadMapping, parseMapping } from "../src/index";
import { csvMapping, exampleMapping, fixture, inMemoryService, jsonMapping, recordingUpsert } from "./helpers";

describe("NDJSON (yc shape, with the example yc mapping)", () => {
  it("imports the good rows and reports the bad ones by line, naming the field", async () => {
    const sink = recordingUpsert();
    const report = await importFile({ file: fixture("yc-sample.ndjson"), mapping: await loadMapping(exampleMapping("yc.json")), upsert: sink.upsert });

    expect(report).toMatchObject({ format: "ndjson", unit: "line", read: 8, imported: 4, failedCount: 3, duplicates: 1 });
    expect(report.failed).toEqual([
      { line: 3, message: 'name (from "name"): is empty' },
      { line: 4, message: 'employee_count (from "team_size"): int: "lots" is not a whole number' },
      { line: 5, message: expect.stringMatching(/^not valid JSON: /) },
    ]);
    expect(report.warnings).toEqual([{ line: 8, message: "id 101 repeats line 1; this later row wins" }]);
    expect([...sink.store().keys()].sort()).toEqual([101, 102, 106, 107]);
  });

  it("maps descriptions, places and countries", async () => {
    const sink = recordingUpsert();
    await importFile({ file: fixture("yc-sample.ndjson"), mapping: await loadMapping(exampleMapping("yc.json")), upsert: sink.upsert });
    const store = sink.store();

    // the later row 101 won: "California" and "United States of America" normalized
    expect(store.get(101)).toMatchObject({
      name: "Harborlight Inc.",
      description: "Berth and yard scheduling for container ports\n\nHarborlight helps terminal operators plan berths, cranes and yards.",
      domain: "harborlight.example",
      metrics: { employee_count: 15, founded_year: 2020 },
      location: { headquarters: { city: "San Francisco", subdivision_code: "US-CA", country_code: "US" } },
    });
    // first location is the HQ, the others are offices; a relative logo path is dropped
    const mossbank = store.get(102);
    expect(mossbank?.location).toEqual({
      headquarters: { city: "Nairobi", country_code: "KE" },
      offices: [
        { city: "London", subdivision_code: "GB-ENG", country_code: "GB" },
        { city: "Toronto", subdivision_code: "CA-ON", country_code: "CA" },
      ],
    });
    expect(mossbank?.logo_url).toBeUndefined();
    expect(mossbank?.description).toBe("Savings accounts for farm cooperatives");
    // labels (industry, subindustry, tags) are not mapped anywhere
    expect(JSON.stringify([...store.values()])).not.toMatch(/Supply Chain and Logistics|Fintech|Industrials/);
  });
});

describe("CSV", () => {
  it("streams records, reports bad ones at the line they start on", async () => {
    const sink = recordingUpsert();
    const report = await importFile({ file: fixture("companies.csv"), mapping: csvMapping, upsert: sink.upsert });

    expect(report).toMatchObject({ format: "csv", unit: "line", read: 5, imported: 3, failedCount: 2 });
    expect(report.failed).toEqual([
      { line: 4, message: 'employee_count (from "Employees"): int: "many" is not a whole number' },
      { line: 7, message: expect.stringMatching(/^not a valid CSV record: .*columns/i) },
    ]);
    const store = sink.store();
    expect(store.get(1)).toMatchObject({
      description: "Dashboards for hospital\nsupply chains",
      domain: "alder.example",
      categories: ["data-infrastructure"],
      metrics: { employee_count: 1250, founded_on: "2014-06-01" },
      location: { headquarters: { city: "Boston", subdivision_code: "US-MA", country_code: "US" } },
    });
    expect(store.get(3)?.location?.headquarters).toEqual({ city: "Toronto", subdivision_code: "CA-ON", country_code: "CA" });
    expect(store.get(3)?.contact).toBeUndefined();
    expect(store.get(5)?.location?.headquarters).toEqual({ city: "Munich", subdivision_code: "DE-BY", country_code: "DE" });
  });
});

describe("JSON", () => {
  it("reads the array at `records` and reports bad items by index", async () => {
    const sink = recordingUpsert();
    const report = await importFile({ file: fixture("companies.json"), mapping: jsonMapping, upsert: sink.upsert });

    expect(report).toMatchObject({ format: "json", unit: "index", read: 3, imported: 2 });
    expect(report.failed).toEqual([{ line: 1, message: 'headquarters.country_code (from "hq.country"): country: unknown country "Atlantis"' }]);
    expect(sink.store().get(11)?.location?.headquarters).toEqual({ city: "Chicago", subdivision_code: "US-IL", country_code: "US" });
    expect(sink.store().get(13)?.location?.headquarters).toEqual({ city: "Dublin", country_code: "IE" });
  });

  it("says where the records are when the top level is not an array", async () => {
    const { upsert } = recordingUpsert();
    const mapping = { ...jsonMapping, records: undefined };
    await expect(importFile({ file: fixture("companies.json"), mapping, upsert })).rejects.toThrow(
      /is not a JSON array; set "records" in the mapping to the field that holds the records/,
    );
    await expect(importFile({ file: fixture("companies.json"), mapping: { ...jsonMapping, records: "data.nope" }, upsert })).rejects.toThrow(
      /"data.nope" is not an array of records/,
    );
  });
});

describe("batches, duplicates and idempotency", () => {
  const mappingP = loadMapping(exampleMapping("yc.json"));

  it("batch size never changes the result; no batch holds an id twice or more rows than asked", async () => {
    const mapping = await mappingP;
    const stores = [];
    for (const batchSize of [1, 2, 3, 64]) {
      const sink = recordingUpsert();
      const report = await importFile({ file: fixture("yc-sample.ndjson"), mapping, upsert: sink.upsert, batchSize });
      expect(report.imported).toBe(4);
      for (const call of sink.calls) {
        expect(call.length).toBeLessThanOrEqual(batchSize);
        expect(new Set(call.map((r) => r.id)).size).toBe(call.length);
      }
      stores.push(Object.fromEntries(sink.store()));
    }
    for (const store of stores) expect(store).toEqual(stores[0]);
    // the later row of id 101 wins whether or not it falls in the same batch as the first
    expect((stores[0] as Record<number, { name: string }>)[101]?.name).toBe("Harborlight Inc.");
  });

  it("importing twice through OrganizationService.upsertMany yields the same store", async () => {
    const mapping = await mappingP;
    const { service, snapshot } = inMemoryService();
    const upsert = (rows: unknown[]) => service.upsertMany(rows);
    const first = await importFile({ file: fixture("yc-sample.ndjson"), mapping, upsert, batchSize: 2 });
    const after1 = snapshot();
    const second = await importFile({ file: fixture("yc-sample.ndjson"), mapping, upsert, batchSize: 5 });
    expect(snapshot()).toEqual(after1);
    expect(after1.map((o) => o.id)).toEqual([101, 102, 106, 107]);
    expect(after1[0]).toMatchObject({
      name: "Harborlight Inc.",
      location: { headquarters: { country: "United States of America", world_region: "northern-america" } },
    });
    expect(second).toMatchObject({ read: first.read, imported: first.imported, failedCount: first.failedCount });
  });

  it("hashed ids: distinct keys give distinct ids, so no false duplicates", async () => {
    const mapping = parseMapping({ format: "ndjson", id: { hash: ["name"] }, fields: { name: "name" } });
    const sink = recordingUpsert();
    const report = await importFile({ file: fixture("yc-sample.ndjson"), mapping, upsert: sink.upsert });
    // names differ, so ids differ: no collision and no duplicates
    expect(report.duplicates).toBe(0);
    expect(report.failed.map((f) => f.line)).toEqual([3, 5]);
  });
});

describe("writes", () => {
  it("rows the service refuses are reported and the rest of the batch is written", async () => {
    const mapping = await loadMapping(exampleMapping("yc.json"));
    const written: number[] = [];
    const upsert = async (rows: { id: number }[]) => {
      const bad = rows.findIndex((r) => r.id === 102);
      if (bad >= 0 && rows.length > 1) {
        throw new OrgsimError("VALIDATION_FAILED", "Invalid input", { issues: [{ path: [bad, "name"], message: "refused" }], failing_indexes: [bad] });
      }
      if (bad >= 0) throw new OrgsimError("VALIDATION_FAILED", "Invalid input: name: refused", { issues: [] });
      written.push(...rows.map((r) => r.id));
    };
    const report = await importFile({ file: fixture("yc-sample.ndjson"), mapping, upsert, batchSize: 64 });
    expect(report.failed).toContainEqual({ line: 2, message: "name: refused" });
    expect(written.sort()).toEqual([101, 106, 107]);
    expect(report.imported).toBe(3);
  });

  it("a backend failure stops the import with the report so far", async () => {
    const mapping = await loadMapping(exampleMapping("yc.json"));
    let calls = 0;
    const upsert = async () => {
      calls++;
      if (calls === 2) throw new OrgsimError("BACKEND_UNAVAILABLE", "store is down");
    };
    const error = await importFile({ file: fixture("yc-sample.ndjson"), mapping, upsert, batchSize: 1 }).catch((e) => e);
    expect(error).toBeInstanceOf(ImportAbortedError);
    expect(error.message).toMatch(/stopped at line 2: store is down\. 1 organizations were written before; importing again is safe/);
    expect(error.report.imported).toBe(1);
  });

  it("reports progress with bytes and counts", async () => {
    const seen: ImportProgress[] = [];
    const sink = recordingUpsert();
    await importFile({
      file: fixture("yc-sample.ndjson"),
      mapping: await loadMapping(exampleMapping("yc.json")),
      upsert: sink.upsert,
      batchSize: 2,
      onProgress: (p) => seen.push(p),
    });
    const last = seen.at(-1);
    expect(last).toMatchObject({ read: 8, imported: 4, failed: 3 });
    expect(last?.bytesRead).toBe(last?.totalBytes);
    expect(last?.totalBytes).toBeGreaterThan(0);
  });

  it("refuses a batch size the service would refuse", async () => {
    const { upsert } = recordingUpsert();
    await expect(
      importFile({ file: fixture("yc-sample.ndjson"), mapping: await loadMapping(exampleMapping("yc.json")), upsert, batchSize: 1001 }),
    ).rejects.toThrow(/batchSize must be an integer from 1 to 1000/);
  });
});
