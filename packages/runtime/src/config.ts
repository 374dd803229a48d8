/** Operator settings, from the environment (see README "Configuration"). */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import {
  DEFAULT_HNSW,
  DEFAULT_NUM_CANDIDATES,
  type ElasticsearchBackendOptions,
  isValidOversample,
  VECTOR_INDEX_TYPES,
  type VectorIndexType,
} from "@orgsim/backend-elasticsearch";

export type BackendName = "embedded" | "elasticsearch";

/**
 * The backend's options an operator sets: ELASTICSEARCH_URL, ELASTICSEARCH_API_KEY (or _USERNAME and
 * _PASSWORD), ORGSIM_ES_INDEX_PREFIX, ORGSIM_ES_VECTOR_INDEX (quantization), ORGSIM_ES_HNSW_M and
 * ORGSIM_ES_HNSW_EF_CONSTRUCTION (its graphs), ORGSIM_ES_NUM_CANDIDATES and ORGSIM_ES_OVERSAMPLE (its
 * searches), ORGSIM_ES_TYPE_CLAIM_MS, ORGSIM_ES_SHARDS, ORGSIM_ES_REPLICAS.
 */
export type ElasticsearchConfig = Pick<
  ElasticsearchBackendOptions,
  | "url"
  | "apiKey"
  | "username"
  | "password"
  | "indexPrefix"
  | "quantization"
  | "hnswM"
  | "hnswEfConstruction"
  | "numCandidates"
  | "oversample"
  | "typeClaimMs"
  | "shards"
  | "replicas"
>;

/** The embedded backend's vector index: ORGSIM_VECTOR_INDEX (hnsw or exact), ORGSIM_EXACT_BELOW. */
export interface EmbeddedConfig {
  vectorIndex: "hnsw" | "exact";
  /** Rankings over at most this many rows scan them exactly instead of asking the graph. */
  exactBelow: number;
}

export interface Config {
  backend: BackendName;
  /** Set when backend is "elasticsearch". */
  elasticsearch: ElasticsearchConfig | undefined;
  embedded: EmbeddedConfig;
  host: string;
  port: number;
  dataDir: string;
  modelDir: string | undefined;
  modelId: string | undefined;
  /** How many fictional sample organizations to load into an empty store (0: none). */
  sampleSize: number;
  /** Requests a minute an API key may make unless the key sets its own limit. */
  rateLimitPerMinute: number;
  /** How long a looked-up API key is reused before it is read again (a revocation takes effect within it). */
  keyCacheMs: number;
  /** Signs page cursors; servers sharing a backend behind one address need the same. Unset: random per process. */
  cursorSecret: string | undefined;
  /** How long a shutdown waits for requests in flight before closing their connections. */
  shutdownTimeoutMs: number;
  /**
   * ORGSIM_OPEN=true: run open (no key needed) while no key is active, even after keys were
   * revoked; loopback only. Without it a server whose keys were all revoked keeps requiring keys.
   */
  openOnPurpose: boolean;
  /** ORGSIM_LOG_QUERIES=true: request log lines carry the query string (search texts); off by default, they may be personal data. */
  logQueries: boolean;
  /** Names besides loopback ones that clients may use for this server (Host, Origin): ORGSIM_ALLOWED_HOSTS. */
  allowedHosts: string[];
  /** How long a client may take to send a request's line and headers (then 408). */
  headersTimeoutMs: number;
  /** How long a client may take to send a whole request, body included (then 408). */
  requestTimeoutMs: number;
  /** Server processes sharing the port (ORGSIM_WORKERS; `auto`: one a core, at most MAX_AUTO_WORKERS), each holding its own memory index. */
  workers: number;
}

/** `ORGSIM_WORKERS=auto` stops here: every embedded worker holds its own memory index (about 3.6 GiB per million organizations: two workers held 7,170 MiB after start in bench:perf at 1M). */
export const MAX_AUTO_WORKERS = 4;

