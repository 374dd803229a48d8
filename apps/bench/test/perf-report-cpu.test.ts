/**
 * The report's machine line is only the latest run's: a scale's heading names the CPU of each run
 * its figures come from, where the run recorded it.
 */
import { describe, expect, it } from "vitest";
import { carriedNote, cpuNote } from "../src/perf/report";
import type { RunInfo, ScaleResult } from "../src/perf/types";

const run = (date: string, cpu?: string): RunInfo & { seconds: number } => ({
  date,
  seconds: 1,
  command: `run of ${date}`,
  git_commit: "abc",
  load_at_start: [1],
  shared: false,
  ...(cpu ? { cpu } : {}),
});
const scale = (over: Partial<ScaleResult>) =>
  ({
    run: run("2026-11-28", "AMD EPYC"),
    embedded: { import_vectors_given: {} },
    elasticsearch: { import_vectors_given: {} },
    ...over,
  }) as unknown as ScaleResult;

describe("perf report: the CPU of each run a scale holds", () => {
  it("names the CPU of the scale's own run, and of a run its rows were carried from", () => {
    const s = scale({ carried_loads: { backends: ["embedded"], run: run("2026-11-27", "Intel(R) Xeon(R) Processor") } });
    expect(cpuNote(s)).toBe(" This run measured on AMD EPYC.");
    expect(carriedNote(s)).toContain("(2026-11-27, commit `abc`, on Intel(R) Xeon(R) Processor, `run of 2026-11-27`)");
    expect(carriedNote(s)).toContain("So is the embedded server's memory after its load runs");
    expect(carriedNote(scale({ carried_loads: { backends: ["embedded-exact"], run: run("2026-11-27") } }))).not.toContain("memory");
  });

  it("says nothing of a CPU a run did not record", () => {
    const s = scale({ run: run("2026-11-28"), elasticsearch_run: run("2026-11-26") });
    expect(cpuNote(s)).toBe("");
    expect(carriedNote(s)).toContain("(2026-11-26, commit `abc`, `run of 2026-11-26`)");
  });
});
