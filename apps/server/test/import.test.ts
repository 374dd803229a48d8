/** `orgsim import` as a user runs it, then the imported data served over real HTTP. */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { READER_THREAD_FROM_BYTES } from "@orgsim/importer";
import { seededRandom } from "@orgsim/sample-data";
import { afterAll, describe, expect, it } from "vitest";
import { api, backendEnv, orgsimArgs, removeDir, TEST_BACKEND, type TestServer, startServer } from "./harness";

const run = promisify(execFile);
const SERVER_DIR = join(import.meta.dirname, "..");
const REPO = join(SERVER_DIR, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "orgsim-import-"));
let server: TestServer | undefined;

afterAll(async () => {
  await server?.stop();
  removeDir(dataDir);
});

async function orgsimImport(file: string, mapping: string, into = dataDir, args: string[] = []) {
  return run(process.execPath, orgsimArgs(["import", file, "--mapping", mapping, ...args]), {
    cwd: SERVER_DIR,
    env: { ...process.env, ...backendEnv(into) },
  }).catch((error) => error as { stdout: string; stderr: string; code: number });
}

describe("orgsim import", () => {
  it("imports a CSV export, reports bad rows by line and keeps the good ones", async () => {
    const csv = readFileSync(join(REPO, "examples", "my-companies.csv"), "utf8")
      .trimEnd()
      .split("\n");
    // Line 6: a bad country; line 7: no name.
    const header = csv[0]!.split(",");
    const bad = (fields: Record<string, string>) => header.map((h) => fields[h] ?? "").join(",");
    const file = join(dataDir, "export.csv");
    writeFileSync(
      file,
      [...csv, bad({ "Company ID": "9001", "Company Name": "Broken Country", "HQ Country": "Atlantis" }), bad({ "Company ID": "9002" })].join("\n"),
    );

    const result = await orgsimImport(file, join(REPO, "examples", "mappings", "my-companies.csv.json"));
    const output = `${result.stdout}${result.stderr}`;
    expect(output).toMatch(/imported 4/);
    expect(output).toMatch(/line 6/);
    expect(output).toMatch(/line 7/);
  });

  it("is idempotent: a second run upserts the same organizations", async () => {
    const result = await orgsimImport(join(REPO, "examples", "my-companies.csv"), join(REPO, "examples", "mappings", "my-companies.csv.json"));
    expect(result.stdout).toMatch(/imported 4/);
  });

  const yc = join(REPO, "..", "shared", "datasets", "yc", "companies.ndjson");
  it.skipIf(!existsSync(yc))("imports the first 150 rows of the YC directory with the example mapping", async () => {
    const head = readFileSync(yc, "utf8").split("\n").slice(0, 150).join("\n");
    const file = join(dataDir, "yc-head.ndjson");
    writeFileSync(file, head);
    const result = await orgsimImport(file, join(REPO, "examples", "mappings", "yc.json"));
    expect(result.stdout).toMatch(/imported 150/);
  });

  it("orgsim optimize merges what the import left: Elasticsearch into one segment a shard; the embedded store has nothing to merge", async () => {
    const { stdout } = await run(process.execPath, orgsimArgs(["optimize"]), { cwd: SERVER_DIR, env: { ...process.env, ...backendEnv(dataDir) } });
    expect(stdout).toMatch(TEST_BACKEND === "elasticsearch" ? /-organizations: 1 segment after \d+ s/ : /embedded store: nothing to merge/);
  });

  it("serves the imported organizations", async () => {
    server = await startServer({ dataDir, env: { ORGSIM_SAMPLE_SIZE: "0" } });
    const count = existsSync(yc) ? 154 : 4;
    const all = await api(server, "GET", "/search/organizations/similar?description=any+business&limit=100");
    expect(all.status).toBe(200);
    const ids: number[] = [];
    let body = all.body;
    ids.push(...body.data.map((o: any) => o.id));
    while (body.meta.next_cursor) {
      body = (await api(server, "GET", `/search/organizations/similar?description=any+business&limit=100&cursor=${body.meta.next_cursor}`)).body;
      ids.push(...body.data.map((o: any) => o.id));
    }
    expect(ids).toHaveLength(count);
    expect(ids).not.toContain(9001);
  });
});

