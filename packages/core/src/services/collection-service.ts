/** Collections and items for one tenant; turns "absent" into NOT_FOUND and checks what a store cannot. */
import { OrgsimError } from "../errors";
import type { CollectionStore, Page } from "../ports/collection-store";
import type { OrganizationStore } from "../ports/organization-store";
import { type Collection, type CollectionItem, ENTITY_SNAPSHOTS, type NewItem } from "../schemas/collections";
import type { EntityType } from "../domain/metrics";

/** Items read at a time when collecting the organizations collections hold. */
const HELD_PAGE = 100;

export class CollectionService {
  constructor(
    private readonly store: CollectionStore,
    private readonly organizations: OrganizationStore,
  ) {}

  create(tenant: string, input: { name: string; description?: string | null; entity_type?: EntityType | null }): Promise<Collection> {
    return this.store.create(tenant, { name: input.name, description: input.description ?? null, entity_type: input.entity_type ?? null });
  }

  list(tenant: string, page: { limit: number; cursor?: string }): Promise<Page<Collection>> {
    return this.store.list(tenant, page);
  }

  async get(tenant: string, id: string): Promise<Collection> {
    return found(await this.store.get(tenant, id), "collection", id);
  }

  async update(tenant: string, id: string, patch: { name?: string; description?: string | null }): Promise<Collection> {
    return found(await this.store.update(tenant, id, patch), "collection", id);
  }

  async delete(tenant: string, id: string): Promise<void> {
    if (!(await this.store.delete(tenant, id))) throw OrgsimError.notFound("collection", id);
  }

  /** Adds one item; `created` is false when the entity was already there. */
  async add(tenant: string, id: string, item: NewItem): Promise<{ item: CollectionItem; created: boolean }> {
    const [added] = await this.addMany(tenant, id, [item]);
    return added as { item: CollectionItem; created: boolean };
  }

  /** Adds 1–1,000 items all or nothing (the one-type rule is applied by the store, atomically). */
  async addMany(tenant: string, id: string, items: NewItem[]) {
    await this.assertOrganizationsExist(items);
    return found(await this.store.addItems(tenant, id, items), "collection", id);
  }

  async listItems(tenant: string, id: string, page: { limit: number; cursor?: string }): Promise<Page<CollectionItem>> {
    return found(await this.store.listItems(tenant, id, page), "collection", id);
  }

  /**
   * The organizations the tenant's collections `ids` hold (their organization items; other types
   * hold none), for a search to leave out. A collection that is not the tenant's is NOT_FOUND.
   */
  async organizationIdsIn(tenant: string, ids: readonly string[]): Promise<number[]> {
    const held = new Set<number>();
    for (const id of new Set(ids)) {
      let cursor: string | undefined;
      do {
        const page = found(await this.store.listItems(tenant, id, { limit: HELD_PAGE, cursor }), "collection", id);
        for (const item of page.data) if (item.entity_type === "organization") held.add(Number(item.entity_id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
    }
    return [...held];
  }

  async getItem(tenant: string, id: string, itemId: string): Promise<CollectionItem> {
    await this.get(tenant, id);
    return found(await this.store.getItem(tenant, id, itemId), "item", itemId);
  }

  async updateItem(
    tenant: string,
    id: string,
    itemId: string,
    patch: { notes?: string | null; tags?: string[]; entity?: Record<string, unknown> | null },
  ): Promise<CollectionItem> {
    const current = await this.getItem(tenant, id, itemId);
    if (patch.entity) {
      const parsed = ENTITY_SNAPSHOTS[current.entity_type].safeParse(patch.entity);
      if (!parsed.success) {
        throw OrgsimError.validation(
          parsed.error.issues.map((i) => ({ path: ["entity", ...i.path.map(String)], message: `${i.message} (for a ${current.entity_type})` })),
        );
      }
    }
    return found(await this.store.updateItem(tenant, id, itemId, patch), "item", itemId);
  }

  async deleteItem(tenant: string, id: string, itemId: string): Promise<void> {
    await this.get(tenant, id);
    if (!(await this.store.deleteItem(tenant, id, itemId))) throw OrgsimError.notFound("item", itemId);
  }

  /** An organization item must name an organization the service knows. */
  private async assertOrganizationsExist(items: NewItem[]) {
    const wanted = items.flatMap((item, index) => (item.entity_type === "organization" ? [{ index, id: Number(item.entity_id) }] : []));
    if (wanted.length === 0) return;
    const known = new Set((await this.organizations.getMany(wanted.map((w) => w.id))).map((o) => o.id));
    const missing = wanted.filter((w) => !known.has(w.id));
    if (missing.length > 0) {
      const error = OrgsimError.validation(
        missing.map((m) => ({ path: items.length > 1 ? ["items", m.index, "entity_id"] : ["entity_id"], message: `organization ${m.id} does not exist` })),
      );
      error.details.failing_indexes = missing.map((m) => m.index);
      throw error;
    }
  }
}

function found<T>(value: T | null, what: string, id: string): T {
  if (value === null) throw OrgsimError.notFound(what, id);
  return value;
}
