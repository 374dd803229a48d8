/**
 * Writes the "Speed and scale" section of docs/benchmarks.md and its SVG plots from perf.json.
 * Only that section is touched: the file is re-read right before it is written, and every other
 * section stays as it is (another bench owns "Retrieval quality").
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { SyntheticIds } from "./data";
import { WRITE_PATH } from "./load";
import type { LoadTestResult } from "./load-test";
import { CUSTOMER_QUERIES, DESCRIPTION_QUERIES, FILTER_LEVELS, FILTERS, type FilterLevel, MODES, type Mode, RANKINGS, type RankingName } from "./queries";
import { replaceSection } from "./stats";
import { BACKENDS, type BackendName } from "./server";
import type { PerfResults, RunInfo, ScaleResult } from "./types";

export const SECTION_TITLE = "Speed and scale";
const PLOT_DIR = ["docs", "benchmarks"];
const PLOTS = { latency: "perf-latency-vs-scale.svg", throughput: "perf-throughput-vs-scale.svg", memory: "perf-memory-disk-vs-scale.svg" };

const MODE_NAMES: Record<Mode, string> = { organization: "similar to an organization", description: "by description", customers: "by customer base" };
const BACKEND_NAMES = { embedded: "embedded", "embedded-exact": "embedded, exact scan", elasticsearch: "Elasticsearch" } as const;

const n0 = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? "–" : Math.round(x).toLocaleString("en"));
const f1 = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? "–" : x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString("en");
const f2 = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(2));
const f3 = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(3));
const mib = (bytes: number | null | undefined) => (bytes === null || bytes === undefined ? "–" : `${n0(bytes / 2 ** 20)} MiB`);
const pct = (share: number) => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)} %`;

function orderedScales(results: PerfResults): [string, ScaleResult][] {
  return Object.entries(results.scales).sort(([, a], [, b]) => a.organizations - b.organizations);
}

function filterText(level: FilterLevel): string {
  const params = new URLSearchParams(FILTERS[level]).toString();
  return params ? `\`${params}\`` : "no filter";
}

/** Runs made before hybrid ranking existed measured the vector ranking. */
const rankingOf = (l: { ranking?: RankingName }): RankingName => l.ranking ?? "vector";

function loadRow(scale: ScaleResult, backend: BackendName, mode: Mode, filter: FilterLevel, ranking: RankingName, connections: number) {
  return scale.load.find((l) => l.backend === backend && l.mode === mode && l.filter === filter && rankingOf(l) === ranking && l.connections === connections);
}

/** What every section of the report reads: the results, the scales in size order, the two connection counts. */
interface ReportContext {
  results: PerfResults;
  scales: [string, ScaleResult][];
  concurrency: number[];
  low: number;
  high: number;
}

function reportContext(results: PerfResults): ReportContext {
  const concurrency = (results.settings.concurrency as number[] | undefined) ?? [1, 16];
  return { results, scales: orderedScales(results), concurrency, low: Math.min(...concurrency), high: Math.max(...concurrency) };
}

export function markdown(results: PerfResults): string {
  const context = reportContext(results);
  return [
    ...setupSection(context),
    ...dataSection(results),
    ...queriesSection(context),
    ...importSection(context),
    ...latencySection(context),
    ...cpuSection(context),
    ...recallSection(context),
    ...forceMergeNote(context),
    ...memorySection(context),
    ...runtimeSection(context),
  ].join("\n");
}

/** Says which Java the scale's Elasticsearch node ran on (before it was recorded: Java 17, scalar vector code). */
function elasticsearchJvmNote(s: ScaleResult): string {
  if (!s.load.some((l) => l.backend === "elasticsearch")) return "";
  const jvm = (s.elasticsearch_run ?? s.run).elasticsearch_jvm ?? "Java 17, without the Vector API (runs before commit 8368763)";
  return ` Elasticsearch ran on ${jvm}.`;
}

/** " on <cpu>," where the run recorded its CPU. */
const onCpu = (r: RunInfo) => (r.cpu ? ` on ${r.cpu},` : "");

/** Says which CPU the scale's run measured on, where it recorded it: the machine above is only the latest run's. */
export function cpuNote(s: ScaleResult): string {
  return s.run.cpu ? ` This run measured on ${s.run.cpu}.` : "";
}

/** Says where a scale's numbers come from when its run left a backend out, or reused what an earlier run wrote. */
export function carriedNote(s: ScaleResult): string {
  const from = s.elasticsearch_run;
  const written = s.embedded.import_vectors_given.reused_from;
  const indexed = s.elasticsearch.import_vectors_given.reused_from;
  const runOf = (r: RunInfo) => `${r.date.slice(0, 10)}, commit \`${(r.git_commit ?? "?").slice(0, 12)}\`,${onCpu(r)} \`${r.command}\``;
  return (
    (from
      ? ` The Elasticsearch columns and figures of this scale are from an earlier run (${runOf(from)}): this run (\`${s.run.command}\`) left Elasticsearch out.`
      : "") +
    (s.carried_loads
      ? ` The load rows of ${s.carried_loads.backends.join(" and ")} in this scale's table are from an earlier run (${runOf(s.carried_loads.run)}): this run left ${s.carried_loads.backends.length > 1 ? "them" : "it"} out.` +
        (s.carried_loads.backends.includes("embedded") ? " So is the embedded server's memory after its load runs (Memory and disk)." : "")
      : "") +
    (written ? ` The embedded data directory was written by an earlier run (${runOf(written)}); its write figures are that run's.` : "") +
    (indexed && !from ? ` The Elasticsearch index was written by an earlier run (${runOf(indexed)}); its write figures and merge settling are that run's.` : "")
  );
}

