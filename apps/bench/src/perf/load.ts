/**
 * Import with vectors given. The product has no such path (the importer and
 * OrganizationService.upsertMany always embed), so the bench writes through the store adapters
 * (OrganizationStore.upsert, the port both backends implement) in 1,000-organization batches,
 * the product's bulk limit. Generating the records is not timed; writing them is.
 */
import { openElasticsearchBackend } from "@orgsim/backend-elasticsearch";
import { openEmbeddedBackend } from "@orgsim/backend-embedded";
import type { OrganizationStore, VectorModel } from "@orgsim/core";
import type { Dataset } from "./data";

export const LOAD_BATCH = 1_000;

export interface LoadResult {
  organizations: number;
  /** Time spent in store.upsert calls. */
  seconds: number;
  per_second: number;
  /** Time generating the records (not part of the throughput). */
  generate_seconds: number;
}

async function load(
  store: OrganizationStore,
  dataset: Dataset,
  count: number,
  model: VectorModel,
  label: string,
  log: (line: string) => void,
): Promise<LoadResult> {
  let writing = 0;
  let generating = 0;
  let lastLog = performance.now();
  const started = performance.now();
  for (let start = 0; start < count; start += LOAD_BATCH) {
    let t = performance.now();
    const batch = dataset.batch(start, Math.min(LOAD_BATCH, count - start));
    generating += performance.now() - t;
    t = performance.now();
    await store.upsert(batch, model);
    writing += performance.now() - t;
    const done = start + batch.length;
    if (performance.now() - lastLog > 15_000 || done === count) {
      lastLog = performance.now();
      const rate = done / (writing / 1000);
      const eta = (count - done) / rate;
      log(
        `  ${label}: ${done.toLocaleString("en")}/${count.toLocaleString("en")} written, ${Math.round(rate).toLocaleString("en")} orgs/s` +
          `${done < count ? `, about ${formatDuration(eta)} to go` : ""} (${formatDuration((performance.now() - started) / 1000)} elapsed)`,
      );
    }
  }
  return { organizations: count, seconds: writing / 1000, per_second: count / (writing / 1000), generate_seconds: generating / 1000 };
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** Writes, then builds the vector graphs (timed apart, as `orgsim import` does: records first, graphs in one pass after). */
export async function loadEmbedded(
  dataDir: string,
  dataset: Dataset,
  count: number,
  model: VectorModel,
  log: (line: string) => void,
): Promise<LoadResult & { vector_index_build_s: number }> {
  const backend = openEmbeddedBackend({ dataDir });
  try {
    const written = await load(backend.organizations, dataset, count, model, "embedded", log);
    const started = performance.now();
    await backend.organizations.vectorIndexSettled();
    const buildSeconds = (performance.now() - started) / 1000;
    log(`  embedded: vector graphs built in ${formatDuration(buildSeconds)}`);
    return { ...written, vector_index_build_s: buildSeconds };
  } finally {
    await backend.close();
  }
}

export async function loadElasticsearch(
  url: string,
  indexPrefix: string,
  dataset: Dataset,
  count: number,
  model: VectorModel,
  log: (line: string) => void,
): Promise<LoadResult> {
  // The store's defaults (refresh: true after every bulk, int8_hnsw) as the server uses them; a long timeout for bulks during merges.
  const backend = await openElasticsearchBackend({ url, indexPrefix, dimension: model.dimension, requestTimeoutMs: 600_000 });
  try {
    return await load(backend.organizations, dataset, count, model, "elasticsearch", log);
  } finally {
    await backend.close();
  }
}
