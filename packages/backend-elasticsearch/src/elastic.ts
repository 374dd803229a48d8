/** Small helpers around the client: error classification, index creation behind an alias. */
import { type Client, errors, type estypes } from "@elastic/elasticsearch";
import { OrgsimError } from "@orgsim/core";
import type { IndexName } from "./config";

export const statusOf = (error: unknown): number | undefined => (error instanceof errors.ResponseError ? error.statusCode : undefined);
export const isConflict = (error: unknown) => statusOf(error) === 409;
export const isNotFound = (error: unknown) => statusOf(error) === 404;

/** `type: reason` of an Elasticsearch error response, for messages. */
export function reasonOf(error: unknown): string {
  if (error instanceof errors.ResponseError) {
    const cause = (error.body as { error?: { type?: string; reason?: string; root_cause?: { type?: string; reason?: string }[] } } | undefined)?.error;
    const root = cause?.root_cause?.[0];
    if (cause?.type || root) return `${cause?.type ?? root?.type}: ${cause?.reason ?? root?.reason ?? ""}`.trim();
    return `HTTP ${error.statusCode}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Maps client errors to the contract's codes; OrgsimErrors pass through. */
export function toOrgsimError(error: unknown, url: string): Error {
  if (error instanceof OrgsimError) return error;
  if (
    error instanceof errors.ConnectionError ||
    error instanceof errors.TimeoutError ||
    error instanceof errors.NoLivingConnectionsError ||
    error instanceof errors.RequestAbortedError
  ) {
    return new OrgsimError("BACKEND_UNAVAILABLE", `Elasticsearch at ${url} is unavailable: ${error.message}`);
  }
  const status = statusOf(error);
  if (status === 429 || status === 502 || status === 503 || status === 504) {
    return new OrgsimError("BACKEND_UNAVAILABLE", `Elasticsearch at ${url} is overloaded or unavailable (${reasonOf(error)})`);
  }
  if (error instanceof errors.ElasticsearchClientError) {
    return new OrgsimError("INTERNAL", `Elasticsearch request failed: ${reasonOf(error)}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** Runs `fn`, reporting client errors as OrgsimErrors. */
export async function guarded<T>(url: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toOrgsimError(error, url);
  }
}

export interface IndexSpec {
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
}

/**
 * Creates `name.index` with `name.alias` pointing at it, unless the alias (or an index of that
 * name) already exists. Safe when several processes do it at once. Returns true when it created.
 */
export async function ensureIndex(client: Client, name: IndexName, spec: () => IndexSpec): Promise<boolean> {
  if (await client.indices.exists({ index: name.alias })) return false;
  const { settings, mappings } = spec();
  try {
    await client.indices.create({ index: name.index, aliases: { [name.alias]: {} }, settings, mappings, wait_for_active_shards: 1 });
    return true;
  } catch (error) {
    // Another process created it meanwhile.
    if (statusOf(error) === 400 && reasonOf(error).startsWith("resource_already_exists_exception")) {
      if (!(await client.indices.exists({ index: name.alias }))) {
        // The versioned index exists without its alias (say, removed by hand): point the alias at it again.
        await client.indices.putAlias({ index: name.index, name: name.alias });
      }
      return false;
    }
    throw error;
  }
}

/** Search-after over every hit of `query` in `index`, sorted by the unique keyword field `key`. */
export async function* scanIds(client: Client, index: string, query: estypes.QueryDslQueryContainer, key: string, batch = 1000): AsyncGenerator<string[]> {
  let after: estypes.SortResults | undefined;
  for (;;) {
    const response = await client.search({
      index,
      query,
      size: batch,
      sort: [{ [key]: "asc" }],
      _source: false,
      track_total_hits: false,
      ...(after ? { search_after: after } : {}),
    });
    const hits = response.hits.hits;
    if (hits.length === 0) return;
    yield hits.map((h) => h._id as string);
    after = hits.at(-1)?.sort;
    if (hits.length < batch || !after) return;
  }
}
