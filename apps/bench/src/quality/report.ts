/** Summaries, paired comparisons, and the written outputs: JSON, the docs section and SVG plots. */
import { UNLIKE_WEIGHT } from "@orgsim/core";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { Query, TaskId } from "./evaluate";
import { ci95, mean } from "./metrics";

export interface MetricSummary {
  mean: number;
  ci95: number;
  /** Queries the metric applies to (e.g. those with that label). */
  n: number;
}

export interface MethodResult {
  dataset: string;
  task: TaskId;
  /**
   * `bm25-profile`: the customer task's BM25 over whole descriptions (profile texts); `hybrid-before`:
   * customer-base search as ranked before issue 12 item 7 (evaluate.ts customerSearchBefore).
   */
  method: "vector" | "bm25" | "bm25-profile" | "hybrid" | "hybrid-before";
  /** Several-seeds task only: which search of the seeds (seeds.ts), ranked by `method`. */
  variant?: SeedsVariant;
  model: string | null;
  backend: "embedded" | "elasticsearch" | "lexical";
  scope: string;
  queries: number;
  metrics: Record<string, MetricSummary>;
  /** Wall-clock seconds of the run (null for fusion, computed from runs already timed). */
  seconds: number | null;
  msPerQuery: number | null;
  reusedEarlierRun: boolean;
}

export interface Comparison {
  dataset: string;
  task: TaskId;
  metric: string;
  baseline: string;
  candidate: string;
  queries: number;
  baselineMean: number;
  candidateMean: number;
  /** candidate − baseline, averaged over the queries both ran, with its 95% interval. */
  difference: number;
  ci95: number;
  relative: number;
}

/** The several-seeds task's searches: the first seed alone, the three seeds (the product), the fusion of the three one-seed rankings (bench only). */
export type SeedsVariant =
  | "one seed"
  | "three seeds"
  | "RRF of one-seed rankings"
  /** Counter-example check (seeds.ts counterExample): the three seeds, the counter-example only excluded… */
  | "three seeds, counter-example excluded"
  /** …and the three seeds with the counter-example as an `unlike` seed. */
  | "three seeds + counter-example"
  /** …and the bench's own Rocchio vector with another counter-example weight (vector ranking only). */
  | `three seeds + counter-example, weight ${number} (bench)`;

/** An invocation that ran only some tasks (`--tasks`) and merged its results into an earlier report. */
export interface PartialRun {
  date: string;
  command: string;
  tasks: string[];
  machine: Record<string, unknown>;
  git: { commit: string | null; uncommittedChanges: boolean };
  imports: Record<string, unknown>[];
  totalSeconds: number;
}