function setupSection({ results, scales }: ReportContext): string[] {
  const m = results.machine;
  const dates = [...new Set(scales.map(([, s]) => s.run.date.slice(0, 10)))].join(", ");
  const sharedAny = scales.some(([, s]) => s.run.shared) || m.shared;
  return [
    "`pnpm bench:perf` starts real orgsim servers (one per backend and scale, `orgsim serve` as child processes) and a clean " +
      `Elasticsearch ${m.elasticsearch ?? "8.x"} node of its own (tools/elasticsearch-node, heap ${results.settings.es_heap}), and measures them over real HTTP. ` +
      "Everything below is generated by it from `apps/bench/results/perf.json`, which holds every number.",
    "",
    `- **Machine** (of the latest run; a scale's heading names the CPU of each run it holds, where the run recorded it): ${m.cpu}, ${m.cores} cores, ${m.ram_gib} GiB RAM, ${m.os}; Node ${m.node}; ${m.java ?? "Java"}; Elasticsearch ${m.elasticsearch ?? "?"}.`,
    `- **When**: ${dates} (commit \`${(m.git_commit ?? "?").slice(0, 12)}\`${m.git_dirty ? " plus uncommitted changes" : ""}).` +
      (sharedAny
        ? ` **The machine was shared**: other jobs (test suites, the quality benchmark) ran at the same time (load average ${scales.map(([l, s]) => `${l}: ${s.run.load_at_start[0]} → ${s.run.load_at_end?.[0] ?? "?"}`).join("; ")}), and the bench ran under \`nice -n ${m.nice}\`. Absolute numbers are pessimistic and noisier than on an idle machine; the comparisons between backends and scales are what to read.`
        : ""),
    `- **Command**: \`${scales.length ? [...new Set(scales.map(([, s]) => s.run.command))].join("` and `") : results.command}\`${m.nice > 0 ? ` (run as \`nice -n ${m.nice} …\`)` : ""}.`,
    "",
  ];
}

function dataSection(results: PerfResults): string[] {
  const d = results.data;
  if (!d) return [];
  return [
    "**Data.** " +
      `The first ${n0(d.real_organizations)} organizations of every scale are real: ${n0(d.real_by_corpus.yc)} from the Y Combinator directory and ${n0(d.real_by_corpus.equities)} listed companies ` +
      "(evenly spaced rows of `../shared/datasets`), mapped with `examples/mappings/yc.json` and `equities.json` and embedded by the product importer " +
      `(${d.model.modelId}, ${d.model.dimension}-d; ${n0(d.real_with_customer_vector)} have a customer-base vector). ` +
      "Every further organization is synthetic and deterministic (seeded): its vector is a real organization's vector blended with one of that organization's 10 nearest real neighbours " +
      `(weight 0.6–1) plus isotropic noise of norm ${d.synthetic.noise}, normalized; its customer-base vector is made the same way; its headquarters, offices, employee count (perturbed) and founding year (± 3) come from a real organization. ` +
      `So synthetic organizations sit in and between real neighbourhoods rather than scattered on the sphere: the mean cosine of a real organization's nearest real neighbour is ${d.nearest_neighbour_cosine.real_among_real}; among the first ${n0(d.nearest_neighbour_cosine.within_first)} organizations the nearest neighbour's cosine is ${d.nearest_neighbour_cosine.real} for real and ${d.nearest_neighbour_cosine.synthetic ?? "–"} for synthetic ones; random pairs average ${d.nearest_neighbour_cosine.random_pair_mean}. Denser than the real corpora at the same size, so recall here is, if anything, harder than on real data of that size.`,
    "",
  ];
}

function queriesSection({ results, scales, concurrency }: ReportContext): string[] {
  const secondsOnly = scales.filter(([, r]) => !r.load_warmup_pass).map(([label]) => label);
  return [
    "**Queries.** Three search modes: *similar to an organization* (by id: the stored vector, no embedding; 200 ids drawn from the scale's organizations), " +
      `*by description* (${results.settings.queries && (results.settings.queries as { descriptions: number }).descriptions} fixed business descriptions) and *by customer base* ` +
      `(${results.settings.queries && (results.settings.queries as { customer_descriptions: number }).customer_descriptions} fixed customer descriptions); the last two embed the query text on every request, on the server, with the real model. ` +
      `Each with three filters: ${FILTER_LEVELS.map((f) => `${f} = ${filterText(f)}`).join(", ")}; \`limit=10\`. ` +
      `autocannon (in the bench process, same machine) keeps ${concurrency.join(" or ")} connection(s) busy for ${results.settings.duration_s} s after a warm-up (one pass over the query list, then ${results.settings.warmup_s} s${secondsOnly.length ? `; at ${secondsOnly.join(", ")}, measured before the pass, the seconds only` : ""}), cycling through the query list; p50/p95/p99 are of every answered request's latency.`,
    "",
  ];
}

function importSection({ results, scales }: ReportContext): string[] {
  const iwe = results.import_with_embedding;
  const out = [
    "### Import",
    "",
    `| backend | with embedding (product importer), orgs/s | ${scales.map(([l]) => `with vectors given, ${l}, orgs/s`).join(" | ")} |`,
    `|---|---:|${scales.map(() => "---:|").join("")}`,
  ];
  for (const backend of ["embedded", "elasticsearch"] as const) {
    const e = iwe?.backends[backend];
    const embedded = e
      ? `${f1(e.per_second)} (${Object.entries(e.corpora)
          .map(([name, c]) => `${name} ${f1(c.per_second)}`)
          .join(", ")}; ${n0(e.organizations)} orgs)`
      : "–";
    out.push(`| ${BACKEND_NAMES[backend]} | ${embedded} | ${scales.map(([, s]) => n0(s[backend].import_vectors_given.per_second)).join(" | ")} |`);
  }
  out.push("", syntheticIdsText(scales));
  const command = importCommandText(scales);
  if (command) out.push("", command);
  const builds = scales.filter(([, s]) => s.embedded.import_vectors_given.vector_index_build_s !== undefined);
  if (builds.length) {
    out.push(
      "",
      "The embedded backend writes the records first and then builds its HNSW graphs in one pass with every core; the build, not part of the rates above, took " +
        builds.map(([l, s]) => `${l} ${f1(s.embedded.import_vectors_given.vector_index_build_s)} s`).join(", ") +
        ".",
    );
  }
  const wordBuilds = scales.filter(([, s]) => s.embedded.import_vectors_given.word_index_build_s !== undefined);
  if (wordBuilds.length) {
    out.push(
      "",
      "It also indexes the words of a bulk write in one pass after it (a search by words runs the pass first if it has not run); that pass, not part of the rates above either, took " +
        wordBuilds.map(([l, s]) => `${l} ${f1(s.embedded.import_vectors_given.word_index_build_s)} s`).join(", ") +
        ".",
    );
  }
  out.push(
    "",
    "*With embedding*: `orgsim import` (map, validate, embed the profile text and any customer text one text per model run, write in batches of 64) " +
      "on a real subset; embedding dominates, so both backends import at about the model's speed. " +
      vectorsGivenText(scales, results.settings.import_batch) +
      " Elasticsearch's time excludes the merges still running after the last bulk: " +
      scales.map(([l, s]) => `${l} ${f1(s.elasticsearch.merge_settle_s)} s`).join(", ") +
      " until no merge ran (from the 100k run at commit 281b0b7 with uncommitted bench changes, the one shown below, on: until none had run for 20 s after asking for the merges the merge policy wanted)." +
      " Before commit 80256a6 Elasticsearch merged again minutes later, during the load tests, in every 100k run (the 100k run at 281b0b7 left 58 segments at the end of the wait and 22 before its force merge):" +
      " a shard with no searches for 30 s skips its scheduled refreshes, and the merges waiting on one came back with the loads' searches. Since then the wait refreshes on every poll: the 100k run at 80256a6 waited 111 s, to 25 segments, and still had 25 before its force merge." +
      " In runs before commit 4016d45 the embedded servers were measured after Elasticsearch was written, beside those merges; since then they are measured first.",
    "",
  );
  return out;
}