/** The repository root (where pnpm-workspace.yaml is), for default data paths. */
export function repoRoot(from = import.meta.dirname): string {
  let dir = from;
  while (!existsSync(join(dir, "pnpm-workspace.yaml"))) {
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

function cursorSecretFrom(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (value.length < 32) throw new Error("ORGSIM_CURSOR_SECRET must be at least 32 characters (e.g. `openssl rand -base64 32`)");
  return value;
}

const isVectorIndexType = (value: string): value is VectorIndexType => (VECTOR_INDEX_TYPES as readonly string[]).includes(value);

function vectorIndexFrom(value: string | undefined): VectorIndexType | undefined {
  if (!value) return undefined;
  if (!isVectorIndexType(value)) throw new Error(`ORGSIM_ES_VECTOR_INDEX must be one of ${VECTOR_INDEX_TYPES.join(", ")}; got "${value}"`);
  return value;
}

/** Unset: the index type's default (the backend's DEFAULT_OVERSAMPLE). Elasticsearch takes 0 (no re-scoring) or 1 to 10. */
function oversampleFrom(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const oversample = Number(value);
  if (!isValidOversample(oversample)) throw new Error(`ORGSIM_ES_OVERSAMPLE must be 0 or a number from 1 to 10; got "${value}"`);
  return oversample;
}

function embeddedFrom(env: NodeJS.ProcessEnv): EmbeddedConfig {
  const vectorIndex = env.ORGSIM_VECTOR_INDEX || "hnsw";
  if (vectorIndex !== "hnsw" && vectorIndex !== "exact") throw new Error(`ORGSIM_VECTOR_INDEX must be "hnsw" or "exact"; got "${vectorIndex}"`);
  return { vectorIndex, exactBelow: intFromEnv("ORGSIM_EXACT_BELOW", 5_000, 0, 1_000_000_000, env) };
}

function intFromEnv(name: string, fallback: number, min: number, max: number, env = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}; got "${raw}"`);
  }
  return value;
}

/** Comma-separated host names or IP addresses, without scheme or port (`orgsim.internal,10.0.0.5,[fd00::5]`). */
function allowedHostsFrom(value: string | undefined): string[] {
  const names = (value ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  for (const name of names) {
    if (!/^([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/.test(name)) {
      throw new Error(`ORGSIM_ALLOWED_HOSTS lists host names or IP addresses without scheme or port, comma-separated; "${name}" is not one`);
    }
  }
  return names.map((name) => name.replace(/^\[|\]$/g, ""));
}

function booleanFrom(name: string, env: NodeJS.ProcessEnv): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  throw new Error(`${name} must be "true" or "false"; got "${raw}"`);
}

/** Where the user ran the command: pnpm runs package scripts in the package folder but keeps the caller's folder in INIT_CWD. */
export const userCwd = () => process.env.INIT_CWD || process.cwd();

export function loadConfig(env = process.env): Config {
  const backend = env.ORGSIM_BACKEND || "embedded";
  if (backend !== "embedded" && backend !== "elasticsearch") {
    throw new Error(`ORGSIM_BACKEND must be "embedded" or "elasticsearch"; got "${backend}"`);
  }
  if (backend === "elasticsearch" && !env.ELASTICSEARCH_URL) {
    throw new Error("ORGSIM_BACKEND=elasticsearch needs ELASTICSEARCH_URL (e.g. http://127.0.0.1:9200; `pnpm es:start` runs a local node)");
  }
  const optional = (value: string | undefined) => (value ? value : undefined);
  return {
    backend,
    elasticsearch:
      backend === "elasticsearch"
        ? {
            url: env.ELASTICSEARCH_URL as string,
            apiKey: optional(env.ELASTICSEARCH_API_KEY),
            username: optional(env.ELASTICSEARCH_USERNAME),
            password: optional(env.ELASTICSEARCH_PASSWORD),
            indexPrefix: optional(env.ORGSIM_ES_INDEX_PREFIX),
            quantization: vectorIndexFrom(env.ORGSIM_ES_VECTOR_INDEX),
            // Lucene's bounds; the defaults are the backend's (see ElasticsearchBackendOptions).
            hnswM: intFromEnv("ORGSIM_ES_HNSW_M", DEFAULT_HNSW.m, 1, 512, env),
            hnswEfConstruction: intFromEnv("ORGSIM_ES_HNSW_EF_CONSTRUCTION", DEFAULT_HNSW.efConstruction, 1, 3200, env),
            // Elasticsearch's ceiling for num_candidates.
            numCandidates: intFromEnv("ORGSIM_ES_NUM_CANDIDATES", DEFAULT_NUM_CANDIDATES, 10, 10_000, env),
            oversample: oversampleFrom(env.ORGSIM_ES_OVERSAMPLE),
            typeClaimMs: intFromEnv("ORGSIM_ES_TYPE_CLAIM_MS", 30_000, 100, 3_600_000, env),
            // Elasticsearch's own bounds: at most 1,024 shards an index by default.
            shards: intFromEnv("ORGSIM_ES_SHARDS", 1, 1, 1024, env),
            replicas: intFromEnv("ORGSIM_ES_REPLICAS", 0, 0, 100, env),
          }
        : undefined,
    embedded: embeddedFrom(env),
    host: env.HOST || "127.0.0.1",
    port: intFromEnv("PORT", 3000, 0, 65535, env),
    dataDir: env.ORGSIM_DATA_DIR ? resolve(userCwd(), env.ORGSIM_DATA_DIR) : join(repoRoot(), ".orgsim", "data"),
    modelDir: env.ORGSIM_MODEL_DIR ? resolve(userCwd(), env.ORGSIM_MODEL_DIR) : undefined,
    modelId: env.ORGSIM_MODEL || undefined,
    sampleSize: intFromEnv("ORGSIM_SAMPLE_SIZE", 2000, 0, 100_000, env),
    rateLimitPerMinute: intFromEnv("ORGSIM_RATE_LIMIT_PER_MINUTE", 600, 1, 100_000_000, env),
    keyCacheMs: intFromEnv("ORGSIM_KEY_CACHE_MS", 5_000, 0, 600_000, env),
    cursorSecret: cursorSecretFrom(env.ORGSIM_CURSOR_SECRET),
    shutdownTimeoutMs: intFromEnv("ORGSIM_SHUTDOWN_TIMEOUT_MS", 30_000, 0, 3_600_000, env),
    openOnPurpose: booleanFrom("ORGSIM_OPEN", env),
    logQueries: booleanFrom("ORGSIM_LOG_QUERIES", env),
    allowedHosts: allowedHostsFrom(env.ORGSIM_ALLOWED_HOSTS),
    ...requestTimeoutsFrom(env),
    workers: workersFrom(env),
  };
}

/** ORGSIM_WORKERS: `auto` (the default: one a core, at most MAX_AUTO_WORKERS) or a number from 1 to 64. */
function workersFrom(env: NodeJS.ProcessEnv): number {
  const value = env.ORGSIM_WORKERS || "auto";
  if (value === "auto") return Math.min(availableParallelism(), MAX_AUTO_WORKERS);
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new Error(`ORGSIM_WORKERS must be "auto" or an integer from 1 to 64; got "${value}"`);
  return workers;
}

/** Slow clients (a header a minute, a body a byte at a time) must not hold connections for long. */
function requestTimeoutsFrom(env: NodeJS.ProcessEnv): Pick<Config, "headersTimeoutMs" | "requestTimeoutMs"> {
  const headersTimeoutMs = intFromEnv("ORGSIM_HEADERS_TIMEOUT_MS", 20_000, 100, 600_000, env);
  const requestTimeoutMs = intFromEnv("ORGSIM_REQUEST_TIMEOUT_MS", 120_000, 100, 3_600_000, env);
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new Error(
      `ORGSIM_REQUEST_TIMEOUT_MS (${requestTimeoutMs}) must be at least ORGSIM_HEADERS_TIMEOUT_MS (${headersTimeoutMs}): the headers are part of the request`,
    );
  }
  return { headersTimeoutMs, requestTimeoutMs };
}