export interface QualityReport {
  date: string;
  command: string;
  machine: Record<string, unknown>;
  git: { commit: string | null; uncommittedChanges: boolean };
  settings: Record<string, unknown>;
  datasets: Record<string, Record<string, unknown>>;
  imports: Record<string, unknown>[];
  results: MethodResult[];
  comparisons?: Comparison[];
  /** Several-seeds task: paired differences between its searches (same ranking, same queries). */
  seedComparisons?: Comparison[];
  /** Customer-base task: the product's hybrid ranking against the ranking before issue 12.7 and the word baselines (same queries). */
  customerComparisons?: Comparison[];
  /** Invocations with `--tasks` merged into this report, latest last (the rest of the report is the full run's). */
  partialRuns?: PartialRun[];
  agreement: {
    dataset: string;
    task: TaskId;
    model: string;
    ranking?: "vector" | "hybrid";
    queries: number;
    identicalTop10: number | null;
    meanTop10Overlap: number | null;
  }[];
  skipped: { dataset: string; model: string; reason: string }[];
  timings: Record<string, number>;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const r4 = (x: number) => Math.round(x * 10000) / 10000;

/** Per-query values of every run, by run key, for paired comparisons. */
const perQuery = new Map<string, Map<number, Map<string, number>>>();
export const runKey = (r: Pick<MethodResult, "dataset" | "task" | "method" | "model" | "backend" | "variant">) =>
  `${r.dataset}|${r.task}|${r.backend}|${r.method}|${r.model ?? "-"}${r.variant ? `|${r.variant}` : ""}`;
export const methodLabel = (r: Pick<MethodResult, "method" | "model" | "variant">) =>
  r.variant
    ? `${r.variant}, ${r.method} ranking (${r.model})`
    : r.method === "bm25"
      ? "BM25"
      : r.method === "bm25-profile"
        ? "BM25 over whole descriptions"
        : r.method === "vector"
          ? `${r.model} vector`
          : r.method === "hybrid-before"
            ? `hybrid before issue 12.7: RRF(BM25 over customer texts, ${r.model} customer vector)`
            : `hybrid: RRF(BM25, ${r.model})`;
export const isSeedsTask = (task: TaskId) => task.startsWith("seeds-");

export function summarize(input: {
  dataset: string;
  task: TaskId;
  method: MethodResult["method"];
  variant?: SeedsVariant;
  model: string | null;
  backend: MethodResult["backend"];
  scope: string;
  queries: readonly Query[];
  values: Map<string, number>[];
  metrics: string[];
  seconds: number | null;
  msPerQuery: number | null;
  /** The rankings came from an earlier run of the same configuration (its timing is that run's). */
  reused: boolean;
}): MethodResult {
  const metrics: Record<string, MetricSummary> = {};
  for (const name of input.metrics) {
    const xs = input.values.flatMap((v) => (v.has(name) ? [v.get(name)!] : []));
    metrics[name] = { mean: r4(mean(xs)), ci95: r4(ci95(xs)), n: xs.length };
  }
  const result: MethodResult = {
    dataset: input.dataset,
    task: input.task,
    method: input.method,
    ...(input.variant ? { variant: input.variant } : {}),
    model: input.model,
    backend: input.backend,
    scope: input.scope,
    queries: input.queries.length,
    metrics,
    seconds: input.seconds === null ? null : Math.round(input.seconds),
    msPerQuery: input.msPerQuery === null ? null : Math.round(input.msPerQuery * 10) / 10,
    reusedEarlierRun: input.reused,
  };
  perQuery.set(runKey(result), new Map(input.queries.map((q, i) => [q.index, input.values[i]!])));
  return result;
}

/** Every embedded-backend or lexical method against the default model's vector search, paired on the queries both ran. */
export function compare(results: MethodResult[], defaultModel: string): Comparison[] {
  const out: Comparison[] = [];
  // The several-seeds task compares its own searches (pairedDifference, seedsSection).
  for (const base of results.filter((r) => r.backend === "embedded" && r.method === "vector" && r.model === defaultModel && !isSeedsTask(r.task))) {
    const baseValues = perQuery.get(runKey(base));
    if (!baseValues) continue;
    for (const cand of results) {
      if (cand.dataset !== base.dataset || cand.task !== base.task || cand.backend === "elasticsearch" || runKey(cand) === runKey(base)) continue;
      for (const metric of Object.keys(base.metrics)) {
        const c = pairedDifference(base, cand, metric);
        if (c) out.push(c);
      }
    }
  }
  return out;
}

/** `cand` − `base` on one metric, averaged over the queries both ran, with its 95% interval; null when they share none. */
export function pairedDifference(base: MethodResult, cand: MethodResult, metric: string): Comparison | null {
  const baseValues = perQuery.get(runKey(base));
  const candValues = perQuery.get(runKey(cand));
  if (!baseValues || !candValues) return null;
  const diffs: number[] = [];
  const a: number[] = [];
  const b: number[] = [];
  for (const [q, cv] of candValues) {
    const bv = baseValues.get(q);
    if (!bv?.has(metric) || !cv.has(metric)) continue;
    a.push(bv.get(metric)!);
    b.push(cv.get(metric)!);
    diffs.push(cv.get(metric)! - bv.get(metric)!);
  }
  if (diffs.length === 0) return null;
  const baselineMean = mean(a);
  return {
    dataset: base.dataset,
    task: base.task,
    metric,
    baseline: methodLabel(base),
    candidate: methodLabel(cand),
    queries: diffs.length,
    baselineMean: r4(baselineMean),
    candidateMean: r4(mean(b)),
    difference: r4(mean(diffs)),
    ci95: r4(ci95(diffs)),
    relative: baselineMean > 0 ? r3(mean(diffs) / baselineMean) : 0,
  };
}

/** Mean of a metric of run `of` over the queries run `on` ran (paired columns). */
function meanOn(of: MethodResult, on: MethodResult, metric: string): string {
  const values = perQuery.get(runKey(of));
  const queries = perQuery.get(runKey(on));
  if (!values || !queries) return "–";
  const xs: number[] = [];
  for (const q of queries.keys()) {
    const v = values.get(q)?.get(metric);
    if (v !== undefined) xs.push(v);
  }
  return xs.length ? mean(xs).toFixed(3) : "–";
}

const METRIC_NAMES: Record<string, string> = { mrr10: "MRR@10", recall10: "recall@10" };
const metricName = (m: string) => METRIC_NAMES[m] ?? `P@10 ${m.replace(/^p10_/, "")}`;
const fmt = (s: MetricSummary | undefined) => (s ? s.mean.toFixed(3) : "–");
const pct = (x: number) => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}%`;
const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(3)}`;

/** The method rows of one table: BM25, then per model its vector search and its fusion. */
function methodRows(results: MethodResult[], backend: "embedded" | "elasticsearch", withLexical: boolean): MethodResult[][] {
  const order = (r: MethodResult) => ["bm25", "bm25-profile", "vector", "hybrid-before", "hybrid"].indexOf(r.method);
  const keys = new Map<string, MethodResult[]>();
  for (const r of results) {
    if (!(r.backend === backend || (withLexical && r.backend === "lexical"))) continue;
    const key = `${order(r)}|${r.model ?? ""}|${r.method}`;
    keys.set(key, [...(keys.get(key) ?? []), r]);
  }
  return [...keys.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, rs]) => rs);
}

