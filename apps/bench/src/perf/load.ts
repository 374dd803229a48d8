/**
 * Import with vectors given, through the product's path for vectors computed elsewhere:
 * OrganizationService.upsertMany(organizations, { givenVectors }), what `orgsim import` calls for a
 * mapping that fills profile_vector and customer_vector, in 1,000-organization batches (the
 * product's bulk limit, as `orgsim import` writes when the mapping gives both vectors). Reading,
 * parsing and mapping the rows of a file, which `orgsim import` does before, are not part of it.
 * The service validates and normalizes each organization, checks each vector (dimension, finite,
 * not zero) and scales it to unit length, then writes the batch in one store call. It is built as
 * packages/runtime's createApp builds it (the store behind ReadableOrganizationStore, the real
 * embedder of the dataset's model), on the backend the bench
 * opened itself: createApp opens its own backend from the environment and takes no open one.
 * Every record brings the vectors its texts need, so the embedder is never called (a call fails
 * the run rather than slowing it unseen). Calls are made as `orgsim import` makes them, its
 * WRITES_IN_FLIGHT at once (WritesInFlight), so the store writes one batch while the next is validated. Generating
 * the records and turning their vectors into number arrays, as a caller's JSON holds them, is not
 * timed: WINDOW batches are generated, then written, timed from the first call to the end of the
 * last (the calls in flight drain at each window's end: a little slower than an import's steady flow).
 */
import { openElasticsearchBackend, type VectorIndexType } from "@orgsim/backend-elasticsearch";
import { openEmbeddedBackend } from "@orgsim/backend-embedded";
import {
  type Embedder,
  type GivenVectors,
  type OrganizationRecord,
  OrganizationService,
  type OrganizationStore,
  ReadableOrganizationStore,
  type VectorModel,
} from "@orgsim/core";
import { createEmbedder } from "@orgsim/embeddings";
import { WRITES_IN_FLIGHT, WritesInFlight } from "@orgsim/importer";
import { nodeFlagsSet } from "@orgsim/runtime/node-flags";
import type { Dataset, SyntheticIds } from "./data";

export const LOAD_BATCH = 1_000;
/**
 * Batches generated ahead of being written (and timed) together. Generating them must take less
 * than the embedded store's quiet period (1 s: QUIET_MS of vector-graphs.ts, TEXTS_QUIET_MS), or its background
 * passes over the graphs and the words start and run beside the next writes: 20 batches took about
 * 1.06 s here, and the import measured 10,398 organizations/s with its graphs' and words' passes
 * partly inside it; 8 take about 0.42 s.
 */
const WINDOW = 8;

/** The path the writes took: absent in results of earlier runs, which wrote through the store adapters (OrganizationStore.upsert). */
export const WRITE_PATH = "OrganizationService.upsertMany";

export interface LoadResult {
  organizations: number;
  /** Time spent in the upsertMany calls, the windows' wall-clock time (store.upsert calls in runs without `through`; one call at a time before two were in flight). */
  seconds: number;
  per_second: number;
  /** Time generating the records and their inputs (not part of the throughput). */
  generate_seconds: number;
  /** What the writes went through; absent: OrganizationStore.upsert, before the product took vectors. */
  through?: typeof WRITE_PATH;
  /** Calls in flight at once, as `orgsim import` makes them; absent: one at a time (runs before commit 74366dc). */
  in_flight?: number;
  /** How the synthetic organizations' ids ran (data.ts); absent: consecutive (runs before `spread` existed). */
  ids?: SyntheticIds;
  /** orgsim's V8 flags the writing process ran with, as `orgsim import` runs; absent: Node's defaults (runs before they existed). */
  node_flags?: string[];
}

/** One batch as upsertMany takes it: the organizations, and each one's vectors as number arrays. */
export function upsertInput(records: readonly OrganizationRecord[]): { organizations: unknown[]; givenVectors: GivenVectors[] } {
  return {
    organizations: records.map((r) => r.organization),
    givenVectors: records.map((r) => ({
      profile: Array.from(r.profileVector),
      ...(r.customerVector ? { customer: Array.from(r.customerVector) } : {}),
    })),
  };
}

/** `embedder`'s model, whose embed refuses: the bench gives every vector, so a call means a record lacks one its text needs. */
export function givenVectorsOnly(embedder: Embedder): Embedder {
  return {
    modelId: embedder.modelId,
    dimension: embedder.dimension,
    embed: (texts) =>
      Promise.reject(
        new Error(`the bench gives every vector, yet OrganizationService asked to embed ${texts.length} text(s): a record lacks a vector its text needs`),
      ),
    close: () => embedder.close(),
  };
}

