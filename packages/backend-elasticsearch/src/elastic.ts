/** Small helpers around the client: index creation behind an alias, id scans (error mapping: errors.ts). */
import type { Client, estypes } from "@elastic/elasticsearch";
import type { IndexName } from "./config";
import { reasonOf, statusOf } from "./errors";

export { guarded, reasonOf, statusOf, toOrgsimError } from "./errors";

export const isConflict = (error: unknown) => statusOf(error) === 409;
export const isNotFound = (error: unknown) => statusOf(error) === 404;

/** The answer to `request`, or `absent` when Elasticsearch answers 404 (no such document or index). */
export async function unlessNotFound<T, A>(request: Promise<T>, absent: A): Promise<T | A> {
  try {
    return await request;
  } catch (error) {
    if (isNotFound(error)) return absent;
    throw error;
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