function table(results: MethodResult[], task: TaskId, backend: "embedded" | "elasticsearch", withLexical: boolean, defaultModel: string): string {
  const relevant = results.filter((r) => r.task === task);
  const columns: { dataset: string; metric: string }[] = [];
  for (const r of relevant)
    for (const m of Object.keys(r.metrics))
      if (!columns.some((c) => c.dataset === r.dataset && c.metric === m)) columns.push({ dataset: r.dataset, metric: m });
  if (columns.length === 0) return "";
  const lines = [
    `| method | ${columns.map((c) => `${c.dataset} ${metricName(c.metric)}`).join(" | ")} | queries |`,
    `|---|${columns.map(() => "---|").join("")}---|`,
  ];
  for (const group of methodRows(relevant, backend, withLexical)) {
    const first = group[0]!;
    // The customer task has two word baselines: say which texts this one matches.
    let label = task === "customer" && first.method === "bm25" ? "BM25 over customer texts" : methodLabel(first);
    if (first.model === defaultModel && first.method === "hybrid") label = `**${label}** (default)`;
    const cells = columns.map((c) => {
      const r = group.find((g) => g.dataset === c.dataset);
      const s = r?.metrics[c.metric];
      return s ? `${fmt(s)}${r!.scope === "full" ? "" : "\\*"}` : "–";
    });
    const counts = [...new Set(group.map((g) => `${g.dataset} ${g.queries.toLocaleString("en-US")}`))].join(", ");
    lines.push(`| ${label} | ${cells.join(" | ")} | ${counts} |`);
  }
  return lines.join("\n");
}

export function markdownSection(report: QualityReport, svgPaths: string[], docDir: string): string {
  const defaultModel = String(report.settings.defaultModel);
  const plots = svgPaths.flatMap((svg) => [
    `![${svg.includes("similar") ? "P@10 of similar-to-X" : "known-item and customer-base search"}](${relative(docDir, svg)})`,
    "",
  ]);
  return [
    ...runSummary(report),
    ...headline(report, defaultModel),
    ...datasetTable(report),
    ...plots,
    "### Similar to a known organization (leave-one-out P@10, embedded backend)",
    "",
    table(report.results, "similar", "embedded", true, defaultModel),
    "",
    "### Known-item search (each yc one_liner as the description query)",
    "",
    table(report.results, "known-item", "embedded", true, defaultModel),
    "",
    ...customerSection(report, defaultModel),
    ...seedsSection(report),
    ...comparisonTable(report, defaultModel),
    ...elasticsearchTable(report),
    ...runTables(report),
  ].join("\n");
}

function runSummary(report: QualityReport): string[] {
  const m = report.machine;
  return [
    `Measured ${report.date.slice(0, 10)} on ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node} (load average ${m.loadAverage1mAtStart} at the start; quality numbers do not depend on load), commit \`${String(report.git.commit).slice(0, 12)}\`${report.git.uncommittedChanges ? " plus uncommitted changes" : ""}, by \`${report.command}\` in ${(report.timings.totalSeconds! / 60).toFixed(0)} min (this invocation; with the imports and query runs it reused: ${((report.timings.importSecondsAllRuns! + report.timings.querySecondsAllRuns!) / 60).toFixed(0)} min of embedding imports and searches). All numbers: [\`apps/bench/results/quality.json\`](../apps/bench/results/quality.json).`,
    "",
  ];
}

/** The default ranking (hybrid) against the vector ranking alone, where the report compared them. */
function headline(report: QualityReport, defaultModel: string): string[] {
  const headline = (report.comparisons ?? []).filter((c) => c.candidate === methodLabel({ method: "hybrid", model: defaultModel }));
  if (headline.length === 0) return [];
  return [
    `**The default ranking is hybrid** (\`ranking=hybrid\`: the reciprocal rank fusion of the ${defaultModel} vector ranking and BM25, both through the product's SearchService). ` +
      "Against the vector ranking alone (`ranking=vector`, the default before), on the same queries: " +
      headline
        .map((c) => `${c.dataset} ${c.task} ${metricName(c.metric)} ${c.baselineMean.toFixed(3)} → ${c.candidateMean.toFixed(3)} (${pct(c.relative)})`)
        .join("; ") +
      ".",
    "",
  ];
}

function datasetTable(report: QualityReport): string[] {
  const out = [
    "| corpus | organizations | labelled | with customer text | similar-to-X queries | known-item queries | customer queries |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const [id, d] of Object.entries(report.datasets)) {
    const tasks = d.tasks as Record<string, { queries: number }>;
    const labelled = Object.entries(d.labelled as Record<string, number>)
      .map(([l, n]) => `${l} ${n.toLocaleString("en-US")} (${(d.distinctLabels as Record<string, number>)[l]} values)`)
      .join(", ");
    out.push(
      `| ${id} | ${(d.organizations as number).toLocaleString("en-US")} | ${labelled} | ${(d.withCustomerText as number).toLocaleString("en-US")} | ${tasks.similar?.queries.toLocaleString("en-US") ?? "–"} | ${tasks["known-item"]?.queries.toLocaleString("en-US") ?? "–"} | ${tasks.customer?.queries.toLocaleString("en-US") ?? "–"} |`,
    );
  }
  out.push("", "\\* a seeded random sample of the queries (see the scope of each run in the JSON); unmarked: every query.", "");
  return out;
}

const CUSTOMER_HEADING = "### Customer-base search";

