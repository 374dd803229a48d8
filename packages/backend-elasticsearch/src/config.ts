/** Options of the Elasticsearch backend, their defaults, and the client built from them. */
import { Client, type ClientOptions } from "@elastic/elasticsearch";
import type { VectorKind } from "@orgsim/core";
import { QuickRetryTransport } from "./errors";

/**
 * `index_options.type` of the two `dense_vector` fields. `*_hnsw` are approximate graph
 * indexes; `*_flat` are brute force (exact ranking). `int8_*`, `int4_*` and `bbq_*` quantize
 * the indexed copy of each vector (the float vector stays in `_source`; see README.md for
 * measured score errors and recall).
 */
export const VECTOR_INDEX_TYPES = ["hnsw", "int8_hnsw", "int4_hnsw", "bbq_hnsw", "flat", "int8_flat", "int4_flat", "bbq_flat"] as const;
export type VectorIndexType = (typeof VECTOR_INDEX_TYPES)[number];

export interface ElasticsearchBackendOptions {
  /** e.g. http://127.0.0.1:9200; a cluster's nodes separated by commas (the client spreads requests over them and skips a dead one). */
  url: string;
  apiKey?: string;
  username?: string;
  password?: string;
  /** Every index and alias name starts with it. Default "orgsim". */
  indexPrefix?: string;
  /** `index_options.type` of the vector fields, used when the index is created. Default "int8_hnsw". */
  quantization?: VectorIndexType;
  /**
   * `index_options.m` of the `*_hnsw` vector fields (links per node of each segment's graph), used
   * when the index is created. Default 32: at Lucene's 16, a single-segment graph of the 100k bench
   * organizations could not reach some of them from any query (recall@10 of descriptions 0.920).
   */
  hnswM?: number;
  /** `index_options.ef_construction` of the `*_hnsw` vector fields, used when the index is created. Default 200. */
  hnswEfConstruction?: number;
  /** The model's dimension: when given, the organizations index is created at open (else at the first upsert). */
  dimension?: number;
  /** `number_of_replicas` of the indices this backend creates. Default 0 (a single node cannot place replicas). */
  replicas?: number;
  /** `number_of_shards` of the indices this backend creates. Default 1. */
  shards?: number;
  /**
   * How writes wait for searches to see them: `true` refreshes at once (default), "wait_for" waits
   * for the next periodic refresh (up to `refresh_interval` slower per call), `false` does not wait:
   * an import writes at bulk speed, then calls the organization store's `refresh()` once at its end.
   */
  refresh?: boolean | "wait_for";
  /**
   * Search every matching organization exhaustively: `num_candidates` at its maximum (10,000), which
   * makes Lucene compare the query with every candidate of a segment holding <= 10,000 of them.
   * For exactness over larger sets use a `*_flat` quantization.
   */
  exact?: boolean;
  /**
   * `num_candidates` (per shard) of a search is max(numCandidates, 4 x k) where k is the hits the
   * page needs plus 10, capped at 10,000 (4 x: recall 0.9995 of the top 100 and of the top 500 at
   * 100k, measured; 10 x took 50 % longer for the hybrid ranking's 100 vector hits). A profile query
   * off the data (a description, several seeds) has twice numCandidates as its floor (search-plan.ts).
   * Default 500: recall@10 ~0.997-1.0 with int8_hnsw on a single 10,000-vector segment (see
   * README.md). Lower is faster and less exact.
   */
  numCandidates?: number;
  /**
   * For quantized index types (int8/int4/bbq): `k x oversample` candidates are re-scored with the
   * float vectors (`knn.rescore_vector`). Default: by index type and vector kind (oversampleOf); 0 turns
   * re-scoring off (not recommended: ranks and the min_score floor then follow the quantized scores).
   */
  oversample?: number;
  /** Per-request timeout. Default 30 s. */
  requestTimeoutMs?: number;
  /** Client retries of a failed request on connection errors. Default 3. */
  maxRetries?: number;
  /**
   * A first add to an untyped collection fixes its type, then writes its items. Until they are
   * written the type is a claim; a claim older than this with no item was left by an interrupted
   * add (a killed server), and the collection counts as untyped again. Default 30 s.
   */
  typeClaimMs?: number;
}

