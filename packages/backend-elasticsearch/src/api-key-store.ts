/** ApiKeyStore on Elasticsearch: one document per key, id = key id; writes refresh at once (keys change rarely). */
import type { Client, estypes } from "@elastic/elasticsearch";
import type { ApiKeyStore, StoredApiKey } from "@orgsim/core";
import type { IndexName, ResolvedConfig } from "./config";
import { ensureIndex, guarded, unlessNotFound } from "./elastic";

const API_KEY_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: "strict",
  properties: {
    id: { type: "keyword" },
    tenant: { type: "keyword" },
    scopes: { type: "keyword" },
    name: { type: "keyword", index: false },
    rate_limit_per_minute: { type: "integer", index: false },
    secret_hash: { type: "keyword", index: false },
    created_at: { type: "date" },
    revoked_at: { type: "date" },
  },
};

export class ElasticsearchApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly client: Client,
    private readonly config: ResolvedConfig,
    private readonly name: IndexName,
  ) {}

  async init(): Promise<void> {
    const settings = { number_of_shards: 1, number_of_replicas: this.config.replicas };
    await guarded(this.config.url, () => ensureIndex(this.client, this.name, () => ({ settings, mappings: API_KEY_MAPPINGS })));
  }

  async insert(key: StoredApiKey): Promise<void> {
    await guarded(this.config.url, () => this.client.create({ index: this.name.alias, id: key.id, document: key, refresh: true }));
  }

  async get(id: string): Promise<StoredApiKey | null> {
    return guarded(this.config.url, async () => (await unlessNotFound(this.client.get<StoredApiKey>({ index: this.name.alias, id }), null))?._source ?? null);
  }

  async list(): Promise<StoredApiKey[]> {
    return guarded(this.config.url, async () => {
      // Keys are few (operators create them by hand); 10,000 is the search window.
      const response = await this.client.search<StoredApiKey>({ index: this.name.alias, size: 10_000, sort: [{ created_at: "asc" }, { id: "asc" }] });
      return response.hits.hits.flatMap((hit) => (hit._source ? [hit._source] : []));
    });
  }

  async revoke(id: string, at: string): Promise<StoredApiKey | null> {
    const current = await this.get(id);
    if (!current) return null;
    if (current.revoked_at) return current;
    const revoked = { ...current, revoked_at: at };
    await guarded(this.config.url, () => this.client.index({ index: this.name.alias, id, document: revoked, refresh: true }));
    return revoked;
  }

  async countActive(): Promise<number> {
    return guarded(this.config.url, async () => {
      const response = await this.client.count({ index: this.name.alias, query: { bool: { must_not: { exists: { field: "revoked_at" } } } } });
      return response.count;
    });
  }

  async countAll(): Promise<number> {
    return guarded(this.config.url, async () => (await this.client.count({ index: this.name.alias })).count);
  }
}