/** The customer task's table, and before/after issue 12.7 beside BM25 over whole descriptions, paired on the same queries. */
function customerSection(report: QualityReport, defaultModel: string): string[] {
  const out = [
    `${CUSTOMER_HEADING} (each organization's customer text, itself excluded; P@10 by label)`,
    "",
    table(report.results, "customer", "embedded", true, defaultModel),
    "",
  ];
  const comparisons = report.customerComparisons ?? [];
  const [before, after, whole] = [
    methodLabel({ method: "hybrid-before", model: defaultModel }),
    methodLabel({ method: "hybrid", model: defaultModel }),
    methodLabel({ method: "bm25-profile", model: null }),
  ];
  const pair = (c: Comparison, baseline: string, candidate: string) =>
    comparisons.find((d) => d.dataset === c.dataset && d.metric === c.metric && d.baseline === baseline && d.candidate === candidate);
  const rows = comparisons.filter((c) => c.baseline === before && c.candidate === after);
  if (rows.length === 0) return out;
  out.push(
    "**Before and after issue 12 item 7** (default model, embedded backend, the same queries). The hybrid ranking of customer-base search now judges an organization whose customer text was extracted from its description by the mean of its customer-vector and profile-vector cosines and one with a stated `customer_description` by its customer vector alone, and matches the words against whole descriptions; an organization without customer text has no customer vector and is never a result, as before (neither a vector candidate nor a word match). Before, it fused the customer-vector ranking with BM25 over the customer texts. Differences are paired, with their 95% intervals:",
    "",
    "| corpus | metric | BM25 over whole descriptions | before | after | after − before | after − BM25 over whole descriptions | before − BM25 over whole descriptions | queries |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const c of rows) {
    const [afterVsWhole, beforeVsWhole] = [pair(c, whole, after), pair(c, whole, before)];
    const d = (x: Comparison | undefined) => (x ? `${signed(x.difference)} ± ${x.ci95.toFixed(3)}` : "–");
    out.push(
      `| ${c.dataset} | ${metricName(c.metric)} | ${afterVsWhole ? afterVsWhole.baselineMean.toFixed(3) : "–"} | ${c.baselineMean.toFixed(3)} | ${c.candidateMean.toFixed(3)} | ${d(c)} | ${d(afterVsWhole)} | ${d(beforeVsWhole)} | ${c.queries.toLocaleString("en-US")} |`,
    );
  }
  out.push("");
  return out;
}

const SEEDS_HEADING = "### Several seeds";
const ci = (s: MetricSummary | undefined) => (s ? `${s.mean.toFixed(3)} ± ${s.ci95.toFixed(3)}` : "–");
const diff = (c: Comparison | undefined) => (c ? `${signed(c.difference)} ± ${c.ci95.toFixed(3)} (${pct(c.relative)})` : "–");

