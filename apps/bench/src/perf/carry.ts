/**
 * What a scale's run carries over from the scale's earlier result for the backends it left out
 * (--backends): their load, lookup and explain rows, the run those rows come from, and the embedded
 * server's memory after its loads (measured after no loads, it would read low).
 */
import type { BackendName } from "./server";
import type { RunInfo, ScaleResult } from "./types";

export interface CarriedOver {
  load: ScaleResult["load"];
  lookup: NonNullable<ScaleResult["lookup"]>;
  explain: NonNullable<ScaleResult["explain"]>;
  /** The embedded backends whose rows were carried, and their run (Elasticsearch's run is `elasticsearch_run`). */
  carriedLoads?: { backends: BackendName[]; run: RunInfo & { seconds: number } };
  /** The embedded server's memory after the load runs, when its loads are carried: theirs (absent otherwise). */
  embeddedMemoryAfterLoad?: ScaleResult["embedded"]["server_memory_after_load"];
  /** Whether every load row, measured or carried, warmed up with a pass over its queries. */
  warmupPass: boolean;
}

export function carriedOver(earlier: ScaleResult | undefined, measured: ReadonlySet<BackendName>): CarriedOver {
  const rows = <T extends { backend: BackendName }>(all: T[] | undefined): T[] => (all ?? []).filter((r) => !measured.has(r.backend));
  const load = rows(earlier?.load);
  const embedded = [...new Set(load.map((r) => r.backend))].filter((b) => b !== "elasticsearch");
  return {
    load,
    lookup: rows(earlier?.lookup),
    explain: rows(earlier?.explain),
    ...(earlier && embedded.length ? { carriedLoads: { backends: embedded, run: runOfRows(earlier, embedded) } } : {}),
    ...(earlier && embedded.includes("embedded") ? { embeddedMemoryAfterLoad: earlier.embedded.server_memory_after_load } : {}),
    // Rows carried over from an earlier run keep that run's warm-up.
    warmupPass: load.length ? earlier?.load_warmup_pass === true : true,
  };
}

/** The run whose rows of `backends` the earlier result holds: that run, or the one it had carried them over from in turn. */
function runOfRows(earlier: ScaleResult, backends: BackendName[]): RunInfo & { seconds: number } {
  const before = earlier.carried_loads;
  return before && backends.every((b) => before.backends.includes(b)) ? before.run : earlier.run;
}
