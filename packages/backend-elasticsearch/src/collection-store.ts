/**
 * CollectionStore on Elasticsearch: collections in `<prefix>-collections-v1`, items in
 * `<prefix>-items-v1` (each behind its alias). Every read and write is scoped by tenant: another
 * tenant's collection is simply absent.
 *
 * The one-type rule holds under concurrency through optimistic concurrency control, never
 * check-then-write: a collection's `entity_type` only ever goes from null to a type, through an
 * `index` conditioned on the `_seq_no`/`_primary_term` read together with the null (a conflict
 * re-reads and re-checks), and items are written only after their type was read as, or made, the
 * collection's type. Since the type never changes once set, no item of another type can be stored.
 *
 * A first add fixes the type before its items are written, so a killed server could leave an empty
 * collection typed. The type it fixes is therefore a claim (`type_claimed_at`), confirmed when its
 * items are written: a claim with no item that is older than `typeClaimMs` counts as no type (reads
 * show null, adds may claim again), a failed first add releases its claim at once, and an add that
 * relied on a claim checks, once its items are written, that the type is still its own.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Client, estypes } from "@elastic/elasticsearch";
import {
  type AddedItem,
  assertCollectionCapacity,
  assertItemTypes,
  type Collection,
  type CollectionItem,
  type CollectionStore,
  type EntityType,
  type KeysetPosition,
  keysetPage,
  MAX_ITEMS_PER_COLLECTION,
  type NewItem,
  OrgsimError,
  type Page,
} from "@orgsim/core";
import type { IndexName, ResolvedConfig } from "./config";
import { ensureIndex, isConflict, isNotFound, scanIds, unlessNotFound } from "./elastic";
import { guarded, UNAVAILABLE_STATUSES } from "./errors";

/** Attempts of the read-check-write step of addItems before giving up with CONFLICT. */
const MAX_ATTEMPTS = 50;

interface CollectionDoc {
  id: string;
  tenant: string;
  name: string;
  description: string | null;
  entity_type: EntityType | null;
  /** Set while the type is a first add's claim (its items not yet confirmed); absent or null once fixed. */
  type_claimed_at?: string | null;
  created_at: string;
  updated_at: string;
}
interface ItemDoc extends CollectionItem {
  tenant: string;
}
interface Versioned<T> {
  doc: T;
  seqNo: number;
  primaryTerm: number;
}