/** Each backend's write path at a scale: `through` is absent in runs before the product took vectors (a run may carry one backend's numbers over from such a run). */
const writePaths = (s: ScaleResult) =>
  (["embedded", "elasticsearch"] as const).flatMap((b) =>
    s[b] ? [{ backend: BACKEND_NAMES[b], service: s[b].import_vectors_given.through === WRITE_PATH }] : [],
  );

/** What `orgsim import` reached from a file of the same organizations, at the scales that measured it; null when none did. */
export function importCommandText(scales: [string, ScaleResult][]): string | null {
  const measured = scales.flatMap(([l, s]) => (s.embedded.import_command ? [[l, s.embedded.import_command] as const] : []));
  if (measured.length === 0) return null;
  const figures = measured.map(
    ([l, c]) =>
      `${l} ${n0(c.per_second)} orgs/s (${n0(c.organizations)} in ${c.records_s.toFixed(1)} s from ${n0(c.file_bytes / 2 ** 20)} MiB${c.failed ? `, ${n0(c.failed)} failed` : ""}; the graphs and shutdown ${c.after_records_s.toFixed(1)} s after)`,
  );
  return (
    `*From a file through \`orgsim import\`* (embedded backend): the same organizations as an NDJSON file in the API's own shape with both vectors, imported by the server's bundle as the Docker image runs it, ` +
    `the file read, parsed and mapped on the importer's reader thread: ${figures.join(", ")}. ` +
    "This is the rate a user's import of such a file reaches; the column above leaves the file out." +
    nodeFlagsText(
      measured.map(([l, c]) => ({ label: l, flags: c.node_flags })),
      "The command",
    )
  );
}

/**
 * Which runs wrote with orgsim's V8 flags (packages/runtime/src/node-flags.ts), as a sentence
 * beginning with a space; empty when none did.
 */
export function nodeFlagsText(runs: { label: string; flags?: string[] }[], who: string): string {
  const flagged = runs.filter((run) => run.flags?.length);
  const others = runs.filter((run) => !run.flags?.length);
  if (flagged.length === 0) return "";
  const flags = (flagged[0]?.flags ?? []).map((flag) => `\`${flag}\``).join(" ");
  return (
    ` ${who} ran with orgsim's V8 flags (${flags}, as \`orgsim import\` and the server run since commit 0c4ece2) in ${flagged.map((run) => run.label).join(", ")}` +
    `${others.length ? `; with Node's defaults in ${others.map((run) => run.label).join(", ")}` : ""}.`
  );
}

/** How `orgsim import` has made each number of calls at once (its WRITES_IN_FLIGHT), and when. */
const CALLS_MADE: Record<number, string> = {
  2: "as `orgsim import` made them from commit 74366dc (the embedded store writes a batch on a thread of its own while the next is validated) to commit 9af005b",
  3: "as `orgsim import` makes them since commit 9af005b",
};
const CALLS = ["", "One call", "Two calls", "Three calls", "Four calls"];

/** How many calls each run made at once, as a sentence without its period ("One call at a time" when none made more). */
export function callsInFlightText(runs: { label: string; calls: number }[]): string {
  const counts = [...new Set(runs.map((run) => run.calls))].filter((calls) => calls > 1).sort((a, b) => b - a);
  if (counts.length === 0) return "One call at a time";
  const parts = counts.map((calls) => {
    const labels = runs.filter((run) => run.calls === calls).map((run) => run.label);
    return [`${CALLS[calls] ?? `${calls} calls`} in flight in ${labels.join(", ")}`, CALLS_MADE[calls]].filter(Boolean).join(", ");
  });
  const single = runs.some((run) => run.calls <= 1) ? "; one call at a time in the others, measured before it" : "";
  const sentence = parts.map((part, i) => (i === 0 ? part : part.charAt(0).toLowerCase() + part.slice(1))).join("; ");
  return `${sentence}${single}`;
}