describe("orgsim import with vectors computed elsewhere", () => {
  const vectorsDir = mkdtempSync(join(tmpdir(), "orgsim-import-vectors-"));
  let vectorServer: TestServer | undefined;
  afterAll(async () => {
    await vectorServer?.stop();
    removeDir(vectorsDir);
  });
  // Axis-aligned 384-d vectors (bge-small's dimension): cosines known in advance, far from any text's embedding.
  const axis = (weights: Record<number, number>, dimension = 384) => Array.from({ length: dimension }, (_, i) => weights[i] ?? 0);

  it("stores the given vectors (unit length) instead of embedding, fails a row of another dimension alone, and searches by them", async () => {
    const rows = [
      { id: 7001, name: "Axis One", vector: axis({ 0: 1 }) },
      { id: 7002, name: "Axis One And Two", vector: axis({ 0: 3, 1: 3 }) },
      { id: 7003, name: "Too Short", vector: axis({ 0: 1 }, 5) },
      { id: 7004, name: "Axis Two", vector: axis({ 1: 0.5 }) },
    ];
    const file = join(vectorsDir, "with-vectors.ndjson");
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n"));
    const mapping = join(vectorsDir, "mapping.json");
    writeFileSync(mapping, JSON.stringify({ format: "ndjson", id: "id", fields: { name: "name", profile_vector: "vector" } }));

    const result = await orgsimImport(file, mapping, vectorsDir);
    const output = `${result.stdout}${result.stderr}`;
    expect(output).toMatch(/imported 3/);
    expect(output).toMatch(/line 3: profile_vector .*has 5 dimensions; expected 384/);
    // The mapping leaves the customer vectors to the model, and the command says so before reading.
    expect(result.stderr).toMatch(/import: the mapping gives profile_vector but not customer_vector: the model embeds the customer text/);

    vectorServer = await startServer({ dataDir: vectorsDir, env: { ORGSIM_SAMPLE_SIZE: "0" } });
    const similar = await api(vectorServer, "GET", "/search/organizations/7001/similar?ranking=vector&limit=10");
    expect(similar.status).toBe(200);
    expect(similar.body.data.map((o: any) => [o.id, o.similarity.score])).toEqual([
      [7002, Number(Math.SQRT1_2.toFixed(6))],
      [7004, 0],
    ]);
  });

  it("reads a large file on the bundle's reader thread, rows in order and vectors intact", async () => {
    const dir = mkdtempSync(join(tmpdir(), "orgsim-import-reader-"));
    try {
      // Axis i % 384 plus noise below 1e-9 in every item: long numbers, so the file is large, and rows
      // 384 apart are each other's nearest (cosine 1 to six places).
      const random = seededRandom(1);
      const vector = (i: number) => axis({ [i % 384]: 1 }).map((x) => x + random() * 1e-9);
      const rows: Record<string, unknown>[] = Array.from({ length: 1100 }, (_, i) => ({
        id: 9001 + i,
        name: `Reader Org ${i}`,
        p: vector(i),
        c: vector(i + 1),
      }));
      rows[500] = { ...rows[500], p: axis({ 0: 1 }, 5) };
      const file = join(dir, "rows.ndjson");
      writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n"));
      expect(statSync(file).size).toBeGreaterThanOrEqual(READER_THREAD_FROM_BYTES);
      const mapping = join(dir, "mapping.json");
      writeFileSync(mapping, JSON.stringify({ format: "ndjson", id: "id", fields: { name: "name", profile_vector: "p", customer_vector: "c" } }));

      const result = await orgsimImport(file, mapping, dir);
      const output = `${result.stdout}${result.stderr}`;
      expect(output).toMatch(/imported 1,099/);
      expect(output).toMatch(/line 501: profile_vector .*has 5 dimensions; expected 384/);

      const readerServer = await startServer({ dataDir: dir, env: { ORGSIM_SAMPLE_SIZE: "0" } });
      try {
        const similar = await api(readerServer, "GET", "/search/organizations/9001/similar?ranking=vector&limit=2");
        expect(similar.status).toBe(200);
        expect(new Set(similar.body.data.map((o: any) => o.id))).toEqual(new Set([9385, 9769]));
        for (const o of similar.body.data) expect(o.similarity.score).toBe(1);
      } finally {
        await readerServer.stop();
      }
    } finally {
      removeDir(dir);
    }
  });

  it.skipIf(TEST_BACKEND !== "embedded")(
    "writes batches of 64 without building the graphs on the way, then builds them in one pass whose progress counts the organizations",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "orgsim-import-graphs-"));
      try {
        // Each row's two vectors: axis i and axis i + 1 (distinct, so no two organizations share one).
        const rows = Array.from({ length: 100 }, (_, i) => ({ id: 8001 + i, name: `Graph Org ${i}`, p: axis({ [i]: 1 }), c: axis({ [i + 1]: 1 }) }));
        const file = join(dir, "rows.ndjson");
        writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n"));
        const mapping = join(dir, "mapping.json");
        writeFileSync(mapping, JSON.stringify({ format: "ndjson", id: "id", fields: { name: "name", profile_vector: "p", customer_vector: "c" } }));
        const result = await orgsimImport(file, mapping, dir, ["--batch-size", "64"]);
        expect(result.stdout).toMatch(/imported 100/);
        const progress = [...result.stderr.matchAll(/vector index: ([\d,]+)\/([\d,]+) organizations/g)].map((m) => [m[1], m[2]]);
        // Built after the writes, as one build of all 100 (a write of 64 added at once would leave a build of the rest only).
        expect(progress.at(-1)).toEqual(["100", "100"]);
        for (const [, total] of progress) expect(total).toBe("100");
      } finally {
        removeDir(dir);
      }
    },
  );
});
