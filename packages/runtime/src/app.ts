/** Wires adapters into the core services: the composition root shared by every entry point. */
import cluster from "node:cluster";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { openElasticsearchBackend } from "@orgsim/backend-elasticsearch";
import { openEmbeddedBackend } from "@orgsim/backend-embedded";
import {
  AccessService,
  type ApiKeyStore,
  CollectionExport,
  type CollectionStore,
  CollectionService,
  type Embedder,
  OrganizationService,
  type OrganizationStore,
  ReadableOrganizationStore,
  SearchService,
  type Services,
  setCursorSecret,
} from "@orgsim/core";
import { createEmbedder, defaultModelDir, FileCachedEmbedder } from "@orgsim/embeddings";
import { generateSampleOrganizations, SAMPLE_DATA_NOTICE } from "@orgsim/sample-data";
import type { Config, ElasticsearchConfig } from "./config";
import { type Observers, observedEmbedder, observedSearch, observedStore } from "./observed";

/** What /ready reports: each check is true when it holds, and the server is ready when all hold. */
export interface ReadinessChecks {
  /** The store answers (SQLite open; Elasticsearch reachable and not red). */
  backend: boolean;
  /** The embedding model is loaded (and not released by a shutdown). */
  model: boolean;
  /** Any sample data is stored (false while a first start embeds it). */
  data_loaded: boolean;
  /** Not shutting down (false while requests in flight are drained). */
  accepting: boolean;
  /**
   * Informational, not a condition of readiness: stored organizations that reads found unreadable
   * (logged with their ids, left out of results) since the server started, until rewritten or deleted.
   */
  unreadable_organizations: number;
  /** The embedded backend's vector graphs are not being rebuilt (always true on Elasticsearch). */
  vector_index: boolean;
}

/** How far the embedded backend's vector graphs are (Elasticsearch indexes as it writes: always current). */
export type VectorIndexStatus = { current: boolean; rebuilding: boolean; done: number; total: number };

export interface AppOptions {
  /** Reports a build of the embedded backend's vector graphs: why a rebuild started, then progress. */
  onVectorIndexProgress?: (progress: { done: number; total: number; reason?: string }) => void;
  /**
   * An import: Elasticsearch writes do not refresh per bulk, and embedded writes never add to the
   * vector graphs at once; `vectorIndexSettled()` refreshes once, or builds the graphs in one pass, at
   * the end. Searches may miss the latest writes (or scan them) meanwhile, so a serving app leaves this off.
   */
  bulkImport?: boolean;
  /** Told the duration of every backend call and embedding (the server's metrics). */
  observe?: Observers;
}

export interface App {
  services: Services;
  /** API keys: authenticates callers (see http/access.ts). */
  access: AccessService;
  organizationStore: OrganizationStore;
  embedder: Embedder;
  /** True once the backend is open, the model loaded and any sample data stored, until shutdown starts. */
  isReady(): boolean;
  /** The checks behind /ready; never throws (a backend that does not answer counts as down within its ping's timeout). */
  readiness(): Promise<ReadinessChecks>;
  /** The embedded backend's vector graphs: current, or how far their build is. */
  vectorIndex(): VectorIndexStatus;
  /** Resolves once the vector graphs hold every stored vector, and the word index every stored text (an import waits for this). */
  vectorIndexSettled(): Promise<void>;
  /** Shutdown has started: /ready answers 503 while the requests in flight finish. */
  startDraining(): void;
  isDraining(): boolean;
  /** Loads the sample data into an empty store (resolves at once when there is nothing to do). */
  loadSampleData(log: (line: string) => void): Promise<void>;
  close(): Promise<void>;
}

interface Backend {
  organizations: OrganizationStore;
  collections: CollectionStore;
  apiKeys: ApiKeyStore;
  /** The embedded backend's vector graphs; on Elasticsearch always current, settled once a refresh makes every write searchable. */
  vectorIndex: { status(): VectorIndexStatus; settled(): Promise<void> };
  close(): Promise<void>;
}

/** The configured adapters behind the core's ports. */
async function openBackend(config: Config, dimension: number | undefined, options: AppOptions = {}): Promise<Backend> {
  if (config.backend === "embedded") {
    const { vectorIndex: kind, exactBelow } = config.embedded;
    const onError = (error: Error) => console.error(`embedded store: ${error.message}`);
    const vectorIndex = { kind, exactBelow, onProgress: options.onVectorIndexProgress, onError, bulkImport: options.bulkImport ?? false };
    const backend = openEmbeddedBackend({ dataDir: config.dataDir, vectorIndex });
    const store = backend.organizations;
    // Settled: the words of bulk writes indexed, then the graphs built (each in one pass after the records).
    const settled = async () => {
      await store.wordIndexSettled();
      await store.vectorIndexSettled();
    };
    return { ...backend, vectorIndex: { status: () => store.vectorIndexStatus(), settled } };
  }
  const backend = await openElasticsearchBackend({ ...elasticsearchOf(config), dimension, ...(options.bulkImport ? { refresh: false } : {}) });
  const current = { current: true, rebuilding: false, done: 0, total: 0 };
  return { ...backend, vectorIndex: { status: () => current, settled: () => backend.organizations.refresh() } };
}

