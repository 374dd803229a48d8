/** The perf bench's writes go through the product's path (OrganizationService.upsertMany with vectors given), real and synthetic records alike. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEmbeddedBackend } from "@orgsim/backend-embedded";
import { type Embedder, type OrganizationRecord, OrganizationService, type OrganizationStore } from "@orgsim/core";
import { importFile } from "@orgsim/importer";
import { generateSampleOrganizations } from "@orgsim/sample-data";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_SYNTHETIC, Dataset, permute48, SYNTHETIC_ID_BASE } from "../src/perf/data";
import { API_SHAPE_MAPPING, fileLine } from "../src/perf/import-command";
import { givenVectorsOnly, upsertInput, WRITE_PATH } from "../src/perf/load";
import { callsInFlightText, importCommandText, syntheticIdsText, vectorsGivenText } from "../src/perf/report";
import type { ScaleResult } from "../src/perf/types";

const DIMENSION = 8;

/** A real embedded store in a temporary directory, removed after the test file. */
const opened: { close(): Promise<void>; dir: string }[] = [];
afterAll(async () => {
  for (const { close, dir } of opened) {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
});
function embeddedStore(): OrganizationStore {
  const dir = mkdtempSync(join(tmpdir(), "orgsim-perf-load-"));
  const backend = openEmbeddedBackend({ dataDir: dir, vectorIndex: { kind: "exact" } });
  opened.push({ close: () => backend.close(), dir });
  return backend.organizations;
}

/** What `store` holds for each of `ids`, as records. */
async function storedRecords(store: OrganizationStore, ids: number[]): Promise<Map<number, OrganizationRecord>> {
  const out = new Map<number, OrganizationRecord>();
  for (const organization of await store.getMany(ids)) {
    const [profileVector, customerVector] = await Promise.all([store.getVector(organization.id, "profile"), store.getVector(organization.id, "customer")]);
    out.set(organization.id, { organization, profileVector: profileVector as Float32Array, customerVector });
  }
  return out;
}

/** A deterministic embedder (unit vectors from the text's characters) that counts the texts it embedded. */
function fakeEmbedder() {
  let texts = 0;
  const embedder: Embedder = {
    modelId: "test-8d",
    dimension: DIMENSION,
    embed: async (batch) => {
      texts += batch.length;
      return batch.map((text) => {
        const v = new Float32Array(DIMENSION).map((_, i) => 1 + ((text.charCodeAt(i % text.length) * (i + 1)) % 17));
        const norm = Math.hypot(...v);
        return v.map((x) => x / norm);
      });
    },
    close: async () => {},
  };
  return { embedder, texts: () => texts };
}

/** "Real" records as the product stores them: the sample organizations embedded by the service. */
async function realRecords(): Promise<OrganizationRecord[]> {
  const store = embeddedStore();
  const { embedder } = fakeEmbedder();
  const organizations = await new OrganizationService(store, embedder).upsertMany(generateSampleOrganizations({ count: 40, seed: 7 }));
  return [
    ...(
      await storedRecords(
        store,
        organizations.map((o) => o.id),
      )
    ).values(),
  ];
}

describe("perf load through OrganizationService.upsertMany", () => {
  it("writes real and synthetic records with their vectors given, never embedding", async () => {
    const real = await realRecords();
    expect(real.some((r) => r.customerVector)).toBe(true);
    const dataset = new Dataset(real);
    const records = dataset.batch(0, 200);
    const store = embeddedStore();
    const { embedder, texts } = fakeEmbedder();
    const { organizations, givenVectors } = upsertInput(records);
    expect(givenVectors[0]?.profile).toBeInstanceOf(Array);

    await new OrganizationService(store, givenVectorsOnly(embedder)).upsertMany(organizations, { givenVectors });

    expect(texts()).toBe(0);
    const rows = await storedRecords(
      store,
      records.map((r) => r.organization.id),
    );
    expect(rows.size).toBe(200);
    for (const record of records) {
      const stored = rows.get(record.organization.id) as OrganizationRecord;
      expect(stored.organization).toEqual(record.organization);
      expect(Array.from(stored.profileVector)).toEqual(Array.from(record.profileVector).map((x) => expect.closeTo(x, 6)));
      expect(stored.customerVector === null).toBe(record.customerVector === null);
    }
  });

  it("refuses to embed: a record missing a vector its text needs fails the batch", async () => {
    const real = await realRecords();
    const withCustomer = real.find((r) => r.customerVector) as OrganizationRecord;
    const store = embeddedStore();
    const { embedder, texts } = fakeEmbedder();
    const { organizations, givenVectors } = upsertInput([{ ...withCustomer, customerVector: null }]);
    await expect(new OrganizationService(store, givenVectorsOnly(embedder)).upsertMany(organizations, { givenVectors })).rejects.toThrow(
      /asked to embed 1 text/,
    );
    expect(texts()).toBe(0);
  });
});

describe("the file orgsim import reads in the bench (import-command.ts)", () => {
  it("holds every organization in the API's shape with both vectors, which the mapping reads back as the load writes them", async () => {
    const real = await realRecords();
    const records = new Dataset(real).batch(0, 200);
    const file = join(mkdtempSync(join(tmpdir(), "orgsim-perf-file-")), "organizations.ndjson");
    writeFileSync(file, records.map(fileLine).join("\n"));
    const store = embeddedStore();
    const { embedder, texts } = fakeEmbedder();
    const service = new OrganizationService(store, givenVectorsOnly(embedder));
    const report = await importFile({ file, mapping: API_SHAPE_MAPPING, upsert: (rows, options) => service.upsertMany(rows, options) });
    rmSync(file);

    expect(report).toMatchObject({ read: 200, imported: 200, failedCount: 0, warningCount: 0 });
    expect(texts()).toBe(0);
    const rows = await storedRecords(
      store,
      records.map((r) => r.organization.id),
    );
    for (const record of records) {
      const stored = rows.get(record.organization.id) as OrganizationRecord;
      // The importer has no target for `fictional`: what it imports is the user's own data.
      expect(stored.organization).toEqual({ ...record.organization, fictional: false });
      expect(Array.from(stored.profileVector)).toEqual(Array.from(record.profileVector).map((x) => expect.closeTo(x, 6)));
      expect(stored.customerVector === null).toBe(record.customerVector === null);
    }
  });
});

describe("the synthetic organizations' ids", () => {
  it("are spread over 2^48 above the importer's ids, in no order, one id to one organization, as idOf gives them", async () => {
    const real = await realRecords();
    const dataset = new Dataset(real);
    const synthetic = dataset.batch(real.length, 2000).map((r) => r.organization.id);
    expect(synthetic).toEqual(synthetic.map((_, k) => dataset.idOf(real.length + k)));
    expect(new Set(synthetic).size).toBe(2000);
    for (const id of synthetic) expect(id >= SYNTHETIC_ID_BASE && id < SYNTHETIC_ID_BASE + 2 ** 48 && Number.isSafeInteger(id)).toBe(true);
    const ascending = synthetic.filter((id, k) => k > 0 && id > (synthetic[k - 1] as number)).length;
    expect(ascending).toBeGreaterThan(800);
    expect(ascending).toBeLessThan(1200);
    expect(Math.max(...synthetic) - Math.min(...synthetic)).toBeGreaterThan(2 ** 47);
    // The names keep the organization's number, whatever the id.
    expect(dataset.batch(real.length + 4, 1)[0]?.organization.name).toMatch(/\(synthetic 5\)$/);
  });

  it("are consecutive with --ids consecutive, as in runs before", async () => {
    const real = await realRecords();
    const dataset = new Dataset(real, { ...DEFAULT_SYNTHETIC, ids: "consecutive" });
    expect(dataset.batch(real.length, 3).map((r) => r.organization.id)).toEqual([1, 2, 3].map((k) => SYNTHETIC_ID_BASE + k));
  });

  it("come from a permutation: no two numbers of a range share an id, and every id is below 2^48", () => {
    const seen = new Set<number>();
    for (const start of [0, 2 ** 24 - 50_000, 2 ** 48 - 50_000]) {
      for (let x = start; x < start + 50_000; x++) seen.add(permute48(x));
    }
    expect(seen.size).toBe(150_000);
    for (const id of seen) expect(id >= 0 && id < 2 ** 48 && Number.isInteger(id)).toBe(true);
  });

  it("are named in the report per scale and backend, with what ids in no order cost the embedded store", () => {
    const load = (ids?: "spread") => ({ import_vectors_given: { organizations: 1, seconds: 1, per_second: 1, generate_seconds: 0, through: WRITE_PATH, ids } });
    const text = syntheticIdsText([
      ["100k", { embedded: load("spread"), elasticsearch: load() } as ScaleResult],
      ["1m", { embedded: load() } as ScaleResult],
    ]);
    expect(text).toMatch(
      /ids run in no order, spread over 2\^48, in 100k \(embedded\), as `orgsim import` derives ids by hashing; consecutive in 100k \(Elasticsearch\), 1m \(embedded\) \(runs before/,
    );
    expect(text).toMatch(/9,762 and 10,642 organizations\/s/);
  });
});

describe("the report's sentence on orgsim import from a file", () => {
  const load = { organizations: 1, seconds: 1, per_second: 1, generate_seconds: 0 };
  const command = {
    through: "orgsim import (bundle)",
    organizations: 100_000,
    failed: 0,
    file_bytes: 850 * 2 ** 20,
    records_s: 18,
    per_second: 5556,
    after_records_s: 41.2,
    wall_s: 60,
  } as const;

  it("gives each measured scale's rate, file and graph time, and is left out when no scale measured it", () => {
    const text = importCommandText([
      ["10k", { embedded: { import_vectors_given: load } } as ScaleResult],
      ["100k", { embedded: { import_vectors_given: load, import_command: command } } as ScaleResult],
    ]);
    expect(text).toMatch(/: 100k 5,556 orgs\/s \(100,000 in 18\.0 s from 850 MiB; the graphs and shutdown 41\.2 s after\)\. /);
    expect(text).not.toMatch(/10k/);
    expect(importCommandText([["10k", { embedded: { import_vectors_given: load } } as ScaleResult]])).toBeNull();
  });

  it("says whether the command ran with orgsim's V8 flags", () => {
    const text = (node_flags?: string[]) =>
      importCommandText([["100k", { embedded: { import_vectors_given: load, import_command: { ...command, node_flags } } } as ScaleResult]]);
    expect(text(["--max-semi-space-size=64"])).toMatch(/ The command ran with orgsim's V8 flags \(`--max-semi-space-size=64`, .*\) in 100k\.$/);
    expect(text()).not.toMatch(/V8 flags/);
  });
});

describe("the report's sentence on imports with vectors given", () => {
  const scale = (through?: typeof WRITE_PATH) =>
    ({ embedded: { import_vectors_given: { organizations: 1, seconds: 1, per_second: 1, generate_seconds: 0, through } } }) as ScaleResult;

  it("says results of earlier runs were written through the store adapters", () => {
    const text = vectorsGivenText([["10k", scale()]], 1000);
    expect(text).toMatch(/measured before the product took vectors, through each backend's store adapter/);
    expect(text).not.toMatch(/^\*With vectors given\*: orgs\/s through/);
  });

  it("reports the rates as orgs/s through OrganizationService.upsertMany with vectors given, naming scales still from earlier runs", () => {
    expect(vectorsGivenText([["10k", scale(WRITE_PATH)]], 1000)).toMatch(
      /^\*With vectors given\*: orgs\/s through `OrganizationService.upsertMany` with vectors given \(`givenVectors`\), the product's path /,
    );
    const mixed = vectorsGivenText(
      [
        ["10k", scale(WRITE_PATH)],
        ["1m", scale()],
      ],
      1000,
    );
    expect(mixed).toMatch(/with vectors given \(`givenVectors`; 10k\), the product's path/);
    expect(mixed).toMatch(/ 1m was measured before that path existed/);
  });

  it("says which scales and backends were written with how many calls in flight", () => {
    const load = (in_flight?: number) => ({
      import_vectors_given: { organizations: 1, seconds: 1, per_second: 1, generate_seconds: 0, through: WRITE_PATH, in_flight },
    });
    const text = vectorsGivenText([["100k", { embedded: load(2), elasticsearch: load() } as ScaleResult]], 1000);
    expect(text).toMatch(
      /\. Two calls in flight in 100k \(embedded\), as `orgsim import` made them from commit 74366dc .* to commit \w+; one call at a time in the others, measured before it\. /,
    );
    expect(vectorsGivenText([["10k", scale(WRITE_PATH)]], 1000)).toMatch(/runs before it\)\. One call at a time\. The service/);
    const runs = [
      { label: "100k (embedded)", calls: 3 },
      { label: "1m (embedded)", calls: 2 },
      { label: "100k (Elasticsearch)", calls: 3 },
    ];
    expect(callsInFlightText(runs)).toMatch(
      /^Three calls in flight in 100k \(embedded\), 100k \(Elasticsearch\), as `orgsim import` makes them since commit \w+; two calls in flight in 1m \(embedded\), as `orgsim import` made them from commit 74366dc/,
    );
    expect(callsInFlightText(runs)).not.toMatch(/one call at a time/);
  });

  it("says which scales and backends were written by a process with orgsim's V8 flags, and is silent when none was", () => {
    const load = (node_flags?: string[]) => ({
      import_vectors_given: { organizations: 1, seconds: 1, per_second: 1, generate_seconds: 0, through: WRITE_PATH, node_flags },
    });
    const text = vectorsGivenText([["100k", { embedded: load(["--max-semi-space-size=64"]), elasticsearch: load() } as ScaleResult]], 1000);
    expect(text).toMatch(
      / The writing process ran with orgsim's V8 flags \(`--max-semi-space-size=64`, as `orgsim import` and the server run since commit \w+\) in 100k \(embedded\); with Node's defaults in 100k \(Elasticsearch\)\./,
    );
    expect(vectorsGivenText([["10k", scale(WRITE_PATH)]], 1000)).not.toMatch(/V8 flags/);
  });

  it("names the backend when only one of a scale's backends comes from a run before that path (carried over by --backends)", () => {
    const load = (through?: typeof WRITE_PATH) => ({ import_vectors_given: { organizations: 1, seconds: 1, per_second: 1, generate_seconds: 0, through } });
    const carried = { embedded: load(WRITE_PATH), elasticsearch: load() } as ScaleResult;
    const text = vectorsGivenText([["1m", carried]], 1000);
    expect(text).toMatch(/with vectors given \(`givenVectors`; 1m\), the product's path/);
    expect(text).toMatch(/ 1m \(Elasticsearch\) was measured before that path existed/);
  });
});