/** How each segment's HNSW graph is built (Lucene's maxConn and beamWidth). */
export interface HnswOptions {
  m: number;
  efConstruction: number;
}

export const DEFAULT_HNSW: HnswOptions = { m: 32, efConstruction: 200 };

export interface ResolvedConfig {
  url: string;
  indexPrefix: string;
  quantization: VectorIndexType;
  hnsw: HnswOptions;
  dimension: number | undefined;
  replicas: number;
  shards: number;
  refresh: boolean | "wait_for";
  exact: boolean;
  numCandidates: number;
  /** null: the default of the index type and vector kind (oversampleOf). */
  oversample: number | null;
  requestTimeoutMs: number;
  maxRetries: number;
  typeClaimMs: number;
}

const INDEX_PREFIX = /^[a-z0-9][a-z0-9_.-]{0,199}$/;

/** The node URLs of `url` (comma-separated), each checked. */
export function nodeUrls(url: string): URL[] {
  return url.split(",").map((one) => {
    let parsed: URL;
    try {
      parsed = new URL(one.trim());
    } catch {
      throw new Error(`Elasticsearch url is not a URL: ${JSON.stringify(one)}`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error(`Elasticsearch url must be http(s): ${one}`);
    return parsed;
  });
}

export function resolveConfig(options: ElasticsearchBackendOptions): ResolvedConfig {
  const urls = nodeUrls(options.url);
  const indexPrefix = options.indexPrefix ?? "orgsim";
  if (!INDEX_PREFIX.test(indexPrefix)) throw new Error(`indexPrefix must be lowercase letters, digits, '_', '-' or '.': ${JSON.stringify(indexPrefix)}`);
  const quantization = options.quantization ?? "int8_hnsw";
  if (!VECTOR_INDEX_TYPES.includes(quantization))
    throw new Error(`quantization must be one of ${VECTOR_INDEX_TYPES.join(", ")}: ${JSON.stringify(quantization)}`);
  const hnsw = { m: options.hnswM ?? DEFAULT_HNSW.m, efConstruction: options.hnswEfConstruction ?? DEFAULT_HNSW.efConstruction };
  // Lucene's own bounds (Lucene99HnswVectorsFormat.MAXIMUM_MAX_CONN and MAXIMUM_BEAM_WIDTH).
  if (!(Number.isInteger(hnsw.m) && hnsw.m >= 1 && hnsw.m <= 512)) throw new Error(`hnswM must be an integer in 1..512: ${hnsw.m}`);
  if (!(Number.isInteger(hnsw.efConstruction) && hnsw.efConstruction >= 1 && hnsw.efConstruction <= 3200))
    throw new Error(`hnswEfConstruction must be an integer in 1..3200: ${hnsw.efConstruction}`);
  const dimension = options.dimension;
  if (dimension !== undefined && !(Number.isInteger(dimension) && dimension > 0 && dimension <= 4096))
    throw new Error(`dimension must be an integer in 1..4096: ${dimension}`);
  const numCandidates = options.numCandidates ?? DEFAULT_NUM_CANDIDATES;
  if (!(Number.isInteger(numCandidates) && numCandidates >= 10 && numCandidates <= 10_000))
    throw new Error(`numCandidates must be an integer in 10..10000: ${numCandidates}`);
  const oversample = options.oversample ?? null;
  if (!(oversample === null || isValidOversample(oversample))) throw new Error(`oversample must be 0 or within 1..10: ${oversample}`);
  return {
    // Shown in messages: never the credentials.
    url: urls.map((url) => `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`).join(","),
    indexPrefix,
    quantization,
    hnsw,
    dimension,
    replicas: options.replicas ?? 0,
    shards: options.shards ?? 1,
    refresh: options.refresh ?? true,
    exact: options.exact ?? false,
    numCandidates,
    oversample,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 3,
    typeClaimMs: options.typeClaimMs ?? 30_000,
  };
}

/** What Elasticsearch accepts as `oversample`: 0 (no re-scoring) or 1 to 10. */
export const isValidOversample = (oversample: number) => oversample === 0 || (oversample >= 1 && oversample <= 10);

/** `num_candidates` of a page's search, at least (see ElasticsearchBackendOptions.numCandidates). */
export const DEFAULT_NUM_CANDIDATES = 500;

/**
 * `oversample` by quantization. Elasticsearch multiplies `num_candidates` by it as well as `k`, so
 * it sets most of a quantized search's cost. Measured on one 100k int8_hnsw segment (k 20, 500
 * candidates): 6 ms without re-scoring, 7 ms at 1, 15 ms at 3, and 1.000 of the exact top 10 found
 * at 1 and at 3 (0.963 without re-scoring); of the hybrid ranking's top 100, 0.994 at 1 and 0.998
 * at 3. int4 and bbq keep fewer bits and keep 3 (not re-measured). Customer vectors keep at least
 * CUSTOMER_OVERSAMPLE.
 */
export const DEFAULT_OVERSAMPLE: Record<VectorIndexType, number> = {
  hnsw: 0,
  flat: 0,
  int8_hnsw: 1,
  int8_flat: 1,
  int4_hnsw: 3,
  int4_flat: 3,
  bbq_hnsw: 3,
  bbq_flat: 3,
};

/**
 * Customer vectors embed extracted sentences that repeat across organizations in dense clusters, and
 * customer-base queries come from off the data: at 1M (int8, 32 segments) the bench's customer-base
 * queries found 0.953 of the exact top 10 at `oversample` 1 where an earlier run found 0.983 at 3.
 */
export const CUSTOMER_OVERSAMPLE = 3;

/** The `oversample` searches of `kind` vectors in an index of `type` use: the configured one, else the type's default (customer vectors: at least CUSTOMER_OVERSAMPLE). */
export function oversampleOf(config: Pick<ResolvedConfig, "oversample">, type: VectorIndexType, kind: VectorKind): number {
  if (config.oversample !== null) return config.oversample;
  const byType = DEFAULT_OVERSAMPLE[type];
  return kind === "customer" && isQuantized(type) ? Math.max(byType, CUSTOMER_OVERSAMPLE) : byType;
}

/** True for index types whose indexed vectors are quantized (scores need re-scoring with the floats). */
export const isQuantized = (type: VectorIndexType) => !(type === "hnsw" || type === "flat");
/** Whether the type builds a graph (takes `m` and `ef_construction`); the others are brute force. */
export const isGraph = (type: VectorIndexType) => type.endsWith("hnsw");

export function createClient(options: ElasticsearchBackendOptions, config: ResolvedConfig): Client {
  const clientOptions: ClientOptions = {
    nodes: nodeUrls(options.url).map(String),
    requestTimeout: config.requestTimeoutMs,
    maxRetries: config.maxRetries,
    // Connection errors are retried after short waits, so a dead cluster answers 503 quickly (errors.ts).
    Transport: QuickRetryTransport,
  };
  if (options.apiKey) clientOptions.auth = { apiKey: options.apiKey };
  else if (options.username !== undefined) clientOptions.auth = { username: options.username, password: options.password ?? "" };
  return new Client(clientOptions);
}

/** Index and alias names. Each alias points at one versioned index; a mapping change adds -v2 and moves the alias. */
export function indexNames(prefix: string) {
  return {
    organizations: { alias: `${prefix}-organizations`, index: `${prefix}-organizations-v1` },
    collections: { alias: `${prefix}-collections`, index: `${prefix}-collections-v1` },
    items: { alias: `${prefix}-items`, index: `${prefix}-items-v1` },
    apiKeys: { alias: `${prefix}-api-keys`, index: `${prefix}-api-keys-v1` },
  };
}
export type IndexName = ReturnType<typeof indexNames>["organizations"];