function elasticsearchOf(config: Config): ElasticsearchConfig {
  if (!config.elasticsearch) throw new Error("ORGSIM_BACKEND=elasticsearch needs ELASTICSEARCH_URL");
  return config.elasticsearch;
}

/** `orgsim optimize`: merges what a large import left in pieces (Elasticsearch's segments: segment-merge.ts). */
export async function optimizeBackend(config: Config, log: (line: string) => void): Promise<void> {
  // An embedded import ends by building its word index and vector graphs whole; and opening the store would load it all for nothing.
  if (config.backend === "embedded") return log("embedded store: nothing to merge (an import builds its indexes whole)");
  const backend = await openElasticsearchBackend(elasticsearchOf(config));
  try {
    await backend.organizations.mergeSegments(log);
  } finally {
    await backend.close();
  }
}

/** Opens only what API key commands need: the backend's key store (no model). */
export async function openKeyStore(config: Config): Promise<{ access: AccessService; close(): Promise<void> }> {
  const backend = await openBackend(config, undefined);
  return { access: new AccessService(backend.apiKeys), close: () => backend.close() };
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  if (config.cursorSecret) setCursorSecret(config.cursorSecret);
  // A server's worker processes share the cores: each gives the model its share, not all of them
  // (oversubscribed, they slowed each other down). Lone processes (one server, an import) take the default.
  const threads = cluster.isWorker ? Math.max(1, Math.floor(Math.min(availableParallelism(), 4) / config.workers)) : undefined;
  const model = await createEmbedder({ modelId: config.modelId, modelDir: config.modelDir, threads });
  const embedder = options.observe ? observedEmbedder(model, options.observe) : model;
  const backend = await openBackend(config, embedder.dimension, options).catch(async (error) => {
    await embedder.close();
    throw error;
  });
  // Every read goes through the read schema: an unreadable stored record is left out, not fatal.
  const observed = options.observe ? observedStore(backend.organizations, options.observe) : backend.organizations;
  const readableStore = new ReadableOrganizationStore(observed);
  const organizations = new OrganizationService(readableStore, embedder);
  const collections = new CollectionService(backend.collections, readableStore);
  const services: Services = {
    // exclude_collection_ids: a search leaves out what the caller's collections hold.
    search: observedSearch(new SearchService(readableStore, embedder, collections), options.observe ?? {}),
    organizations,
    collections,
    exports: new CollectionExport(collections, readableStore),
  };
  let dataLoaded = false;
  let modelLoaded = true;
  const vectorIndex = () => backend.vectorIndex.status();
  let draining = false;

  return {
    services,
    access: new AccessService(backend.apiKeys, config.keyCacheMs),
    organizationStore: backend.organizations,
    embedder,
    isReady: () => dataLoaded && modelLoaded && !draining && !vectorIndex().rebuilding,
    async readiness() {
      const reachable = await backend.organizations.ping().catch(() => false);
      return {
        backend: reachable,
        model: modelLoaded,
        data_loaded: dataLoaded,
        accepting: !draining,
        unreadable_organizations: readableStore.unreadableCount(),
        vector_index: !vectorIndex().rebuilding,
      };
    },
    vectorIndex,
    vectorIndexSettled: () => backend.vectorIndex.settled(),
    startDraining() {
      draining = true;
    },
    isDraining: () => draining,
    async loadSampleData(log) {
      await loadSample(readableStore, embedder, config, log);
      dataLoaded = true;
    },
    async close() {
      draining = true;
      modelLoaded = false;
      await embedder.close();
      await backend.close();
    },
  };
}

/**
 * Fills an empty store with the configured number of fictional organizations, in one atomic write.
 * Their vectors are kept beside the model once embedded (file-cached-embedder.ts): a new data
 * directory with the same model and sample starts without embedding it again.
 */
async function loadSample(store: OrganizationStore, model: Embedder, config: Config, log: (line: string) => void): Promise<void> {
  const size = config.sampleSize;
  if (size === 0 || (await store.count()) > 0) return;
  log(`Empty store: loading ${size} sample organizations. ${SAMPLE_DATA_NOTICE}`);
  const cached = new FileCachedEmbedder(model, join(config.modelDir ?? defaultModelDir(), model.modelId, "sample-vectors.bin"));
  if (cached.loaded > 0) log(`  ${cached.loaded} sample texts' vectors kept from an earlier start`);
  let reported = 0;
  // One atomic write: an interrupted first start leaves an empty store, so the next start loads it all again.
  await new OrganizationService(store, cached).upsertMany(generateSampleOrganizations({ count: size }), {
    onEmbedded: (done, total) => {
      if (done - reported >= 250 || done === total) {
        reported = done;
        log(`  embedded ${done}/${total}`);
      }
    },
  });
  try {
    cached.save();
  } catch (error) {
    // A read-only model folder (an image's) only costs the next first start its embedding time.
    log(`  could not keep the sample's vectors: ${(error as Error).message}`);
  }
}