/** How the synthetic organizations' ids ran in each scale's import, and what that does to the embedded store's writes. */
export function syntheticIdsText(scales: [string, ScaleResult][]): string {
  const written = (ids: SyntheticIds) =>
    scales.flatMap(([l, s]) =>
      (["embedded", "elasticsearch"] as const).flatMap((b) =>
        s[b] && (s[b].import_vectors_given.ids ?? "consecutive") === ids ? [`${l} (${BACKEND_NAMES[b]})`] : [],
      ),
    );
  const spread = written("spread");
  const consecutive = written("consecutive");
  const parts = [
    spread.length ? `in no order, spread over 2^48, in ${spread.join(", ")}, as \`orgsim import\` derives ids by hashing` : "",
    consecutive.length ? `consecutive in ${consecutive.join(", ")} (runs before the bench's \`--ids spread\`)` : "",
  ].filter(Boolean);
  // Measured apart (scratch scripts, "Imports with hashed ids" below), one order against the other.
  return (
    `The bench's synthetic organizations' ids run ${parts.join("; ")}. ` +
    'The embedded store writes ids in no order more slowly: at commit `511f14d` its import of 100k ran at 9,762 and 10,642 organizations/s with them, against 13,584 to 15,856/s with consecutive ids (3,228 to 5,063/s with them before that commit; scratch runs, "Imports with hashed ids" below).'
  );
}

/** How the rates with vectors given were measured: through the product's path, or (earlier runs) through the store adapters. */
export function vectorsGivenText(scales: [string, ScaleResult][], batch: unknown): string {
  const service = scales.filter(([, s]) => writePaths(s).some((p) => p.service)).map(([l]) => l);
  const adapters = scales.flatMap(([l, s]) => {
    const paths = writePaths(s);
    const old = paths.filter((p) => !p.service);
    return old.length === 0 ? [] : old.length === paths.length ? [l] : old.map((p) => `${l} (${p.backend})`);
  });
  const defaults = "with the adapters' defaults (Elasticsearch: refresh after every bulk, int8_hnsw)";
  const path = "the product's path for vectors computed elsewhere (what `orgsim import` calls when a mapping fills `profile_vector` and `customer_vector`)";
  if (service.length === 0) {
    return (
      `*With vectors given*: measured before the product took vectors, through each backend's store adapter (\`OrganizationStore.upsert\`, ${batch} organizations a call, the product's bulk limit) ${defaults}. ` +
      `The bench now writes through \`OrganizationService.upsertMany\` with \`givenVectors\`, ${path}: re-run \`pnpm bench:perf\` to measure it.`
    );
  }
  // Each scale's and backend's write, labelled as the sentences name it.
  const writes = scales.flatMap(([l, s]) =>
    (["embedded", "elasticsearch"] as const).flatMap((b) => (s[b] ? [{ label: `${l} (${BACKEND_NAMES[b]})`, load: s[b].import_vectors_given }] : [])),
  );
  const calls = callsInFlightText(writes.map(({ label, load }) => ({ label, calls: load.in_flight ?? 1 })));
  const flags = nodeFlagsText(
    writes.map(({ label, load }) => ({ label, flags: load.node_flags })),
    "The writing process",
  );
  const earlier = adapters.length
    ? ` ${adapters.join(", ")} ${adapters.length === 1 ? "was" : "were"} measured before that path existed, through each backend's store adapter (\`OrganizationStore.upsert\`, without the service's checks); re-run ${adapters.length === 1 ? "it" : "them"} to measure the product's path.`
    : "";
  return (
    `*With vectors given*: orgs/s through \`OrganizationService.upsertMany\` with vectors given (\`givenVectors\`${adapters.length ? `; ${service.join(", ")}` : ""}), ${path}, ${batch} organizations a call, the product's bulk limit ` +
    `(as \`orgsim import\` writes when the mapping gives both vectors). This leaves out what \`orgsim import\` does before that call: reading the file, parsing each row's JSON and mapping it, which take longer than the write (*From a file through \`orgsim import\`* above, at the scales that measured it; "\`orgsim import\` with vectors given, through the command" below). ` +
    `The writes go as \`orgsim import\` makes them (Elasticsearch: no refresh per bulk, one refresh at the end, timed with the writes; int8_hnsw, its graphs built with m 32 and ef_construction 200 since commit 3076e10, Lucene's 16 and 100 in runs before it; each call's batch as up to 4 bulk requests at once since commit e9aaef6, one bulk request in runs before it). ${calls}. The service validates and normalizes each organization, checks each vector (dimension, finite, not zero) and scales it to unit length, then writes the batch in one store call; ` +
    `the embedder is never called. The time is that of the upsertMany calls (with calls in flight: for each 8 batches generated beforehand, from the first call to the end of the last); generating the records and their vectors' number arrays is not counted.${flags}${earlier}`
  );
}

type LoadRow = LoadTestResult | undefined;
const latencies = (r: LoadRow) => (r ? `${f1(r.latency_ms.p50)} / ${f1(r.latency_ms.p95)} / ${f1(r.latency_ms.p99)}` : "–");

