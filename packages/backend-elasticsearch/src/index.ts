/** The Elasticsearch backend: organizations and collections in an Elasticsearch 8.x cluster. */
import { type Client, errors } from "@elastic/elasticsearch";
import { OrgsimError } from "@orgsim/core";
import { ElasticsearchApiKeyStore } from "./api-key-store";
import { ElasticsearchCollectionStore } from "./collection-store";
import { createClient, type ElasticsearchBackendOptions, indexNames, type ResolvedConfig, resolveConfig } from "./config";
import { reasonOf, statusOf } from "./errors";
import { ElasticsearchOrganizationStore } from "./organization-store";

export { ElasticsearchApiKeyStore } from "./api-key-store";
export { ElasticsearchCollectionStore, itemIdOf } from "./collection-store";
export {
  DEFAULT_HNSW,
  DEFAULT_NUM_CANDIDATES,
  isValidOversample,
  DEFAULT_OVERSAMPLE,
  type ElasticsearchBackendOptions,
  indexNames,
  isQuantized,
  type ResolvedConfig,
  resolveConfig,
  VECTOR_INDEX_TYPES,
  type VectorIndexType,
} from "./config";
export { ID_ONLY } from "./id-hits";
export { filterQuery, organizationMappings, toDocument } from "./organization-document";
export { ElasticsearchOrganizationStore, MAX_CANDIDATES } from "./organization-store";
export type { SegmentMerge } from "./segment-merge";

export interface ElasticsearchBackend {
  organizations: ElasticsearchOrganizationStore;
  collections: ElasticsearchCollectionStore;
  apiKeys: ElasticsearchApiKeyStore;
  /** The cluster's URL (without credentials) and version. */
  url: string;
  version: string;
  close(): Promise<void>;
}

/**
 * Connects, checks that an Elasticsearch 8.x cluster answers, and creates the collection indices
 * (and the organizations index when `dimension` is given) if missing.
 */
export async function openElasticsearchBackend(options: ElasticsearchBackendOptions): Promise<ElasticsearchBackend> {
  const config = resolveConfig(options);
  const client = createClient(options, config);
  try {
    const version = await checkCluster(client, config);
    const names = indexNames(config.indexPrefix);
    // The client closes when both stores are closed (or close() is called).
    let users = 2;
    const release = async () => {
      if (--users <= 0) await client.close();
    };
    const organizations = new ElasticsearchOrganizationStore(client, config, names.organizations, release);
    const collections = new ElasticsearchCollectionStore(client, config, { collections: names.collections, items: names.items }, release);
    const apiKeys = new ElasticsearchApiKeyStore(client, config, names.apiKeys);
    await collections.init();
    await organizations.init();
    await apiKeys.init();
    return {
      organizations,
      collections,
      apiKeys,
      url: config.url,
      version,
      async close() {
        await organizations.close();
        await collections.close();
      },
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** Health first (GET / is absent on minimal nodes), then the version of the node we talk to. */
async function checkCluster(client: Client, config: ResolvedConfig): Promise<string> {
  const { url } = config;
  const once = { requestTimeout: Math.min(config.requestTimeoutMs, 10_000), maxRetries: Math.min(1, config.maxRetries) };
  try {
    const health = await client.cluster.health({}, once);
    if (health.status === "red") {
      // Still usable for indices that are allocated; say so rather than refuse.
      process.emitWarning(`Elasticsearch cluster ${health.cluster_name} at ${url} is red`);
    }
  } catch (error) {
    throw unreachable(error, url);
  }
  let version: string | undefined;
  try {
    const info = await client.nodes.info({ node_id: "_local", filter_path: "nodes.*.version" }, once);
    version = Object.values(info.nodes ?? {})[0]?.version;
  } catch {
    // Some deployments hide node info: GET / tells the version too.
    try {
      version = (await client.info({}, once)).version.number;
    } catch {
      version = undefined;
    }
  }
  if (!version)
    throw new OrgsimError(
      "BACKEND_UNAVAILABLE",
      `Elasticsearch at ${url} does not tell its version (neither GET /_nodes/_local nor GET / answered); orgsim needs 8.x`,
    );
  const major = Number(version.split(".")[0]);
  if (major !== 8) {
    throw new OrgsimError(
      "BACKEND_UNAVAILABLE",
      `Elasticsearch at ${url} runs ${version}; this backend needs an 8.x cluster (it uses the 8.19 client${major > 8 ? ", which a 9.x server only half-accepts" : ""})`,
      { url, version },
    );
  }
  return version;
}

function unreachable(error: unknown, url: string): OrgsimError {
  if (error instanceof errors.ProductNotSupportedError) {
    return new OrgsimError("BACKEND_UNAVAILABLE", `The server at ${url} is not Elasticsearch (or not a supported version): ${error.message}`, { url });
  }
  const status = statusOf(error);
  if (status === 401 || status === 403) {
    return new OrgsimError(
      "BACKEND_UNAVAILABLE",
      `Elasticsearch at ${url} refused our credentials for GET /_cluster/health (HTTP ${status}: ${reasonOf(error)})`,
      { url },
    );
  }
  if (status !== undefined) {
    return new OrgsimError("BACKEND_UNAVAILABLE", `Elasticsearch at ${url} answered GET /_cluster/health with HTTP ${status} (${reasonOf(error)})`, { url });
  }
  return new OrgsimError("BACKEND_UNAVAILABLE", `cannot reach Elasticsearch at ${url}: ${error instanceof Error ? error.message : String(error)}`, { url });
}