/** The product's organization service on an open store, with the real embedder of `model` (loaded, so its id and dimension are the model's own). */
async function productService(store: OrganizationStore, model: VectorModel): Promise<{ service: OrganizationService; close(): Promise<void> }> {
  const embedder = await createEmbedder({ modelId: model.modelId });
  if (embedder.modelId !== model.modelId || embedder.dimension !== model.dimension) {
    await embedder.close();
    throw new Error(`the embedder is ${embedder.modelId} (${embedder.dimension}-d); the dataset's vectors are ${model.modelId} (${model.dimension}-d)`);
  }
  return { service: new OrganizationService(new ReadableOrganizationStore(store), givenVectorsOnly(embedder)), close: () => embedder.close() };
}

async function load(
  store: OrganizationStore,
  dataset: Dataset,
  count: number,
  model: VectorModel,
  label: string,
  log: (line: string) => void,
): Promise<LoadResult> {
  const { service, close } = await productService(store, model);
  try {
    let writing = 0;
    let generating = 0;
    let lastLog = performance.now();
    const started = performance.now();
    for (let start = 0; start < count; start += LOAD_BATCH * WINDOW) {
      let t = performance.now();
      const inputs = [];
      for (let from = start; from < Math.min(count, start + LOAD_BATCH * WINDOW); from += LOAD_BATCH) {
        inputs.push(upsertInput(dataset.batch(from, Math.min(LOAD_BATCH, count - from))));
      }
      generating += performance.now() - t;
      t = performance.now();
      const writes = new WritesInFlight(WRITES_IN_FLIGHT);
      for (const { organizations, givenVectors } of inputs) {
        const ids = new Set(organizations.map((o) => (o as { id: number }).id));
        await writes.start(ids, async () => void (await service.upsertMany(organizations, { givenVectors })));
      }
      await writes.settled();
      if (writes.failure) throw writes.failure.error;
      writing += performance.now() - t;
      const done = start + inputs.reduce((sum, input) => sum + input.organizations.length, 0);
      if (performance.now() - lastLog > 15_000 || done === count) {
        lastLog = performance.now();
        const rate = done / (writing / 1000);
        const eta = (count - done) / rate;
        log(
          `  ${label}: ${done.toLocaleString("en")}/${count.toLocaleString("en")} written, ${Math.round(rate).toLocaleString("en")} orgs/s through ${WRITE_PATH} with vectors given` +
            `${done < count ? `, about ${formatDuration(eta)} to go` : ""} (${formatDuration((performance.now() - started) / 1000)} elapsed)`,
        );
      }
    }
    return {
      organizations: count,
      seconds: writing / 1000,
      per_second: count / (writing / 1000),
      generate_seconds: generating / 1000,
      through: WRITE_PATH,
      in_flight: WRITES_IN_FLIGHT,
      ids: dataset.options.ids,
      node_flags: nodeFlagsSet(),
    };
  } finally {
    await close();
  }
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/**
 * Writes, then indexes the words and builds the vector graphs, each timed apart (as `orgsim import`
 * does: records first, then the word index and the graphs, each in one pass).
 */
export async function loadEmbedded(
  dataDir: string,
  dataset: Dataset,
  count: number,
  model: VectorModel,
  log: (line: string) => void,
): Promise<LoadResult & { word_index_build_s: number; vector_index_build_s: number }> {
  const backend = openEmbeddedBackend({ dataDir });
  try {
    const written = await load(backend.organizations, dataset, count, model, "embedded", log);
    let started = performance.now();
    await backend.organizations.wordIndexSettled();
    const wordSeconds = (performance.now() - started) / 1000;
    log(`  embedded: word index built in ${formatDuration(wordSeconds)}`);
    started = performance.now();
    await backend.organizations.vectorIndexSettled();
    const buildSeconds = (performance.now() - started) / 1000;
    log(`  embedded: vector graphs built in ${formatDuration(buildSeconds)}`);
    return { ...written, word_index_build_s: wordSeconds, vector_index_build_s: buildSeconds };
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
  quantization: VectorIndexType = "int8_hnsw",
): Promise<LoadResult> {
  // As `orgsim import` writes: no refresh per bulk, one refresh at the end (timed with the writes); the product's default int8_hnsw unless
  // `quantization` says otherwise (bench:sizing); a long timeout for bulks during merges.
  const backend = await openElasticsearchBackend({
    url,
    indexPrefix,
    quantization,
    dimension: model.dimension,
    requestTimeoutMs: 600_000,
    refresh: false,
  });
  try {
    const written = await load(backend.organizations, dataset, count, model, "elasticsearch", log);
    const started = performance.now();
    await backend.organizations.refresh();
    const seconds = written.seconds + (performance.now() - started) / 1000;
    return { ...written, seconds, per_second: count / seconds };
  } finally {
    await backend.close();
  }
}