function latencySection({ scales, low, high }: ReportContext): string[] {
  const out = [
    "### Query latency and throughput",
    "",
    `![p50 latency against the number of organizations](benchmarks/${PLOTS.latency})`,
    "",
    `![Requests per second at ${high} connections against the number of organizations](benchmarks/${PLOTS.throughput})`,
    "",
  ];
  for (const [label, s] of scales) {
    const backends = BACKENDS.filter((b) => s.load.some((l) => l.backend === b));
    const header = backends.map((b) => {
      const name = BACKEND_NAMES[b];
      return `${name} c=${low} p50 / p95 / p99 | ${name} c=${high} p50 / p95 / p99 | ${name} req/s c=${low} / c=${high}`;
    });
    out.push(
      `**${label}** (${n0(s.organizations)} organizations; broad filter matches ${pct(s.filter_matches.broad.share)}, restrictive ${pct(s.filter_matches.restrictive.share)}; ` +
        `each orgsim server ${s.run.server_workers ? `ran ${s.run.server_workers} worker process${s.run.server_workers > 1 ? "es" : ""} (\`ORGSIM_WORKERS\`; the default is one a core)` : "ran one process (before `ORGSIM_WORKERS`)"}). Latency in ms.${cpuNote(s)}${carriedNote(s)}${elasticsearchJvmNote(s)}`,
      "",
      `| mode | filter | ranking | ${header.join(" | ")} |`,
      `|---|---|---|${backends.map(() => "---:|---:|---:|").join("")}`,
    );
    const measured = RANKINGS.filter((r) => s.load.some((l) => rankingOf(l) === r));
    for (const mode of MODES) {
      for (const filter of FILTER_LEVELS) {
        for (const ranking of measured) {
          const cells = backends.flatMap((backend) =>
            latencyCells(loadRow(s, backend, mode, filter, ranking, low), loadRow(s, backend, mode, filter, ranking, high)),
          );
          out.push(`| ${MODE_NAMES[mode]} | ${filter} | ${ranking}${ranking === "hybrid" ? " (default)" : ""} | ${cells.join(" | ")} |`);
        }
      }
    }
    out.push("");
  }
  // The server's similar-to-organization p50 (no filter, one connection) over a floor's, in each ranking.
  const overFloor = (s: ScaleResult, backend: BackendName, floor: number | undefined) =>
    (["vector", "hybrid"] as const)
      .map((ranking) => {
        const server = loadRow(s, backend, "organization", "none", ranking, low)?.latency_ms.p50;
        return `${server && floor ? `${f1(server / floor)}×` : "–"} that with the ${ranking === "hybrid" ? "hybrid (default)" : "vector"} ranking`;
      })
      .join(" and ");
  const floors = scales.filter(([, s]) => s.embedded.raw_graph_search);
  if (floors.length) {
    const describe = ([l, s]: [string, ScaleResult]) => {
      const raw = s.embedded.raw_graph_search?.latency_ms;
      return `${l} ${raw?.p50} / ${raw?.p99}, the server's similar-to-organization (no filter, c=${low}) p50 is ${overFloor(s, "embedded", raw?.p50)}`;
    };
    out.push(
      "The floor: usearch's own top-10 search on the saved profile graph (each of its shards of up to 100k organizations, hits merged; runs before 2026-11-26 had one graph), one query at a time in the bench process, for the same organizations (p50 / p99 ms): " +
        `${floors.map(describe).join("; ")}.`,
      "",
    );
  }
  const esFloors = scales.filter(([, s]) => s.elasticsearch.raw_knn_search);
  if (esFloors.length) {
    const describe = ([l, s]: [string, ScaleResult]) => {
      const raw = s.elasticsearch.raw_knn_search?.latency_ms;
      return `${l} ${raw?.p50} / ${raw?.p99}, the server's similar-to-organization (no filter, c=${low}) p50 is ${overFloor(s, "elasticsearch", raw?.p50)}`;
    };
    out.push(
      "Elasticsearch's floor: its own kNN `_search` with the server's settings (k 20, 500 candidates, int8 re-scoring with the server's `oversample`: 1 in runs from commit 687aae0 on, 3 before, ties by id, the organization excluded; ids only, no `_source`, " +
        "read from the `id` doc values in runs from commit 41a65e6 on, as the server reads them, from each hit's stored `_id` before), " +
        `one query at a time over a kept-alive connection from the bench process, for the same organizations (p50 / p99 ms): ${esFloors.map(describe).join("; ")}.`,
      "",
    );
  }
  const replays = scales.filter(([, s]) => s.elasticsearch.replayed_requests);
  if (replays.length) {
    const describe = ([l, s]: [string, ScaleResult]) =>
      (["vector", "hybrid"] as const)
        .flatMap((ranking) => {
          const replay = s.elasticsearch.replayed_requests?.[ranking];
          const server = loadRow(s, "elasticsearch", "organization", "none", ranking, low)?.latency_ms.p50;
          if (!replay) return [];
          const name = ranking === "hybrid" ? "hybrid (default)" : "vector";
          return [
            `${l} ${name}: ${replay.requests_per_query} requests a search, ${replay.round_trips_per_query} of them one after another, p50 / p99 ${replay.latency_ms.p50} / ${replay.latency_ms.p99} ms; ` +
              `the server's p50 (no filter, c=${low}) is ${server ? `${f1(server / replay.latency_ms.p50)}×` : "–"} that`,
          ];
        })
        .join("; ");
    out.push(
      "Elasticsearch's floor for the server's own requests (apps/bench/src/perf/es-replay.ts): a server of one worker, pointed at a proxy that records what it sends, is asked each of the same organizations once, " +
        "and the requests it sent to the organizations index for each (the seed's document and vector, the searches, the page's documents) are sent again straight to the node, each once those it waited for have ended; " +
        `one search at a time, the second of two passes: ${replays.map(describe).join("; ")}. What the server adds above it is its own work (routing, validation, fusion, HTTP).`,
      "",
      `Elasticsearch's shard request cache: ${scales.map(([l, s]) => `${l} ${s.elasticsearch.request_cache_off ? "off" : "on (a run before it was turned off)"}`).join(", ")}. ` +
        "Each run cycles through the same organizations, and Elasticsearch caches requests of no hits (the hybrid ranking's term statistics): on, it answered repeats that varied traffic does not have, " +
        "every request of the replay's timed pass (a repeat of its warm-up pass) and only some of a load run's. Off, both do all their work (apps/bench/src/perf/es-node.ts, withoutRequestCache).",
      "",
    );
  }
  const lookups = scales.filter(([, s]) => s.lookup?.length);
  if (lookups.length) {
    const row = (s: ScaleResult, backend: BackendName, connections: number) => s.lookup?.find((l) => l.backend === backend && l.connections === connections);
    out.push(
      "Type-ahead lookup by name (`GET /v1/organizations?name=…`, limit 10; 200 names of the data, typed as their first three letters, their first word, or their first word and two letters of the next), latency in ms:",
      "",
      `| scale | backend | c=${low} p50 / p95 / p99 | c=${high} p50 / p95 / p99 | req/s c=${low} / c=${high} |`,
      "|---|---|---:|---:|---:|",
    );
    for (const [label, s] of lookups) {
      for (const backend of BACKENDS.filter((b) => s.lookup?.some((l) => l.backend === b))) {
        out.push(`| ${label} | ${BACKEND_NAMES[backend]} | ${latencyCells(row(s, backend, low), row(s, backend, high)).join(" | ")} |`);
      }
    }
    out.push("");
  }
  const explained = scales.filter(([, s]) => s.explain?.length);
  if (explained.length) {
    const describe = ([label, s]: [string, ScaleResult]) =>
      (s.explain ?? [])
        .map((e) => {
          const plain = loadRow(s, e.backend, "organization", "none", "hybrid", low)?.latency_ms.p50;
          const change = plain === undefined ? "" : ` (${e.latency_ms.p50 >= plain ? "+" : "−"}${f1(Math.abs(e.latency_ms.p50 - plain))} ms)`;
          return `${label} ${BACKEND_NAMES[e.backend]} p50 ${f1(e.latency_ms.p50)} ms against ${plain === undefined ? "–" : `${f1(plain)} ms without${change}`}`;
        })
        .join("; ");
    out.push(
      `\`explain=true\` (similar to an organization, hybrid, no filter, c=${low}; the same organizations as the load runs, measured after all of them, so the comparison carries the drift between runs minutes apart, which on Elasticsearch is larger than the cost): ${explained.map(describe).join("; ")}.`,
      "",
    );
  }
  out.push(
    '"embedded, exact scan" is the same embedded server with `ORGSIM_VECTOR_INDEX=exact`: every ranking scans the rows that pass the filter, as the embedded backend did before its HNSW graphs. ' +
      "Scales measured before the graphs existed have no such column, and their embedded column is that exact scan.",
    "",
  );
  return out;
}