const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString("base64url")}`;
const now = () => new Date().toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An item's id follows from its collection and entity, so adding the same entity twice, even from
 * two processes at once, targets one document (`op_type=create` lets only one write it).
 */
export function itemIdOf(collectionId: string, entityId: string): string {
  return `itm_${createHash("sha256").update(collectionId).update("\0").update(entityId).digest("base64url").slice(0, 22)}`;
}

const keyword = { type: "keyword" } as const;
const unindexedText = { type: "text", index: false } as const;

export const COLLECTION_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: "strict",
  _meta: { orgsim_schema: 1 },
  properties: {
    id: keyword,
    tenant: keyword,
    name: unindexedText,
    description: unindexedText,
    entity_type: keyword,
    type_claimed_at: keyword,
    // ISO-8601 UTC strings: keyword order is time order, and equals the embedded store's bytewise order.
    created_at: keyword,
    updated_at: keyword,
  },
};

export const ITEM_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: "strict",
  _meta: { orgsim_schema: 1 },
  properties: {
    id: keyword,
    tenant: keyword,
    collection_id: keyword,
    entity_type: keyword,
    entity_id: keyword,
    entity: { type: "object", enabled: false },
    notes: unindexedText,
    tags: keyword,
    created_at: keyword,
    updated_at: keyword,
  },
};

function toCollection(doc: CollectionDoc, entityType: EntityType | null, itemCount: number): Collection {
  return {
    id: doc.id,
    name: doc.name,
    description: doc.description,
    entity_type: entityType,
    item_count: itemCount,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}

function toItem(doc: ItemDoc): CollectionItem {
  return {
    id: doc.id,
    collection_id: doc.collection_id,
    entity_type: doc.entity_type,
    entity_id: doc.entity_id,
    entity: doc.entity ?? null,
    notes: doc.notes ?? null,
    tags: doc.tags ?? [],
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}

/** The item documents of a batch, one per entity: within the batch the first occurrence counts. */
function itemDocsOf(tenant: string, collectionId: string, items: NewItem[], time: string): Map<string, ItemDoc> {
  const wanted = new Map<string, ItemDoc>();
  for (const item of items) {
    const id = itemIdOf(collectionId, item.entity_id);
    if (wanted.has(id)) continue;
    wanted.set(id, {
      id,
      tenant,
      collection_id: collectionId,
      entity_type: item.entity_type,
      entity_id: item.entity_id,
      entity: item.entity ?? null,
      notes: item.notes ?? null,
      tags: item.tags ?? [],
      created_at: time,
      updated_at: time,
    });
  }
  return wanted;
}

/** An item of a batch that Elasticsearch refused (other than for a race). */
interface RefusedItem {
  id: string;
  status: number | undefined;
  text: string;
}

/** The error for a batch of items Elasticsearch refused in part (and that was taken back). */
function refusedItemsError(failures: RefusedItem[]): OrgsimError {
  if (failures.every((f) => UNAVAILABLE_STATUSES.has(f.status ?? 0))) {
    return new OrgsimError(
      "BACKEND_UNAVAILABLE",
      `Elasticsearch is overloaded and refused ${failures.length} items (HTTP ${failures[0]?.status}); nothing was added; retry shortly`,
      {
        backend: "elasticsearch",
        reason: "overloaded",
      },
    );
  }
  // The reasons are Elasticsearch's internals: for the log, not the caller.
  console.error(`orgsim: Elasticsearch refused items ${failures.map((f) => f.text).join(", ")}; none was added`);
  return new OrgsimError("INTERNAL", `Elasticsearch refused ${failures.length} items (first: ${failures[0]?.id}); nothing was added`);
}

export class ElasticsearchCollectionStore implements CollectionStore {
  private closed = false;

  constructor(
    private readonly client: Client,
    private readonly config: ResolvedConfig,
    private readonly names: { collections: IndexName; items: IndexName },
    private readonly onClose: () => Promise<void> = () => client.close(),
  ) {}

  /** Creates both indices when missing. */
  async init(): Promise<void> {
    const settings = { number_of_shards: this.config.shards, number_of_replicas: this.config.replicas };
    await guarded(this.config.url, async () => {
      await ensureIndex(this.client, this.names.collections, () => ({ settings, mappings: COLLECTION_MAPPINGS }));
      await ensureIndex(this.client, this.names.items, () => ({ settings, mappings: ITEM_MAPPINGS }));
      // Indices made before type claims existed get the field (adding a field is idempotent).
      await this.client.indices.putMapping({ index: this.names.collections.alias, properties: { type_claimed_at: keyword } });
    });
  }

  /**
   * The collection's type as the contract sees it: a claim with no item, older than any add in
   * flight would take, was left by an interrupted first add, so the collection is untyped.
   */
  private typeOf(doc: CollectionDoc, itemCount: number): EntityType | null {
    if (doc.entity_type === null || !doc.type_claimed_at || itemCount > 0) return doc.entity_type;
    return Date.now() - Date.parse(doc.type_claimed_at) < this.config.typeClaimMs ? doc.entity_type : null;
  }

  async create(tenant: string, input: { name: string; description: string | null; entity_type: EntityType | null }): Promise<Collection> {
    const time = now();
    const doc: CollectionDoc = {
      id: newId("col"),
      tenant,
      name: input.name,
      description: input.description,
      entity_type: input.entity_type,
      created_at: time,
      updated_at: time,
    };
    return guarded(this.config.url, async () => {
      await this.client.create({ index: this.names.collections.alias, id: doc.id, document: doc, refresh: this.config.refresh });
      return toCollection(doc, doc.entity_type, 0);
    });
  }

  async list(tenant: string, page: { limit: number; cursor?: string }): Promise<Page<Collection>> {
    return guarded(this.config.url, () =>
      keysetPage(
        ["collections", tenant],
        page,
        (after, limit) => this.pageRows<CollectionDoc>(this.names.collections.alias, [{ term: { tenant } }], after, limit),
        async (docs) => {
          const counts = await this.countItems(docs.map((d) => d.id));
          return docs.map((d) => toCollection(d, this.typeOf(d, counts.get(d.id) ?? 0), counts.get(d.id) ?? 0));
        },
      ),
    );
  }

  async get(tenant: string, id: string): Promise<Collection | null> {
    return guarded(this.config.url, async () => {
      const current = await this.readCollection(tenant, id);
      return current ? this.withCount(current.doc) : null;
    });
  }

  async update(tenant: string, id: string, patch: { name?: string; description?: string | null }): Promise<Collection | null> {
    return guarded(this.config.url, async () => {
      if (!(await this.readCollection(tenant, id))) return null;
      const changes: Partial<CollectionDoc> = { updated_at: now() };
      if (patch.name !== undefined) changes.name = patch.name;
      if (patch.description !== undefined) changes.description = patch.description;
      // A partial update (merged on the shard, under its own version check) never touches entity_type.
      const request = this.client.update<CollectionDoc, Partial<CollectionDoc>>({
        index: this.names.collections.alias,
        id,
        doc: changes,
        retry_on_conflict: 10,
        refresh: this.config.refresh,
        _source: true,
      });
      const doc = (await unlessNotFound(request, null))?.get?._source as CollectionDoc | undefined;
      return doc ? this.withCount(doc) : null;
    });
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    return guarded(this.config.url, async () => {
      const current = await this.readCollection(tenant, id);
      if (!current) return false;
      // The collection first: from then on addItems finds no collection (and one already past its
      // check takes its own items back, see writeItems), then every item, in pages of ids.
      if (!(await unlessNotFound(this.client.delete({ index: this.names.collections.alias, id, refresh: this.config.refresh }), null))) return false;
      await this.deleteItemsOf(id);
      return true;
    });
  }

  async addItems(tenant: string, collectionId: string, items: NewItem[]): Promise<AddedItem[] | null> {
    return guarded(this.config.url, async () => {
      for (let attempt = 1; ; attempt++) {
        const current = await this.readCollection(tenant, collectionId);
        if (!current) return null;
        if (items.length === 0) return [];
        const isClaim = current.doc.entity_type !== null && !!current.doc.type_claimed_at;
        const currentType = isClaim ? this.typeOf(current.doc, await this.itemCount(collectionId)) : current.doc.entity_type;
        // The whole batch is checked before anything is written: a mismatch writes nothing.
        const type = assertItemTypes(
          currentType,
          items.map((i) => i.entity_type),
        );
        let claim: Versioned<CollectionDoc> | null = null;
        if (currentType === null) {
          const doc: CollectionDoc = { ...current.doc, entity_type: type, type_claimed_at: now() };
          try {
            // Claim the type only if the collection is still exactly the version read (untyped, or an expired claim).
            const response = await this.client.index({
              index: this.names.collections.alias,
              id: collectionId,
              document: doc,
              if_seq_no: current.seqNo,
              if_primary_term: current.primaryTerm,
              refresh: this.config.refresh,
            });
            claim = { doc, seqNo: response._seq_no as number, primaryTerm: response._primary_term as number };
          } catch (error) {
            if (!isConflict(error)) throw error;
            // Someone changed the collection since we read it (perhaps fixing another type): read and check again.
            if (attempt >= MAX_ATTEMPTS) throw new OrgsimError("CONFLICT", `Collection ${collectionId} is being changed by many requests at once; retry`);
            await sleep(Math.min(50, attempt * 2) * Math.random());
            continue;
          }
        }
        let added: AddedItem[] | null | "type changed";
        try {
          added = await this.writeItems(tenant, collectionId, items, { type, onClaim: isClaim || claim !== null });
        } catch (error) {
          // A first add that failed gives its claim up at once (the failure, not the release's, is reported).
          if (claim) await this.releaseClaim(collectionId, claim).catch(() => {});
          throw error;
        }
        if (added !== "type changed") return added;
        if (attempt >= MAX_ATTEMPTS) throw new OrgsimError("CONFLICT", `Collection ${collectionId} is being changed by many requests at once; retry`);
      }
    });
  }

  /**
   * Gives up a claim nobody built on (the collection unchanged since) by expiring it, the type kept:
   * with no item the collection then reads as untyped; with items the failed add wrote before it
   * failed, their type stands (clearing it would let another type in beside them).
   */
  private async releaseClaim(collectionId: string, claim: Versioned<CollectionDoc>): Promise<void> {
    try {
      await this.client.index({
        index: this.names.collections.alias,
        id: collectionId,
        document: { ...claim.doc, type_claimed_at: new Date(0).toISOString() },
        if_seq_no: claim.seqNo,
        if_primary_term: claim.primaryTerm,
        refresh: this.config.refresh,
      });
    } catch (error) {
      // Changed meanwhile: another add of the type wrote items (and confirmed it), or it was deleted.
      if (!isConflict(error) && !isNotFound(error)) throw error;
    }
  }

  async listItems(tenant: string, collectionId: string, page: { limit: number; cursor?: string }): Promise<Page<CollectionItem> | null> {
    return guarded(this.config.url, async () => {
      if (!(await this.readCollection(tenant, collectionId))) return null;
      // The fingerprint binds the cursor to this tenant and collection.
      const filter = [{ term: { collection_id: collectionId } }, { term: { tenant } }];
      return keysetPage(
        ["items", tenant, collectionId],
        page,
        (after, limit) => this.pageRows<ItemDoc>(this.names.items.alias, filter, after, limit),
        (docs) => docs.map(toItem),
      );
    });
  }

  async getItem(tenant: string, collectionId: string, itemId: string): Promise<CollectionItem | null> {
    return guarded(this.config.url, async () => {
      const current = await this.readItem(tenant, collectionId, itemId);
      return current ? toItem(current.doc) : null;
    });
  }

  async updateItem(
    tenant: string,
    collectionId: string,
    itemId: string,
    patch: { notes?: string | null; tags?: string[]; entity?: Record<string, unknown> | null },
  ): Promise<CollectionItem | null> {
    return guarded(this.config.url, async () => {
      for (let attempt = 1; ; attempt++) {
        const current = await this.readItem(tenant, collectionId, itemId);
        if (!current) return null;
        // The whole document, conditioned on the version read (a partial update would merge `entity`, not replace it).
        const next: ItemDoc = {
          ...current.doc,
          notes: patch.notes !== undefined ? patch.notes : current.doc.notes,
          tags: patch.tags !== undefined ? patch.tags : current.doc.tags,
          entity: patch.entity !== undefined ? patch.entity : current.doc.entity,
          updated_at: now(),
        };
        try {
          await this.client.index({
            index: this.names.items.alias,
            id: itemId,
            document: next,
            if_seq_no: current.seqNo,
            if_primary_term: current.primaryTerm,
            refresh: this.config.refresh,
          });
          return toItem(next);
        } catch (error) {
          if (!isConflict(error)) throw error;
          if (attempt >= MAX_ATTEMPTS) throw new OrgsimError("CONFLICT", `Item ${itemId} is being changed by many requests at once; retry`);
          await sleep(Math.min(50, attempt * 2) * Math.random());
        }
      }
    });
  }

  async deleteItem(tenant: string, collectionId: string, itemId: string): Promise<boolean> {
    return guarded(this.config.url, async () => {
      if (!(await this.readItem(tenant, collectionId, itemId))) return false;
      if (!(await unlessNotFound(this.client.delete({ index: this.names.items.alias, id: itemId, refresh: this.config.refresh }), null))) return false;
      await this.touch(collectionId, now());
      return true;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.onClose();
  }

  /**
   * Writes the items of a batch already checked against the collection's type. On a claimed type
   * (`onClaim`) it checks, once its items are written, that the type is still `type` (a claim
   * expired and taken by another type: its items are taken back, "type changed"), then confirms it.
   */
  private async writeItems(
    tenant: string,
    collectionId: string,
    items: NewItem[],
    check: { type: EntityType; onClaim: boolean },
  ): Promise<AddedItem[] | null | "type changed"> {
    const time = now();
    const wanted = itemDocsOf(tenant, collectionId, items, time);
    const stored = await this.readItems([...wanted.keys()]);
    const fresh = [...wanted.values()].filter((doc) => !stored.has(doc.id));
    let created = new Set<string>();
    if (fresh.length > 0) {
      assertCollectionCapacity(await this.itemCount(collectionId), fresh.length);
      const outcome = await this.createItems(fresh);
      created = outcome.created;
      for (const [id, doc] of await this.readItems(outcome.raced)) stored.set(id, doc);
      const kept = await this.keepCreated(tenant, collectionId, [...created], check, time);
      if (kept !== "kept") return kept;
    }
    const handedOut = new Set<string>();
    return items.map((item) => {
      const id = itemIdOf(collectionId, item.entity_id);
      const isNew = created.has(id) && !handedOut.has(id);
      handedOut.add(id);
      const doc = created.has(id) ? wanted.get(id) : stored.get(id);
      if (!doc) throw new OrgsimError("INTERNAL", `Item ${id} of collection ${collectionId} vanished while being added; retry`);
      return { item: toItem(doc), created: isNew };
    });
  }

  /**
   * Creates the `fresh` items with op_type=create: an item someone else wrote meanwhile answers
   * 409 (`raced`) and stays as it is. Any other refusal takes back what was created, and throws.
   */
  private async createItems(fresh: ItemDoc[]): Promise<{ created: Set<string>; raced: string[] }> {
    const response = await this.client.bulk({
      operations: fresh.flatMap((doc) => [{ create: { _index: this.names.items.alias, _id: doc.id } }, doc]),
      refresh: this.config.refresh,
    });
    const created = new Set<string>();
    const raced: string[] = [];
    const failures: RefusedItem[] = [];
    response.items.forEach((result, i) => {
      const id = (fresh[i] as ItemDoc).id;
      const outcome = result.create;
      if (outcome?.status === 201) created.add(id);
      else if (outcome?.status === 409) raced.push(id);
      else failures.push({ id, status: outcome?.status, text: `${id}: ${outcome?.error?.type ?? outcome?.status}: ${outcome?.error?.reason ?? ""}` });
    });
    if (failures.length > 0) {
      await this.removeItems([...created]);
      throw refusedItemsError(failures);
    }
    return { created, raced };
  }

  /**
   * The checks once the `created` items are written, which are taken back when one fails: the
   * claimed type is still this batch's ("type changed" otherwise), the collection is not over
   * capacity, and it still exists (null otherwise).
   */
  private async keepCreated(
    tenant: string,
    collectionId: string,
    created: string[],
    check: { type: EntityType; onClaim: boolean },
    time: string,
  ): Promise<"kept" | "type changed" | null> {
    if (created.length === 0) return "kept";
    const outcome = await this.settleCreated(tenant, collectionId, created.length, check, time).catch(async (error) => {
      await this.removeItems(created);
      throw error;
    });
    if (outcome !== "kept") await this.removeItems(created);
    return outcome;
  }

  private async settleCreated(
    tenant: string,
    collectionId: string,
    createdCount: number,
    check: { type: EntityType; onClaim: boolean },
    time: string,
  ): Promise<"kept" | "type changed" | null> {
    for (let attempt = 1; ; attempt++) {
      const latest = check.onClaim ? await this.readCollection(tenant, collectionId) : undefined;
      if (latest === null) return null;
      if (latest && latest.doc.entity_type !== check.type) return "type changed";
      // Concurrent requests may all have passed the capacity check before writing. Each counts again once
      // its own items are visible: of two that overfill the collection, the later one sees both
      // and takes its items back (both may, and then both are refused: a retry succeeds).
      const total = await this.itemCount(collectionId);
      if (total > MAX_ITEMS_PER_COLLECTION) assertCollectionCapacity(total - createdCount, createdCount);
      // The collection may have been deleted since we read it: then its items go too.
      if (!latest) return (await this.touch(collectionId, time)) ? "kept" : null;
      const confirmed = await this.confirmType(collectionId, latest, time);
      if (confirmed !== "changed") return confirmed;
      if (attempt >= MAX_ATTEMPTS) throw new OrgsimError("CONFLICT", `Collection ${collectionId} is being changed by many requests at once; retry`);
    }
  }

  /**
   * Ends a claim: the type becomes fixed, on the very version whose type was checked ("changed"
   * when the collection changed since, so the caller checks again), or null when it is gone.
   */
  private async confirmType(collectionId: string, checked: Versioned<CollectionDoc>, time: string): Promise<"kept" | "changed" | null> {
    try {
      await this.client.index({
        index: this.names.collections.alias,
        id: collectionId,
        document: { ...checked.doc, type_claimed_at: null, updated_at: time },
        if_seq_no: checked.seqNo,
        if_primary_term: checked.primaryTerm,
        refresh: this.config.refresh,
      });
      return "kept";
    } catch (error) {
      if (isNotFound(error)) return null;
      if (isConflict(error)) return "changed";
      throw error;
    }
  }

  /** The collection with its `_seq_no`/`_primary_term` (a realtime GET), or null when absent for this tenant. */
  private async readCollection(tenant: string, id: string): Promise<Versioned<CollectionDoc> | null> {
    const response = await unlessNotFound(this.client.get<CollectionDoc>({ index: this.names.collections.alias, id }), null);
    const doc = response?._source;
    if (!response?.found || !doc || doc.tenant !== tenant) return null;
    return { doc, seqNo: response._seq_no as number, primaryTerm: response._primary_term as number };
  }

  private async readItem(tenant: string, collectionId: string, itemId: string): Promise<Versioned<ItemDoc> | null> {
    if (!/^itm_[A-Za-z0-9_-]{1,64}$/.test(itemId)) return null;
    const response = await unlessNotFound(this.client.get<ItemDoc>({ index: this.names.items.alias, id: itemId }), null);
    const doc = response?._source;
    if (!response?.found || !doc || doc.tenant !== tenant || doc.collection_id !== collectionId) return null;
    return { doc, seqNo: response._seq_no as number, primaryTerm: response._primary_term as number };
  }

  private async readItems(ids: string[]): Promise<Map<string, ItemDoc>> {
    const found = new Map<string, ItemDoc>();
    if (ids.length === 0) return found;
    const response = await this.client.mget<ItemDoc>({ index: this.names.items.alias, ids });
    for (const d of response.docs) if ("found" in d && d.found && d._source) found.set(d._id, d._source);
    return found;
  }

  /**
   * item_count is counted from the items index when read, never kept as a counter: a counter
   * updated after the item writes could be left wrong by a crash or a lost race between the two
   * writes, while the count of refreshed item documents always equals what is stored (every item
   * write refreshes before it returns).
   */
  private async countItems(collectionIds: string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (collectionIds.length === 0) return counts;
    if (collectionIds.length === 1) {
      const id = collectionIds[0] as string;
      counts.set(id, (await this.client.count({ index: this.names.items.alias, query: { term: { collection_id: id } } })).count);
      return counts;
    }
    const response = await this.client.search<unknown, { by_collection: estypes.AggregationsStringTermsAggregate }>({
      index: this.names.items.alias,
      size: 0,
      track_total_hits: false,
      query: { terms: { collection_id: collectionIds } },
      aggs: { by_collection: { terms: { field: "collection_id", size: collectionIds.length } } },
    });
    const buckets = response.aggregations?.by_collection.buckets;
    for (const bucket of Array.isArray(buckets) ? buckets : []) counts.set(String(bucket.key), bucket.doc_count);
    return counts;
  }

  private async withCount(doc: CollectionDoc): Promise<Collection> {
    const count = await this.itemCount(doc.id);
    return toCollection(doc, this.typeOf(doc, count), count);
  }

  private async itemCount(collectionId: string): Promise<number> {
    return (await this.countItems([collectionId])).get(collectionId) ?? 0;
  }

  /**
   * Sets the collection's updated_at (a partial update, which never touches entity_type); false
   * when the collection is gone. Losing a version race to concurrent writers is fine: one of them
   * set about the same time, and a conflict proves the collection still exists.
   */
  private async touch(collectionId: string, time: string): Promise<boolean> {
    try {
      await this.client.update({
        index: this.names.collections.alias,
        id: collectionId,
        doc: { updated_at: time },
        retry_on_conflict: 3,
        refresh: this.config.refresh,
      });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      if (isConflict(error)) return true;
      throw error;
    }
  }

  private async removeItems(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.client.bulk({ operations: ids.map((id) => ({ delete: { _index: this.names.items.alias, _id: id } })), refresh: this.config.refresh });
  }

  /** Deletes every item of a collection without `_delete_by_query`: ids by search_after, then bulk deletes. */
  private async deleteItemsOf(collectionId: string): Promise<void> {
    for await (const ids of scanIds(this.client, this.names.items.alias, { term: { collection_id: collectionId } }, "id")) {
      await this.client.bulk({ operations: ids.map((id) => ({ delete: { _index: this.names.items.alias, _id: id } })) });
    }
    await this.client.indices.refresh({ index: this.names.items.alias });
  }

  /** Up to `limit` documents of `index` matching `filter` after `after`, in (created_at, id) order (keysetPage's rows). */
  private async pageRows<D extends { created_at: string; id: string }>(
    index: string,
    filter: estypes.QueryDslQueryContainer[],
    after: KeysetPosition | null,
    limit: number,
  ): Promise<D[]> {
    const response = await this.client.search<D>({
      index,
      query: { bool: { filter } },
      sort: [{ created_at: "asc" }, { id: "asc" }],
      size: limit,
      track_total_hits: false,
      ...(after ? { search_after: after } : {}),
    });
    return response.hits.hits.flatMap((h) => (h._source ? [h._source] : []));
  }
}
