/**
 * A run that leaves a backend out (--backends) keeps that backend's rows of the scale's earlier
 * result, and says which run they come from; rows of a backend it measured are its own.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { carriedOver } from "../src/perf/carry";
import type { BackendName } from "../src/perf/server";
import type { ScaleResult } from "../src/perf/types";

const run = (date: string) => ({ date, command: `run of ${date}`, git_commit: null, seconds: 1 }) as unknown as ScaleResult["run"];
const rows = (...backends: BackendName[]) => backends.map((backend) => ({ backend }));
const scale = (over: Partial<ScaleResult>) =>
  ({
    run: run("2026-11-28"),
    load: rows("embedded", "embedded-exact", "elasticsearch"),
    lookup: rows("embedded", "elasticsearch"),
    explain: rows("elasticsearch"),
    load_warmup_pass: true,
    embedded: { server_memory_after_load: null },
    ...over,
  }) as ScaleResult;
const measuring = (...backends: BackendName[]) => new Set(backends);

describe("perf: rows carried over from a scale's earlier run", () => {
  it("keeps the rows of every backend left out, and names the run of the embedded ones", () => {
    const carried = carriedOver(scale({}), measuring("elasticsearch"));
    expect(carried.load.map((r) => r.backend)).toEqual(["embedded", "embedded-exact"]);
    expect(carried.lookup.map((r) => r.backend)).toEqual(["embedded"]);
    expect(carried.explain).toEqual([]);
    expect(carried.carriedLoads).toEqual({ backends: ["embedded", "embedded-exact"], run: run("2026-11-28") });
    expect(carried.embeddedMemoryAfterLoad).toBeNull();
  });

  it("carries nothing of a backend it measured, and Elasticsearch's rows without naming an embedded run", () => {
    expect(carriedOver(scale({}), measuring("embedded", "embedded-exact", "elasticsearch"))).toEqual({ load: [], lookup: [], explain: [], warmupPass: true });
    const withoutEs = carriedOver(scale({}), measuring("embedded", "embedded-exact"));
    expect(withoutEs.load.map((r) => r.backend)).toEqual(["elasticsearch"]);
    expect(withoutEs.carriedLoads).toBeUndefined();
  });

  it("carries the embedded server's memory after its loads with its rows, and only then", () => {
    const memory = { rss_mib: 12725 } as ScaleResult["embedded"]["server_memory_after_load"];
    const earlier = scale({ embedded: { server_memory_after_load: memory } as ScaleResult["embedded"] });
    expect(carriedOver(earlier, measuring("elasticsearch")).embeddedMemoryAfterLoad).toBe(memory);
    expect(carriedOver(earlier, measuring("embedded", "elasticsearch")).embeddedMemoryAfterLoad).toBeUndefined();
    expect(carriedOver(earlier, measuring("embedded")).embeddedMemoryAfterLoad).toBeUndefined();
  });

  it("names the run that measured the rows when the earlier run had carried them too", () => {
    const earlier = scale({ run: run("2026-11-29"), carried_loads: { backends: ["embedded", "embedded-exact"], run: run("2026-11-27") } });
    expect(carriedOver(earlier, measuring("elasticsearch")).carriedLoads?.run).toEqual(run("2026-11-27"));
    expect(carriedOver(earlier, measuring("embedded", "elasticsearch")).carriedLoads).toEqual({ backends: ["embedded-exact"], run: run("2026-11-27") });
  });

  it("keeps the earlier warm-up flag only when it carries load rows", () => {
    expect(carriedOver(scale({ load_warmup_pass: false }), measuring("elasticsearch")).warmupPass).toBe(false);
    expect(carriedOver(scale({ load_warmup_pass: false }), measuring("embedded", "embedded-exact", "elasticsearch")).warmupPass).toBe(true);
    expect(carriedOver(undefined, measuring("elasticsearch"))).toEqual({ load: [], lookup: [], explain: [], warmupPass: true });
  });

  it("reads the committed results' 1m scale as a scale result", () => {
    const results = JSON.parse(readFileSync(new URL("../results/perf.json", import.meta.url), "utf8"));
    const carried = carriedOver(results.scales["1m"], measuring("elasticsearch"));
    expect(carried.load.length).toBeGreaterThan(0);
    expect(carried.load.every((r) => r.backend !== "elasticsearch")).toBe(true);
  });
});