/** One backend's cells of a latency row: latencies at the low and the high connection count (⚠ when any request failed), then both throughputs. */
function latencyCells(a: LoadRow, b: LoadRow): string[] {
  const lat = (r: LoadRow) => (r ? `${latencies(r)}${r.non_2xx || r.errors || r.timeouts ? " ⚠" : ""}` : "–");
  return [lat(a), lat(b), `${a ? f1(a.requests_per_s) : "–"} / ${b ? f1(b.requests_per_s) : "–"}`];
}

/** CPU per request of each process a load run metered (runs before the meters have none), beside the latency table's rows. */
function cpuSection({ scales, low, high }: ReportContext): string[] {
  const metered = scales.filter(([, s]) => s.load.some((l) => l.cpu_ms_per_request));
  if (metered.length === 0) return [];
  const columns = BACKENDS.flatMap((backend) =>
    (backend === "elasticsearch" ? ["server", "elasticsearch"] : ["server"]).map((meter) => ({
      backend,
      meter,
      title: backend === "elasticsearch" ? `Elasticsearch: ${meter === "server" ? "orgsim server" : "node"}` : BACKEND_NAMES[backend],
    })),
  );
  const out = [
    `**CPU per request**: milliseconds of CPU (user and system, every thread) per answered request over a load run's measured seconds, c=${low} / c=${high}, read from /proc before and after it: ` +
      "for the orgsim server's processes (its workers included) and, in Elasticsearch's runs, for the node's JVM too. The load generator shares the cores but is not counted, so these are what a request costs each process.",
    "",
  ];
  for (const [label, s] of metered) {
    const shown = columns.filter((c) => s.load.some((l) => l.backend === c.backend && l.cpu_ms_per_request?.[c.meter] !== undefined));
    out.push(`| ${label}: mode | filter | ranking | ${shown.map((c) => c.title).join(" | ")} |`, `|---|---|---|${shown.map(() => "---:|").join("")}`);
    for (const mode of MODES) {
      for (const filter of FILTER_LEVELS) {
        for (const ranking of RANKINGS.filter((r) => s.load.some((l) => rankingOf(l) === r && l.cpu_ms_per_request))) {
          const cell = (backend: BackendName, meter: string) =>
            [low, high].map((c) => f2(loadRow(s, backend, mode, filter, ranking, c)?.cpu_ms_per_request?.[meter])).join(" / ");
          out.push(`| ${MODE_NAMES[mode]} | ${filter} | ${ranking} | ${shown.map((c) => cell(c.backend, c.meter)).join(" | ")} |`);
        }
      }
    }
    out.push("");
  }
  return out;
}

type RecallColumn = { title: string; recall: ScaleResult["recall"] | undefined };

/** Rows mode × filter, one column per measured set: recall at 10 and how many queries missed a neighbour. */
function recallRows(columns: RecallColumn[]): string[] {
  const out = [`| mode | filter | ${columns.map((c) => c.title).join(" | ")} |`, `|---|---|${columns.map(() => "---:|").join("")}`];
  for (const mode of MODES) {
    for (const filter of FILTER_LEVELS) {
      const cells = columns.map((c) => {
        const r = c.recall?.find((x) => x.mode === mode && x.filter === filter);
        return r ? `${f3(r.recall_at_10)}${r.imperfect_queries ? ` (${r.imperfect_queries}/${r.queries} < 1)` : ""}` : "–";
      });
      out.push(`| ${MODE_NAMES[mode]} | ${filter} | ${cells.join(" | ")} |`);
    }
  }
  return out;
}