/** The several-seeds task: one seed against three (the product), and the fusion of the one-seed rankings, by ranking. */
function seedsSection(report: QualityReport): string[] {
  const results = report.results.filter((r) => isSeedsTask(r.task));
  if (results.length === 0) return [];
  const comparisons = report.seedComparisons ?? [];
  const cmp: SeedsComparisonOf = (r, baseline, candidate, metric = Object.keys(r.metrics)[0]!) =>
    comparisons.find(
      (c) =>
        c.dataset === r.dataset &&
        c.task === r.task &&
        c.metric === metric &&
        c.baseline === methodLabel({ ...r, variant: baseline }) &&
        c.candidate === methodLabel({ ...r, variant: candidate }),
    );
  const out = [
    `${SEEDS_HEADING}: three organizations of one label value as the \`like\` seeds (P@10 of the other organizations of that value, embedded backend)`,
    "",
    "Each query: an organization of a value with at least 5 organizations, and 2 more of that value drawn at random (seeded); " +
      "relevant: the other organizations of the value, the seeds excluded from the results and from the relevant ones. " +
      "*one seed*: `similarToOrganization` of the first seed, the other two in `exclude_ids`; *three seeds*: `similarToSeeds({ like: [the three] })`, " +
      "the product's search (Rocchio's centroid of the seeds' vectors, plus in hybrid ranking the seeds' distinctive words); " +
      "*RRF of one-seed rankings*: the bench fuses the three one-seed rankings (each 100 deep, every seed excluded) by reciprocal rank fusion (`fusedRelevance`), an alternative design the product does not use. " +
      "Means with their 95% intervals; differences paired on the same queries.",
    "",
    "| corpus | label | ranking | one seed | three seeds (product) | RRF of one-seed rankings (bench) | three − one | RRF − three | queries |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  const byRow = new Map<string, MethodResult[]>();
  for (const r of results.filter((x) => x.variant === "one seed" || x.variant === "three seeds" || x.variant === "RRF of one-seed rankings")) {
    const key = `${r.dataset}|${r.task}|${r.model}|${r.method}`;
    byRow.set(key, [...(byRow.get(key) ?? []), r]);
  }
  const sentences: string[] = [];
  for (const group of byRow.values()) {
    const of = (v: SeedsVariant) => group.find((g) => g.variant === v);
    const one = of("one seed");
    const three = of("three seeds");
    const rrf = of("RRF of one-seed rankings");
    const first = group[0]!;
    const metric = Object.keys(first.metrics)[0]!;
    const threeVsOne = cmp(first, "one seed", "three seeds");
    out.push(
      `| ${first.dataset} | ${metric.replace(/^p10_/, "")} | ${first.method} | ${ci(one?.metrics[metric])} | ${ci(three?.metrics[metric])} | ${ci(rrf?.metrics[metric])} | ${diff(threeVsOne)} | ${diff(cmp(first, "three seeds", "RRF of one-seed rankings"))} | ${first.queries.toLocaleString("en-US")}${first.scope === "full" ? "" : "\\*"} |`,
    );
    if (threeVsOne)
      sentences.push(
        `${first.dataset} ${metric.replace(/^p10_/, "")}, ${first.method} ranking: ${threeVsOne.baselineMean.toFixed(3)} → ${threeVsOne.candidateMean.toFixed(3)}, ${signed(threeVsOne.difference)} ± ${threeVsOne.ci95.toFixed(3)} (${pct(threeVsOne.relative)}, ${threeVsOne.queries.toLocaleString("en-US")} queries)`,
      );
  }
  out.push("");
  if (sentences.length) out.push(`**Gain of three seeds over one** (P@10, paired 95% interval): ${sentences.join("; ")}.`, "");
  out.push(...counterExampleTable(results, cmp));
  const run = report.partialRuns?.findLast((p) => p.tasks.includes("seeds"));
  if (run)
    out.push(
      `The several-seeds tables alone measured ${run.date.slice(0, 10)} by \`${run.command}\` in ${run.totalSeconds < 120 ? `${run.totalSeconds} s` : `${(run.totalSeconds / 60).toFixed(0)} min`} (load average ${run.machine.loadAverage1mAtStart} at the start, commit \`${String(run.git.commit).slice(0, 12)}\`${run.git.uncommittedChanges ? " plus uncommitted changes" : ""}, its own import of the corpus); the other tables are from the run described at the top of this section.`,
      "",
    );
  return out;
}

/** Does one counter-example (`unlike`) help? Against the same three seeds with it merely excluded. */
type SeedsComparisonOf = (r: MethodResult, baseline: SeedsVariant, candidate: SeedsVariant, metric?: string) => Comparison | undefined;

function counterExampleTable(results: MethodResult[], cmp: SeedsComparisonOf): string[] {
  const withUnlike = results.filter((r) => r.variant === "three seeds + counter-example");
  if (withUnlike.length === 0) return [];
  const out = [
    "Counter-example check: on the queries whose three-seed top 10 holds organizations of other values, the value met most often there and its first organization there is the counter-example; " +
      `the three seeds with it as an \`unlike\` seed (Rocchio's weight ${UNLIKE_WEIGHT}) against the same three seeds with it only in \`exclude_ids\` (both lists leave it out). ` +
      "*other value in top 10*: share of the top 10 of the counter-example's value (lower is better).",
    "",
    "| corpus | label | ranking | P@10 excluded | P@10 unlike | difference | other value in top 10, excluded | unlike | difference | queries |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of withUnlike) {
    const [p10, other] = Object.keys(r.metrics) as [string, string];
    const base = results.find(
      (b) => b.dataset === r.dataset && b.task === r.task && b.method === r.method && b.variant === "three seeds, counter-example excluded",
    );
    const change = (metric: string) => diff(cmp(r, "three seeds, counter-example excluded", "three seeds + counter-example", metric));
    out.push(
      `| ${r.dataset} | ${p10.replace(/^p10_/, "")} | ${r.method} | ${ci(base?.metrics[p10])} | ${ci(r.metrics[p10])} | ${change(p10)} | ${ci(base?.metrics[other])} | ${ci(r.metrics[other])} | ${change(other)} | ${r.queries.toLocaleString("en-US")} |`,
    );
  }
  out.push("");
  const weighted = results.filter((r) => r.variant?.endsWith("(bench)") && r.variant.includes("weight"));
  if (weighted.length === 0) return out;
  out.push(
    `The counter-example's weight (vector ranking): the bench's own Rocchio vector, normalize(mean(like) − w · unlike), ranked by the store with the seeds and the counter-example excluded; w = 0 is the counter-example only excluded, ${UNLIKE_WEIGHT} the product's weight (its row should match the product's above).`,
    "",
    "| corpus | label | weight | P@10 | difference to w = 0 | other value in top 10 | difference to w = 0 | queries |",
    "|---|---|---|---|---|---|---|---|",
  );
  for (const r of weighted) {
    const [p10, other] = Object.keys(r.metrics) as [string, string];
    const base = results.find(
      (b) => b.dataset === r.dataset && b.task === r.task && b.method === r.method && b.variant === "three seeds, counter-example excluded",
    );
    const change = (metric: string) => diff(cmp(r, "three seeds, counter-example excluded", r.variant!, metric));
    if (base && r === weighted.find((w) => w.dataset === r.dataset && w.task === r.task))
      out.push(
        `| ${r.dataset} | ${p10.replace(/^p10_/, "")} | 0 | ${ci(base.metrics[p10])} | – | ${ci(base.metrics[other])} | – | ${base.queries.toLocaleString("en-US")} |`,
      );
    out.push(
      `| ${r.dataset} | ${p10.replace(/^p10_/, "")} | ${/weight ([\d.]+)/.exec(r.variant!)?.[1]} | ${ci(r.metrics[p10])} | ${change(p10)} | ${ci(r.metrics[other])} | ${change(other)} | ${r.queries.toLocaleString("en-US")} |`,
    );
  }
  out.push("");
  return out;
}

function comparisonTable(report: QualityReport, defaultModel: string): string[] {
  const comparisons = report.comparisons ?? [];
  if (comparisons.length === 0) return [];
  return [
    `### Against the ${defaultModel} vector ranking (the default before hybrid ranking), paired on the same queries`,
    "",
    "Difference of the means, with its 95% interval (normal approximation over the per-query differences).",
    "",
    "| corpus | task | metric | candidate | vector | candidate | difference | relative |",
    "|---|---|---|---|---|---|---|---|",
    ...comparisons.map(
      (c) =>
        `| ${c.dataset} | ${c.task} | ${metricName(c.metric)} | ${c.candidate} | ${c.baselineMean.toFixed(3)} | ${c.candidateMean.toFixed(3)} | ${signed(c.difference)} ± ${c.ci95.toFixed(3)} | ${pct(c.relative)} |`,
    ),
    "",
  ];
}

/** Each Elasticsearch run beside the embedded run of the same method, with how far their top 10s agree. */
function elasticsearchTable(report: QualityReport): string[] {
  const esRows = report.results.filter((r) => r.backend === "elasticsearch");
  if (esRows.length === 0) return [];
  const out = [
    "### Elasticsearch backend (the same organizations and stored vectors, int8_hnsw, the product's search options)",
    "",
    "| corpus | task | ranking | metric | embedded | elasticsearch | identical top 10 | top-10 overlap | queries |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const e of esRows) {
    const emb = report.results.find(
      (r) => r.backend === "embedded" && r.method === e.method && r.model === e.model && r.dataset === e.dataset && r.task === e.task,
    );
    const agree = report.agreement.find((a) => a.dataset === e.dataset && a.task === e.task && a.model === e.model && (a.ranking ?? "vector") === e.method);
    for (const [metric, s] of Object.entries(e.metrics)) {
      out.push(
        `| ${e.dataset} | ${e.task} | ${methodLabel(e)} | ${metricName(metric)} | ${emb ? meanOn(emb, e, metric) : "–"} | ${fmt(s)}${e.scope === "full" ? "" : "\\*"} | ${agree?.identicalTop10 == null ? "–" : `${(100 * agree.identicalTop10).toFixed(1)}%`} | ${agree?.meanTop10Overlap == null ? "–" : `${(100 * agree.meanTop10Overlap).toFixed(1)}%`} | ${e.queries.toLocaleString("en-US")} |`,
      );
    }
  }
  out.push("", "Both columns and the agreement are over the Elasticsearch run's queries (the same queries on both backends).", "");
  return out;
}

/** What ran, how long it took, the imports, and what was not run. */
function runTables(report: QualityReport): string[] {
  const out = [
    "### What ran and how long it took",
    "",
    "| corpus | task | method | backend | scope | queries | seconds | ms/query |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const r of report.results) {
    if (r.seconds === null) continue;
    out.push(
      `| ${r.dataset} | ${r.task} | ${methodLabel(r)} | ${r.backend} | ${r.scope} | ${r.queries.toLocaleString("en-US")} | ${r.seconds} | ${r.msPerQuery ?? "–"} |`,
    );
  }
  out.push("", "| import | organizations | with customer vector | embedding import | reused |", "|---|---|---|---|---|");
  for (const i of report.imports)
    out.push(
      `| ${i.model}/${i.dataset} | ${Number(i.organizations).toLocaleString("en-US")} | ${Number(i.withCustomerVector).toLocaleString("en-US")} | ${Math.round(Number(i.seconds) / 60)} min | ${i.reused ? "yes" : "no"} |`,
    );
  for (const s of report.skipped) out.push("", `Not run: ${s.model} on ${s.dataset} (${s.reason}).`);
  return out;
}

const START = "<!-- bench:quality:start (generated by pnpm bench:quality; edit outside these markers) -->";
const END = "<!-- bench:quality:end -->";

/** Puts the generated section between its markers, creating the file or the section when missing. */
export function updateDoc(docPath: string, generated: string): void {
  const block = `${START}\n${generated}\n${END}`;
  let text = existsSync(docPath) ? readFileSync(docPath, "utf8") : "# Benchmarks\n\n## Retrieval quality\n\n";
  if (text.includes(START) && text.includes(END)) {
    text = text.slice(0, text.indexOf(START)) + block + text.slice(text.indexOf(END) + END.length);
  } else if (text.includes("## Retrieval quality")) {
    const at = text.indexOf("## Retrieval quality");
    const next = text.indexOf("\n## ", at + 1);
    text = next < 0 ? `${text.trimEnd()}\n\n${block}\n` : `${text.slice(0, next).trimEnd()}\n\n${block}\n${text.slice(next)}`;
  } else {
    text = `${text.trimEnd()}\n\n## Retrieval quality\n\n${block}\n`;
  }
  mkdirSync(dirname(docPath), { recursive: true });
  writeFileSync(docPath, text);
}

async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

const SHORT: Record<string, string> = { "bge-small-en-v1.5-q": "bge-small", "e5-small-v2-q": "e5-small", "all-minilm-l6-v2-q": "MiniLM" };
// One hue per model, lighter for its fusion with BM25; BM25 grey.
const COLOR_DOMAIN = ["BM25", "bge-small", "hybrid BM25+bge-small", "e5-small", "hybrid BM25+e5-small", "MiniLM", "hybrid BM25+MiniLM"];
const COLOR_RANGE = ["#8c8c8c", "#1f77b4", "#9ecae1", "#e6550d", "#fdae6b", "#31a354", "#a1d99b"];
const shortLabel = (r: MethodResult) =>
  r.method === "bm25" ? "BM25" : r.method === "vector" ? (SHORT[r.model!] ?? r.model!) : `hybrid BM25+${SHORT[r.model!] ?? r.model}`;

/** Bar charts of the embedded-backend and lexical results: one for similar-to-X, one for the two search tasks. */
export async function writePlots(report: QualityReport, dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const rows = (tasks: TaskId[]) =>
    report.results
      .filter((r) => tasks.includes(r.task) && r.backend !== "elasticsearch")
      .flatMap((r) =>
        Object.entries(r.metrics).map(([metric, s]) => ({
          panel: `${r.dataset} · ${r.task === "similar" ? "" : `${r.task} · `}${metricName(metric)}`,
          method: shortLabel(r),
          value: s.mean,
          lo: Math.max(0, s.mean - s.ci95),
          hi: s.mean + s.ci95,
        })),
      );
  const chart = (values: ReturnType<typeof rows>, title: string, columns: number): TopLevelSpec => ({
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    data: { values },
    facet: { field: "panel", type: "nominal", title: null, header: { labelFontSize: 12, labelFontWeight: "bold" } },
    columns,
    spec: {
      width: 220,
      height: 150,
      layer: [
        {
          mark: { type: "bar" },
          encoding: {
            y: { field: "method", type: "nominal", title: null, sort: null },
            x: { field: "value", type: "quantitative", title: null, scale: { zero: true } },
            color: { field: "method", type: "nominal", legend: null, scale: { domain: COLOR_DOMAIN, range: COLOR_RANGE } },
          },
        },
        {
          mark: { type: "rule" },
          encoding: { y: { field: "method", type: "nominal", sort: null }, x: { field: "lo", type: "quantitative" }, x2: { field: "hi" } },
        },
        {
          mark: { type: "text", align: "left", dx: 4, fontSize: 10 },
          encoding: {
            y: { field: "method", type: "nominal", sort: null },
            x: { field: "hi", type: "quantitative" },
            text: { field: "value", type: "quantitative", format: ".3f" },
          },
        },
      ],
    },
    resolve: { scale: { x: "independent" } },
    config: { font: "sans-serif", view: { stroke: null } },
  });
  const written: string[] = [];
  const similar = rows(["similar"]);
  if (similar.length > 0) {
    const path = join(dir, "quality-similar.svg");
    writeFileSync(path, await renderSvg(chart(similar, "Similar to a known organization: leave-one-out P@10 (bars: mean, lines: 95% interval)", 2)));
    written.push(path);
  }
  const search = rows(["known-item", "customer"]);
  if (search.length > 0) {
    const path = join(dir, "quality-search.svg");
    writeFileSync(path, await renderSvg(chart(search, "Known-item search (yc one_liners) and customer-base search (P@10 by label)", 2)));
    written.push(path);
  }
  return written;
}

/**
 * `--tasks` ran only some tasks: their results replace those of the same corpus and task in the
 * report already at `outPath` (every other result, comparison and timing kept as it was), the
 * invocation is listed in partialRuns, and in the docs the several-seeds and customer-base
 * subsections, the headline, and the rows of the tasks run now in the comparison, Elasticsearch
 * and run tables are rewritten (the rest needs per-query values the earlier run did not keep; a
 * full run regenerates them).
 */
export async function mergeOutputs(partial: QualityReport, tasks: string[], outPath: string, root: string): Promise<void> {
  if (!existsSync(outPath)) return writeOutputs(partial, outPath, root);
  const previous = JSON.parse(readFileSync(outPath, "utf8")) as QualityReport;
  // A run of the same corpus, task, backend, method, model (and seeds variant) replaces the earlier one; the rest stays.
  // Every earlier result of a corpus and task this run ran is replaced, as the header of run.ts says (other models' and backends' too: they ranked by the code of then).
  const rerunTask = new Set(partial.results.map((r) => `${r.dataset}|${r.task}`));
  const newComparisons = compare(partial.results, String(partial.settings.defaultModel));
  const sameComparison = (a: Comparison, b: Comparison) =>
    a.dataset === b.dataset && a.task === b.task && a.metric === b.metric && a.baseline === b.baseline && a.candidate === b.candidate;
  const sameAgreement = (a: QualityReport["agreement"][number], b: QualityReport["agreement"][number]) =>
    a.dataset === b.dataset && a.task === b.task && a.model === b.model && (a.ranking ?? "vector") === (b.ranking ?? "vector");
  const merged: QualityReport = {
    ...previous,
    datasets: Object.fromEntries(
      Object.entries({ ...previous.datasets, ...partial.datasets }).map(([id, d]) => [
        id,
        { ...previous.datasets[id], ...d, tasks: { ...(previous.datasets[id]?.tasks ?? {}), ...((d.tasks as object) ?? {}) } },
      ]),
    ),
    results: [...previous.results.filter((r) => !rerunTask.has(`${r.dataset}|${r.task}`)), ...partial.results],
    comparisons: [
      ...(previous.comparisons ?? []).filter((c) => !rerunTask.has(`${c.dataset}|${c.task}`) && !newComparisons.some((n) => sameComparison(c, n))),
      ...newComparisons,
    ],
    seedComparisons: [
      ...(previous.seedComparisons ?? []).filter((c) => !(partial.seedComparisons ?? []).some((n) => sameComparison(c, n))),
      ...(partial.seedComparisons ?? []),
    ],
    customerComparisons: [
      ...(previous.customerComparisons ?? []).filter((c) => !rerunTask.has(`${c.dataset}|${c.task}`)),
      ...(partial.customerComparisons ?? []),
    ],
    agreement: [
      ...previous.agreement.filter((a) => !rerunTask.has(`${a.dataset}|${a.task}`) && !partial.agreement.some((n) => sameAgreement(a, n))),
      ...partial.agreement,
    ],
    partialRuns: [
      // A later run of the same tasks supersedes an earlier one.
      ...(previous.partialRuns ?? []).filter((p) => p.tasks.join(",") !== tasks.join(",")),
      {
        date: partial.date,
        command: partial.command,
        tasks,
        machine: partial.machine,
        git: partial.git,
        imports: partial.imports,
        totalSeconds: partial.timings.totalSeconds ?? 0,
      },
    ],
  };
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, `${JSON.stringify(merged, null, 2)}\n`);
  const docPath = join(root, "docs", "benchmarks.md");
  if (!existsSync(docPath) || !readFileSync(docPath, "utf8").includes(START)) return;
  const text = readFileSync(docPath, "utf8");
  const defaultModel = String(merged.settings.defaultModel);
  let doc = spliceSubsection(text, seedsSection(merged).join("\n"));
  if (tasks.includes("customer")) doc = spliceSubsection(doc, customerSection(merged, defaultModel).join("\n"), CUSTOMER_HEADING);
  // The headline and the tables with rows per corpus and task: the rows of the tasks run now are replaced, the others kept as written.
  const [headlineLine] = headline(merged, defaultModel);
  if (headlineLine) doc = doc.replace(/^\*\*The default ranking is hybrid\*\*.*$/m, () => headlineLine);
  const runNow = { ...partial, comparisons: newComparisons };
  for (const table of [comparisonTable(runNow, defaultModel), elasticsearchTable(runNow), runTables(runNow)]) doc = spliceRows(doc, table, rerunTask);
  writeFileSync(docPath, doc);
}

