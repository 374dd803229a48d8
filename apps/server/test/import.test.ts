/** `orgsim import` as a user runs it, then the imported data served over real HTTP. */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { api, backendEnv, removeDir, type TestServer, startServer } from "./harness";

const run = promisify(execFile);
const SERVER_DIR = join(import.meta.dirname, "..");
const REPO = join(SERVER_DIR, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "orgsim-import-"));
let server: TestServer | undefined;

afterAll(async () => {
  await server?.stop();
  removeDir(dataDir);
});

async function orgsimImport(file: string, mapping: string) {
  return run(process.execPath, ["--import", "tsx", "src/main.ts", "import", file, "--mapping", mapping], {
    cwd: SERVER_DIR,
    env: { ...process.env, ...backendEnv(dataDir) },
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
