/** CollectionStore on SQLite. Every query is scoped by tenant: another tenant's collection is simply absent. */
import { randomBytes } from "node:crypto";
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
  type NewItem,
  type Page,
} from "@orgsim/core";
import type { Db } from "./database";
import { guarded } from "./errors";

interface CollectionRow extends Omit<Collection, "entity_type"> {
  tenant: string;
  entity_type: EntityType | null;
}
interface ItemRow extends Omit<CollectionItem, "entity" | "tags"> {
  entity: string | null;
  tags: string;
}
/** Before every (created_at, id): the first page. */
const START: KeysetPosition = ["", ""];

const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString("base64url")}`;
const now = () => new Date().toISOString();

function toCollection({ tenant, ...row }: CollectionRow): Collection {
  return row;
}
function toItem(row: ItemRow): CollectionItem {
  return { ...row, entity: row.entity === null ? null : JSON.parse(row.entity), tags: JSON.parse(row.tags) };
}

export class SqliteCollectionStore implements CollectionStore {
  private readonly sql;
  private readonly addTransaction;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly onClose: () => void = () => db.close(),
  ) {
    const item = "SELECT i.* FROM collection_items i JOIN collections c ON c.id = i.collection_id";
    this.sql = {
      collection: db.prepare<[string, string], CollectionRow>("SELECT * FROM collections WHERE id = ? AND tenant = ?"),
      collections: db.prepare<[string, string, string, number], CollectionRow>(
        "SELECT * FROM collections WHERE tenant = ? AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?",
      ),
      insertCollection: db.prepare(
        "INSERT INTO collections (id, tenant, name, description, entity_type, created_at, updated_at) VALUES (@id, @tenant, @name, @description, @entity_type, @created_at, @updated_at)",
      ),
      renameCollection: db.prepare("UPDATE collections SET name = @name, description = @description, updated_at = @updated_at WHERE id = @id"),
      deleteCollection: db.prepare<[string]>("DELETE FROM collections WHERE id = ?"),
      deleteItems: db.prepare<[string]>("DELETE FROM collection_items WHERE collection_id = ?"),
      countItems: db.prepare<[number, string, string]>("UPDATE collections SET item_count = item_count + ?, updated_at = ? WHERE id = ?"),
      setType: db.prepare<[EntityType, string]>("UPDATE collections SET entity_type = ? WHERE id = ? AND entity_type IS NULL"),
      itemByEntity: db.prepare<[string, string], ItemRow>("SELECT * FROM collection_items WHERE collection_id = ? AND entity_id = ?"),
      insertItem: db.prepare(
        `INSERT INTO collection_items (id, collection_id, entity_type, entity_id, entity, notes, tags, created_at, updated_at)
         VALUES (@id, @collection_id, @entity_type, @entity_id, @entity, @notes, @tags, @created_at, @updated_at)`,
      ),
      items: db.prepare<[string, string, string, number], ItemRow>(
        "SELECT * FROM collection_items WHERE collection_id = ? AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?",
      ),
      item: db.prepare<[string, string, string], ItemRow>(`${item} WHERE i.id = ? AND i.collection_id = ? AND c.tenant = ?`),
      updateItem: db.prepare("UPDATE collection_items SET notes = @notes, tags = @tags, entity = @entity, updated_at = @updated_at WHERE id = @id"),
      deleteItem: db.prepare<[string]>("DELETE FROM collection_items WHERE id = ?"),
    };
    // BEGIN IMMEDIATE: the type check and the writes run under the write lock, so
    // concurrent first items (from any connection or process) serialize and one type wins.
    this.addTransaction = db.transaction((tenant: string, collectionId: string, items: NewItem[]) => this.addLocked(tenant, collectionId, items));
  }

  async create(tenant: string, input: { name: string; description: string | null; entity_type: EntityType | null }): Promise<Collection> {
    return guarded(async () => {
      const time = now();
      const row: CollectionRow = {
        id: newId("col"),
        tenant,
        name: input.name,
        description: input.description,
        entity_type: input.entity_type,
        item_count: 0,
        created_at: time,
        updated_at: time,
      };
      this.sql.insertCollection.run(row);
      return toCollection(row);
    });
  }

  async list(tenant: string, page: { limit: number; cursor?: string }): Promise<Page<Collection>> {
    return guarded(() =>
      keysetPage(
        ["collections", tenant],
        page,
        (after, limit) => this.sql.collections.all(tenant, ...(after ?? START), limit),
        (rows) => rows.map(toCollection),
      ),
    );
  }

  async get(tenant: string, id: string): Promise<Collection | null> {
    return guarded(async () => {
      const row = this.sql.collection.get(id, tenant);
      return row ? toCollection(row) : null;
    });
  }

  async update(tenant: string, id: string, patch: { name?: string; description?: string | null }): Promise<Collection | null> {
    return guarded(async () => {
      return this.db
        .transaction(() => {
          const row = this.sql.collection.get(id, tenant);
          if (!row) return null;
          const next = {
            ...row,
            name: patch.name ?? row.name,
            description: patch.description !== undefined ? patch.description : row.description,
            updated_at: now(),
          };
          this.sql.renameCollection.run(next);
          return toCollection(next);
        })
        .immediate();
    });
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    return guarded(async () => {
      return this.db
        .transaction(() => {
          if (!this.sql.collection.get(id, tenant)) return false;
          this.sql.deleteItems.run(id);
          this.sql.deleteCollection.run(id);
          return true;
        })
        .immediate();
    });
  }

  async addItems(tenant: string, collectionId: string, items: NewItem[]): Promise<AddedItem[] | null> {
    return guarded(() => this.addTransaction.immediate(tenant, collectionId, items));
  }

  async listItems(tenant: string, collectionId: string, page: { limit: number; cursor?: string }): Promise<Page<CollectionItem> | null> {
    return guarded(async () => {
      if (!this.sql.collection.get(collectionId, tenant)) return null;
      // The fingerprint binds the cursor to this tenant and collection.
      return keysetPage(
        ["items", tenant, collectionId],
        page,
        (after, limit) => this.sql.items.all(collectionId, ...(after ?? START), limit),
        (rows) => rows.map(toItem),
      );
    });
  }

  async getItem(tenant: string, collectionId: string, itemId: string): Promise<CollectionItem | null> {
    return guarded(async () => {
      const row = this.sql.item.get(itemId, collectionId, tenant);
      return row ? toItem(row) : null;
    });
  }

  async updateItem(
    tenant: string,
    collectionId: string,
    itemId: string,
    patch: { notes?: string | null; tags?: string[]; entity?: Record<string, unknown> | null },
  ): Promise<CollectionItem | null> {
    return guarded(async () => {
      return this.db
        .transaction(() => {
          const row = this.sql.item.get(itemId, collectionId, tenant);
          if (!row) return null;
          const next: ItemRow = {
            ...row,
            notes: patch.notes !== undefined ? patch.notes : row.notes,
            tags: patch.tags !== undefined ? JSON.stringify(patch.tags) : row.tags,
            entity: patch.entity !== undefined ? (patch.entity === null ? null : JSON.stringify(patch.entity)) : row.entity,
            updated_at: now(),
          };
          this.sql.updateItem.run(next);
          return toItem(next);
        })
        .immediate();
    });
  }

  async deleteItem(tenant: string, collectionId: string, itemId: string): Promise<boolean> {
    return guarded(async () => {
      return this.db
        .transaction(() => {
          if (!this.sql.item.get(itemId, collectionId, tenant)) return false;
          this.sql.deleteItem.run(itemId);
          this.sql.countItems.run(-1, now(), collectionId);
          return true;
        })
        .immediate();
    });
  }

  async close(): Promise<void> {
    return guarded(async () => {
      if (this.closed) return;
      this.closed = true;
      this.onClose();
    });
  }

  /** Runs inside addTransaction: check the one-type rule, fix the type, write; any throw rolls all back. */
  private addLocked(tenant: string, collectionId: string, items: NewItem[]): AddedItem[] | null {
    const collection = this.sql.collection.get(collectionId, tenant);
    if (!collection) return null;
    if (items.length === 0) return [];
    const type = assertItemTypes(
      collection.entity_type,
      items.map((i) => i.entity_type),
    );
    if (collection.entity_type === null) this.sql.setType.run(type, collectionId);

    const time = now();
    let created = 0;
    const added = items.map((item): AddedItem => {
      // Same entity again (already stored, or earlier in this batch): hand back the stored item.
      const existing = this.sql.itemByEntity.get(collectionId, item.entity_id);
      if (existing) return { item: toItem(existing), created: false };
      const row: ItemRow = {
        id: newId("itm"),
        collection_id: collectionId,
        entity_type: item.entity_type,
        entity_id: item.entity_id,
        entity: item.entity ? JSON.stringify(item.entity) : null,
        notes: item.notes ?? null,
        tags: JSON.stringify(item.tags ?? []),
        created_at: time,
        updated_at: time,
      };
      this.sql.insertItem.run(row);
      created++;
      return { item: toItem(row), created: true };
    });
    assertCollectionCapacity(collection.item_count, created);
    if (created > 0) this.sql.countItems.run(created, time, collectionId);
    return added;
  }
}