function recallSection({ scales }: ReportContext): string[] {
  const columns = scales.flatMap(([l, s]) => [
    { title: `${l} (${s.elasticsearch.index.segments} segments)`, recall: s.recall },
    ...(s.elasticsearch.force_merged
      ? [{ title: `${l}, merged (${segmentCount(s.elasticsearch.force_merged.index.segments)})`, recall: s.elasticsearch.force_merged.recall }]
      : []),
  ]);
  const embeddedColumns = scales.filter(([, s]) => s.embedded_recall).map(([l, s]) => ({ title: l, recall: s.embedded_recall }));
  const allRecall = scales.flatMap(([, s]) => [...s.recall, ...(s.embedded_recall ?? []), ...(s.elasticsearch.force_merged?.recall ?? [])]);
  return [
    "### Recall at 10 of the approximate searches",
    "",
    "Against exact search: the embedded server with `ORGSIM_VECTOR_INDEX=exact` ranks every matching organization by brute force over the same vectors, so for every query the bench asks " +
      "it and the approximate server the same REST request (vector ranking) and counts how many of the exact top 10 the approximate one returned " +
      "(an organization tied with the exact 10th score counts as found).",
    "",
    "**Embedded backend** (HNSW graphs from usearch, f16, connectivity 32, construction breadth 128 for profile vectors and 256 for customer vectors since commit 055caff (256 for both in runs before it), search breadth 128; 50 candidates, 256 for a query off the data such as a description's embedding; candidates re-scored with the float vectors; restrictive filters and small stores scanned exactly):",
    "",
    ...(embeddedColumns.length ? recallRows(embeddedColumns) : ["No scale measured yet."]),
    "",
    "**Elasticsearch** runs with the server's defaults (`int8_hnsw`, `num_candidates` 500 per segment (1,000 for a description's profile ranking since commit 2e890fa), re-scoring with the float vectors, `oversample` 1 in runs from commit 687aae0 on and 3 before (Elasticsearch multiplies `num_candidates` by it too); graphs built with `m` 32 and `ef_construction` 200 since commit 3076e10, Lucene's 16 and 100 in runs before it: each scale's heading gives its run's commit). " +
      'Each scale is measured as loaded (the segments the import left, each searched with its own graph) and, where a column says "merged", again after `orgsim optimize`\'s force merge: ' +
      "into one segment up to 100k organizations (one graph per vector field: what a long-lived index tends towards, and the hardest case for recall), one segment a 100k above.",
    "",
    ...recallRows(columns),
    "",
    `Queries per cell: 100 organization ids, ${DESCRIPTION_QUERIES.length} descriptions, ${CUSTOMER_QUERIES.length} customer descriptions; "(n/m < 1)" counts the queries that missed at least one exact neighbour. ` +
      `Largest score difference of an organization both returned: ${Math.max(0, ...allRecall.map((r) => r.max_score_diff))} (scores are re-scored with the float vectors; the API reports 6 decimals).`,
    "",
  ];
}

const segmentCount = (n: number) => `${n} segment${n === 1 ? "" : "s"}`;

/** Elasticsearch's similar-to-organization latency before and after the force merge, where a scale was merged. */
function forceMergeNote({ scales, low }: ReportContext): string[] {
  const mergedScales = scales.filter(([, s]) => s.elasticsearch.force_merged);
  if (!mergedScales.length) return [];
  const perScale = mergedScales.map(([l, s]) => {
    const m = s.elasticsearch.force_merged!;
    const per = FILTER_LEVELS.map(
      (f) => `${f} ${latencies(loadRow(s, "elasticsearch", "organization", f, "vector", low))} → ${latencies(m.load.find((x) => x.filter === f))}`,
    );
    return `**${l}** (merge took ${f1(m.force_merge_s)} s) ${per.join("; ")}`;
  });
  return [
    `After the force merge, similar-to-organization latency (vector ranking) on Elasticsearch at 1 connection (p50 / p95 / p99 ms, as loaded → merged): ${perScale.join(". ")}.`,
    "",
  ];
}

function memorySection({ scales }: ReportContext): string[] {
  const out = [
    "### Memory and disk",
    "",
    `![Memory and disk against the number of organizations](benchmarks/${PLOTS.memory})`,
    "",
    "| scale | embedded server RSS (peak; anon / files) | embedded data dir | Elasticsearch: orgsim server RSS | Elasticsearch JVM RSS (anon / files) | JVM heap used / max | index store | node data dir |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [label, s] of scales) {
    const e = s.embedded.server_memory_after_load;
    const j = s.elasticsearch.jvm_after_load;
    out.push(
      `| ${label} | ${e ? `${n0(e.rss_mib)} MiB (${n0(e.peak_rss_mib)}; ${n0(e.anon_mib)} / ${n0(e.file_mib)})` : "–"} | ${mib(s.embedded.disk_bytes)} | ${s.elasticsearch.server_memory_after_load ? `${n0(s.elasticsearch.server_memory_after_load.rss_mib)} MiB` : "–"} | ` +
        `${j.process ? `${n0(j.process.rss_mib)} MiB (${n0(j.process.anon_mib)} / ${n0(j.process.file_mib)})` : "–"} | ${n0(j.heap_used_mib)} / ${n0(j.heap_max_mib)} MiB | ${mib(s.elasticsearch.index.store_bytes)} | ${mib(s.elasticsearch.index.data_dir_bytes)} |`,
    );
  }
  out.push(
    "",
    "RSS after the load runs, summed over the server's processes; pages of mapped files count once in each process that has touched them, though the page cache holds them once. " +
      "The embedded server keeps every vector in float32 (both kinds) and the documents in SQLite; from runs of 2026-11-28 on, a worker started on a saved index maps its vectors and word index from the snapshot file (shared by the workers, counted under files) instead of reading them into memory of its own (anon); " +
      "Elasticsearch keeps the float vectors in `_source` " +
      "and in its vector files plus the int8 copies and HNSW graphs, and its RSS counts the index files it has mapped.",
    "",
  );
  return out;
}

function runtimeSection({ scales }: ReportContext): string[] {
  const out = [
    "### Runtime",
    "",
    "| scale | embedded write | Elasticsearch write + merges | embedded server start: after the write / again after the loads | Elasticsearch server start | whole scale |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const [label, s] of scales) {
    const all = (seconds: number | undefined) => (seconds === undefined ? "" : ` (all workers ${f1(seconds)} s)`);
    const restart = s.embedded.server_restart_s === undefined ? "—" : `${f1(s.embedded.server_restart_s)} s${all(s.embedded.server_restart_all_workers_s)}`;
    out.push(
      `| ${label} | ${f1(s.embedded.import_vectors_given.seconds)} s | ${f1(s.elasticsearch.import_vectors_given.seconds)} + ${f1(s.elasticsearch.merge_settle_s)} s | ${f1(s.embedded.server_start_s)} s${all(s.embedded.server_start_all_workers_s)} / ${restart} | ${f1(s.elasticsearch.server_start_s)} s | ${f1(s.run.seconds / 60)} min |`,
    );
  }
  out.push(
    "",
    "The embedded server's start loads the model and, in each worker, reads the memory snapshot and the graphs saved beside the SQLite file (before the snapshot existed it read every vector from SQLite). " +
      "Its first start comes right after the write, while the kernel still writes back the files just written (with `--reuse-data`, right after reading them into the page cache); after the load runs the bench stops it and the exact-scan server and starts it again on the same data, alone. " +
      "Servers run the esbuild bundle (`dist/orgsim.mjs`, as the Docker image and `pnpm start`) in runs that report a second start, the sources through tsx in runs before. Where the table names all workers, the workers started one at a time and the server served from the first (the start shown) until the others were ready; in runs before, they started together and the server was ready when all were. No test asserts any time; the bench is not part of `pnpm test`.",
  );
  return out;
}

