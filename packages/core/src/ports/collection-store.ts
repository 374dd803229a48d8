/** Port: where collections and their items live. Tenants isolate everything. */
import type { EntityType } from "../domain/metrics";
import type { Collection, CollectionItem, NewItem } from "../schemas/collections";

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface AddedItem {
  item: CollectionItem;
  /** False when the same entity was already in the collection (the existing item is returned). */
  created: boolean;
}

export interface CollectionStore {
  create(tenant: string, input: { name: string; description: string | null; entity_type: EntityType | null }): Promise<Collection>;
  list(tenant: string, page: { limit: number; cursor?: string }): Promise<Page<Collection>>;
  get(tenant: string, id: string): Promise<Collection | null>;
  update(tenant: string, id: string, patch: { name?: string; description?: string | null }): Promise<Collection | null>;
  /** Deletes the collection and its items; false when there was none. */
  delete(tenant: string, id: string): Promise<boolean>;
  /**
   * Adds items atomically: all or none. Must apply `assertItemTypes` from the core's
   * one-type rule inside the same atomic step that fixes the collection's type.
   * Returns null when the collection does not exist.
   */
  addItems(tenant: string, collectionId: string, items: NewItem[]): Promise<AddedItem[] | null>;
  listItems(tenant: string, collectionId: string, page: { limit: number; cursor?: string }): Promise<Page<CollectionItem> | null>;
  getItem(tenant: string, collectionId: string, itemId: string): Promise<CollectionItem | null>;
  updateItem(
    tenant: string,
    collectionId: string,
    itemId: string,
    patch: { notes?: string | null; tags?: string[]; entity?: Record<string, unknown> | null },
  ): Promise<CollectionItem | null>;
  deleteItem(tenant: string, collectionId: string, itemId: string): Promise<boolean>;
  close(): Promise<void>;
}
