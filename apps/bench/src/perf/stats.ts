/** Small, pure helpers of the performance bench (unit-tested in test/perf-stats.test.ts). */

/**
 * The p-th percentile (0 < p <= 100) of the samples by the nearest-rank method: the smallest
 * sample such that at least p % of the samples are at or below it. NaN for no samples.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100]: ${p}`);
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)] as number;
}

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => (sorted.length === 0 ? Number.NaN : (sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number));
  let sum = 0;
  for (const s of sorted) sum += s;
  return {
    count: sorted.length,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    p50: at(50),
    p95: at(95),
    p99: at(99),
    max: sorted.length ? (sorted[sorted.length - 1] as number) : Number.NaN,
  };
}

export interface Hit {
  id: number | string;
  score: number;
}

/**
 * Recall at k of an approximate result against the exact one: the share of the exact top k that
 * the approximate top k found. Ties are not misses: an approximate hit whose score is within
 * `tolerance` of the exact k-th score (or above it) counts as found even when the exact list cut
 * that tie the other way. Returns NaN when the exact result is empty (nothing to find); when fewer
 * than k exist, the denominator is how many exist.
 */
export function recallAtK(approximate: readonly Hit[], exact: readonly Hit[], k = 10, tolerance = 1e-6): number {
  const truth = exact.slice(0, k);
  if (truth.length === 0) return Number.NaN;
  const kth = (truth[truth.length - 1] as Hit).score;
  const wanted = new Set(truth.map((h) => String(h.id)));
  let found = 0;
  for (const hit of approximate.slice(0, k)) {
    if (wanted.has(String(hit.id)) || (truth.length === k && hit.score >= kth - tolerance)) found++;
  }
  return Math.min(1, found / truth.length);
}

export const mean = (values: readonly number[]): number => {
  const finite = values.filter(Number.isFinite);
  return finite.length ? finite.reduce((a, b) => a + b, 0) / finite.length : Number.NaN;
};

/** "10k" -> 10000, "1m" -> 1000000, "2500" -> 2500. */
export function parseScale(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!match) throw new Error(`not a scale: "${text}" (use e.g. 10k, 100k, 1m or a number)`);
  const value = Number(match[1]) * ({ "": 1, k: 1_000, m: 1_000_000 } as const)[(match[2] ?? "").toLowerCase() as "" | "k" | "m"];
  if (!Number.isInteger(value) || value < 1) throw new Error(`not a whole number of organizations: "${text}"`);
  return value;
}

/** 10000 -> "10k", 1000000 -> "1m", 2500 -> "2500". */
export function scaleLabel(n: number): string {
  if (n % 1_000_000 === 0) return `${n / 1_000_000}m`;
  if (n % 1_000 === 0) return `${n / 1_000}k`;
  return String(n);
}

/**
 * Replaces the body of one level-2 section ("## Title" up to the next "## " heading or the end)
 * in a markdown document, appending the section when absent and creating the document (with a
 * "# Benchmarks" title) when empty. Other sections are left byte for byte.
 */
export function replaceSection(document: string, title: string, body: string): string {
  const heading = `## ${title}`;
  const section = `${heading}\n\n${body.trim()}\n`;
  if (document.trim() === "") return `# Benchmarks\n\n${section}`;
  const lines = document.split("\n");
  const start = lines.findIndex((line) => line.trimEnd() === heading);
  if (start < 0) return `${document.replace(/\n*$/, "\n")}\n${section}`;
  let end = lines.findIndex((line, i) => i > start && /^## /.test(line));
  if (end < 0) end = lines.length;
  const before = lines.slice(0, start).join("\n");
  const after = lines.slice(end).join("\n");
  return `${before}${before ? "\n" : ""}${section}${after ? `\n${after}` : ""}`;
}
