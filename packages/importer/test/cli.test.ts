import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runImportCli } from "../src/index";
import { example, exampleMapping, fixture, recordingUpsert } from "./helpers";

function capture() {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

describe("runImportCli", () => {
  it("prints counts and failures with line numbers; exit 0 when something was imported", async () => {
    const out = capture();
    const err = capture();
    const sink = recordingUpsert();
    const result = await runImportCli({
      file: fixture("yc-sample.ndjson"),
      mappingPath: exampleMapping("yc.json"),
      upsert: sink.upsert,
      show: 2,
      stdout: out.stream,
      stderr: err.stream,
    });
    expect(result.exitCode).toBe(0);
    expect(out.text()).toContain("Imported 4 organizations from yc-sample.ndjson in");
    expect(out.text()).toContain("read 8 · imported 4 · failed 3 · repeated ids 1 (the later row won) · warnings 1");
    expect(out.text()).toContain('Failed rows (first 2 of 3):\n  line 3: name (from "name"): is empty\n  line 4: employee_count');
    expect(out.text()).toContain("Warnings:\n  line 8: id 101 repeats line 1; this later row wins");
    expect(sink.store().size).toBe(4);
  });

  it("exits non-zero when nothing could be imported", async () => {
    const dir = mkdtempSync(join(tmpdir(), "orgsim-importer-"));
    const file = join(dir, "bad.ndjson");
    writeFileSync(file, '{"source_id": 1, "name": ""}\nnot json\n');
    const out = capture();
    const result = await runImportCli({
      file,
      mappingPath: exampleMapping("yc.json"),
      upsert: recordingUpsert().upsert,
      stdout: out.stream,
      stderr: capture().stream,
    });
    expect(result.exitCode).toBe(1);
    expect(out.text()).toContain("Imported 0 organizations");
    expect(out.text()).toContain("line 2: not valid JSON");
  });

  it("prints a clear message for a bad mapping or a missing file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "orgsim-importer-"));
    const mappingPath = join(dir, "mapping.json");
    writeFileSync(mappingPath, JSON.stringify({ format: "ndjson", id: "source_id", fields: { name: "name", employees: "team_size" } }));
    const err = capture();
    const bad = await runImportCli({ file: fixture("yc-sample.ndjson"), mappingPath, dryRun: true, stdout: capture().stream, stderr: err.stream });
    expect(bad.exitCode).toBe(1);
    expect(err.text()).toContain(`import: Invalid mapping ${mappingPath}:\n  - fields.employees: unknown organization field`);

    const err2 = capture();
    const missing = await runImportCli({
      file: join(dir, "nope.ndjson"),
      mappingPath: exampleMapping("yc.json"),
      dryRun: true,
      stdout: capture().stream,
      stderr: err2.stream,
    });
    expect(missing.exitCode).toBe(1);
    expect(err2.text()).toMatch(/import: Cannot read .*nope\.ndjson/);
  });

  it("says before reading what the model still embeds when the mapping gives one vector but not the other", async () => {
    const dir = mkdtempSync(join(tmpdir(), "orgsim-cli-vectors-"));
    const file = join(dir, "rows.ndjson");
    writeFileSync(file, `${JSON.stringify({ id: 1, name: "A", v: [1, 0], w: [0, 1] })}\n`);
    const stderrOf = async (fields: Record<string, string>) => {
      const mappingPath = join(dir, "mapping.json");
      writeFileSync(mappingPath, JSON.stringify({ format: "ndjson", id: "id", fields: { name: "name", ...fields } }));
      const err = capture();
      await runImportCli({ file, mappingPath, dryRun: true, stdout: capture().stream, stderr: err.stream, progress: false });
      return err.text();
    };
    expect(await stderrOf({ profile_vector: "v" })).toContain(
      "import: the mapping gives profile_vector but not customer_vector: the model embeds the customer text of every row that has one",
    );
    expect(await stderrOf({ customer_vector: "w" })).toContain(
      "import: the mapping gives customer_vector but not profile_vector: the model embeds every row's profile text",
    );
    expect(await stderrOf({ profile_vector: "v", customer_vector: "w" })).toBe("");
    expect(await stderrOf({})).toBe("");
  });

  it("a dry run validates without writing", async () => {
    const out = capture();
    const result = await runImportCli({
      file: example("my-companies.csv"),
      mappingPath: exampleMapping("my-companies.csv.json"),
      dryRun: true,
      stdout: out.stream,
      stderr: capture().stream,
    });
    expect(result.exitCode).toBe(0);
    expect(out.text()).toContain("Would import 4 organizations from my-companies.csv");
    expect(out.text()).toContain("(dry run: nothing written)");
  });

  it("the example CSV maps every column it names", async () => {
    const sink = recordingUpsert();
    await runImportCli({
      file: example("my-companies.csv"),
      mappingPath: exampleMapping("my-companies.csv.json"),
      upsert: sink.upsert,
      stdout: capture().stream,
      stderr: capture().stream,
    });
    expect(sink.store().get(1001)).toEqual({
      id: 1001,
      name: "Tidewater Robotics",
      description: "Autonomous hull-cleaning robots for commercial ports and shipping fleets.",
      customer_description: "Port operators and shipping lines",
      domain: "tidewater-robotics.example",
      categories: ["robotics", "logistics-and-supply-chain"],
      metrics: {
        employee_count: 42,
        founded_on: "2016-04-11",
        funding: { total_raised_usd: 12_500_000, last_round: { stage: "series_a", announced_on: "2023-05-02" } },
      },
      location: { headquarters: { city: "Rotterdam", country_code: "NL" } },
      contact: { website: "https://tidewater-robotics.example", social: { linkedin: "https://www.linkedin.com/company/tidewater-robotics-example" } },
    });
    expect(sink.store().get(1004)).toMatchObject({
      categories: ["energy-and-cleantech"],
      location: { headquarters: { subdivision_code: "CA-ON", country_code: "CA" } },
    });
  });
});