/**
 * The generated section with the subsection under `heading` replaced in place, or, when there is
 * none (the several-seeds one before its first run), put before the comparisons.
 */
export function spliceSubsection(doc: string, subsection: string, heading = SEEDS_HEADING): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END, start);
  let block = doc.slice(start, end);
  let insertAt: number | undefined;
  const at = block.indexOf(`\n${heading}`);
  if (at >= 0) {
    const next = block.indexOf("\n### ", at + 1);
    block = block.slice(0, at + 1) + block.slice(next < 0 ? block.length : next + 1);
    insertAt = at + 1;
  }
  if (subsection) {
    const before = ["\n### Against the ", "\n### Elasticsearch", "\n### What ran"].map((h) => block.indexOf(h)).find((i) => i >= 0);
    insertAt ??= before === undefined ? block.length : before + 1;
    block = `${block.slice(0, insertAt)}${subsection.trimEnd()}\n\n${block.slice(insertAt)}`;
  }
  return doc.slice(0, start) + block + doc.slice(end);
}

const cellsOf = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => c.trim());

/**
 * In the generated section's table whose header is the generated `table`'s, the rows of the corpora
 * and tasks in `rerun` (first two cells) are replaced by the generated rows, where the first of them stood.
 */
export function spliceRows(doc: string, table: string[], rerun: Set<string>): string {
  const header = table.find((l) => l.startsWith("| corpus |"));
  if (!header) return doc;
  const rows = table.slice(table.indexOf(header) + 2).filter((l) => l.startsWith("| ") && rerun.has(cellsOf(l).slice(0, 2).join("|")));
  const lines = doc.split("\n");
  const at = lines.findIndex((l) => l.startsWith("|") && cellsOf(l).join("|") === cellsOf(header).join("|"));
  if (at < 0) return doc;
  let end = at + 2;
  while (end < lines.length && lines[end]!.startsWith("|")) end++;
  const body = lines.slice(at + 2, end);
  const first = body.findIndex((l) => rerun.has(cellsOf(l).slice(0, 2).join("|")));
  const kept = body.filter((l) => !rerun.has(cellsOf(l).slice(0, 2).join("|")));
  const insertAt = first < 0 ? kept.length : first;
  const newBody = [...kept.slice(0, insertAt), ...rows, ...kept.slice(insertAt)];
  return [...lines.slice(0, at + 2), ...newBody, ...lines.slice(end)].join("\n");
}

export async function writeOutputs(report: QualityReport, outPath: string, root: string): Promise<void> {
  report.comparisons = compare(report.results, String(report.settings.defaultModel));
  // Work done, whether in this invocation or in the earlier ones whose imports and rankings it reused.
  report.timings.querySecondsAllRuns = report.results.reduce((sum, r) => sum + (r.seconds ?? 0), 0);
  report.timings.importSecondsAllRuns = report.imports.reduce((sum, i) => sum + Number(i.seconds ?? 0), 0);
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, `${JSON.stringify(report, null, 2)}\n`);
  const docPath = join(root, "docs", "benchmarks.md");
  const svgs = await writePlots(report, join(root, "docs", "benchmarks"));
  updateDoc(docPath, markdownSection(report, svgs, dirname(docPath)));
}