async function svg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const out = await view.toSVG();
  view.finalize();
  return out;
}

const scaleAxis = (values: number[]) =>
  ({ field: "organizations", type: "quantitative", scale: { type: "log" }, title: "organizations", axis: { values, format: "~s" } }) as const;

const COMMON_SPEC = {
  $schema: "https://vega.github.io/schema/vega-lite/v6.json",
  background: "white",
  config: { font: "Helvetica, Arial, sans-serif", view: { stroke: "#ddd" } },
} as const;
const BACKEND_COLOR = {
  field: "backend",
  type: "nominal",
  title: "backend",
  scale: { domain: BACKENDS.map((b) => BACKEND_NAMES[b]), range: ["#1f77b4", "#9ecae9", "#e45756"] },
} as const;
const FILTER_CHANNEL = { field: "filter", type: "nominal", title: "filter", sort: FILTER_LEVELS } as const;
const MODE_FACET = { field: "mode", type: "nominal", title: null, sort: MODES.map((m) => MODE_NAMES[m]) } as const;

/** One row per load run of the ranking the plots show: the default where a scale measured it (older runs measured vector only). */
function loadPlotRows(scales: [string, ScaleResult][]) {
  return scales.flatMap(([, s]) =>
    s.load
      .filter((l) => rankingOf(l) === (s.load.some((x) => rankingOf(x) === "hybrid") ? "hybrid" : "vector"))
      .map((l) => ({
        organizations: s.organizations,
        backend: BACKEND_NAMES[l.backend],
        mode: MODE_NAMES[l.mode],
        filter: l.filter,
        connections: l.connections,
        p50: l.latency_ms.p50,
        p95: l.latency_ms.p95,
        rps: l.requests_per_s,
      })),
  );
}

/** A load measure against scale, one panel per search mode; colour = backend, dash = filter. */
function loadPlot(
  title: string,
  values: ReturnType<typeof loadPlotRows>,
  x: ReturnType<typeof scaleAxis>,
  y: { field: "p50" | "rps"; title: string },
): TopLevelSpec {
  return {
    ...COMMON_SPEC,
    title: { text: title, subtitle: "per search mode; colour = backend, dash = filter" },
    data: { values },
    facet: { column: MODE_FACET },
    spec: {
      width: 220,
      height: 220,
      mark: { type: "line", point: true },
      encoding: { x, y: { ...y, type: "quantitative", scale: { type: "log" } }, color: BACKEND_COLOR, strokeDash: FILTER_CHANNEL, shape: FILTER_CHANNEL },
    },
  } as TopLevelSpec;
}

function memoryPlot(scales: [string, ScaleResult][], x: ReturnType<typeof scaleAxis>): TopLevelSpec {
  const values = scales.flatMap(([, s]) => [
    { organizations: s.organizations, backend: "embedded", what: "memory (RSS, MiB)", value: s.embedded.server_memory_after_load?.rss_mib ?? null },
    {
      organizations: s.organizations,
      backend: "Elasticsearch",
      what: "memory (RSS, MiB)",
      value: (s.elasticsearch.jvm_after_load.process?.rss_mib ?? 0) + (s.elasticsearch.server_memory_after_load?.rss_mib ?? 0),
    },
    { organizations: s.organizations, backend: "embedded", what: "disk (MiB)", value: s.embedded.disk_bytes / 2 ** 20 },
    { organizations: s.organizations, backend: "Elasticsearch", what: "disk (MiB)", value: s.elasticsearch.index.store_bytes / 2 ** 20 },
  ]);
  return {
    ...COMMON_SPEC,
    title: { text: "Memory and disk (MiB, log scale)", subtitle: "memory: server RSS (Elasticsearch: JVM + orgsim server); disk: data dir / index store" },
    data: { values },
    facet: { column: { field: "what", type: "nominal", title: null } },
    spec: {
      width: 260,
      height: 220,
      mark: { type: "line", point: true },
      encoding: { x, y: { field: "value", type: "quantitative", scale: { type: "log" }, title: "MiB" }, color: BACKEND_COLOR },
    },
  } as TopLevelSpec;
}

export async function plots(results: PerfResults): Promise<Record<keyof typeof PLOTS, string>> {
  const { scales, low, high } = reportContext(results);
  const rows = loadPlotRows(scales);
  const x = scaleAxis(scales.map(([, s]) => s.organizations));
  const latency = loadPlot(
    `Latency p50 at ${low} connection${low === 1 ? "" : "s"} (ms, log scale)`,
    rows.filter((r) => r.connections === low),
    x,
    { field: "p50", title: "p50 ms" },
  );
  const throughput = loadPlot(
    `Throughput at ${high} connections (requests/s, log scale)`,
    rows.filter((r) => r.connections === high),
    x,
    { field: "rps", title: "requests/s" },
  );
  return { latency: await svg(latency), throughput: await svg(throughput), memory: await svg(memoryPlot(scales, x)) };
}

export async function writeReport(repo: string, results: PerfResults, log: (line: string) => void): Promise<void> {
  const body = markdown(results);
  const images = await plots(results);
  const dir = join(repo, ...PLOT_DIR);
  mkdirSync(dir, { recursive: true });
  for (const [key, file] of Object.entries(PLOTS)) writeFileSync(join(dir, file), images[key as keyof typeof PLOTS]);
  const doc = join(repo, "docs", "benchmarks.md");
  // Re-read right before writing: another bench may have changed its own section meanwhile.
  const current = existsSync(doc) ? readFileSync(doc, "utf8") : "";
  writeFileSync(doc, replaceSection(current, SECTION_TITLE, body));
  log(`wrote the "${SECTION_TITLE}" section of ${doc} and ${Object.values(PLOTS).join(", ")} in ${dir}`);
}
