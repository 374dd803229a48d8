/**
 * The yc mapping over the first 200 rows of the real dataset that lives next
 * to the repository (../shared/datasets, never copied into it).
 */
import { createReadStream, existsSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadMapping, mapRecord } from "../src/index";
import { exampleMapping } from "./helpers";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const dataset = resolve(repoRoot, "../shared/datasets/yc/companies.ndjson");
const present = existsSync(dataset);
if (!present) console.warn(`skipping the real-data test: ${dataset} is absent`);

describe.skipIf(!present)("yc dataset, first 200 rows", () => {
  it("maps at least 95% of the rows validly", async () => {
    const mapping = await loadMapping(exampleMapping("yc.json"));
    const lines: string[] = [];
    const reader = createInterface({ input: createReadStream(dataset) });
    for await (const line of reader) {
      if (line.trim() !== "") lines.push(line);
      if (lines.length === 200) break;
    }
    reader.close();
    const results = lines.map((line) => mapRecord(JSON.parse(line), mapping));
    const valid = results.filter((r) => r.ok);
    expect(lines.length).toBe(200);
    expect(valid.length / lines.length).toBeGreaterThanOrEqual(0.95);
    // places are parsed: most rows have a country, US rows a state
    const organizations = valid.flatMap((r) => (r.ok ? [r.organization] : []));
    expect(organizations.filter((o) => o.location.headquarters?.country_code).length).toBeGreaterThan(150);
    expect(organizations.some((o) => o.location.headquarters?.subdivision_code === "US-CA")).toBe(true);
  });
});
