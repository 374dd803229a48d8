/**
 * Exports a collection: every item, page by page from the store, organization items joined with
 * the organization as it is now (fetched a page at a time). Never holds the whole collection:
 * a page of items is read, joined, written, then the next (a collection holds up to 100,000).
 * Transports only copy the chunks out (REST), or hand the pages on (tRPC, MCP).
 */
import type { Page } from "../ports/collection-store";
import type { OrganizationStore } from "../ports/organization-store";
import type { ExportedItem, ExportFormat } from "../schemas/collection-export";
import type { Collection, CollectionItem } from "../schemas/collections";
import type { CollectionService } from "./collection-service";
import { csvChunks } from "./export-csv";

/** Items read from the store at a time, and so organizations fetched at a time, while exporting. */
export const EXPORT_STORE_PAGE = 500;

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson",
};

/** An export ready to be written: the collection was found before anything is sent. */
export interface ExportFile {
  collection: Collection;
  contentType: string;
  /** `<collection-name-slug>.<format>`, for Content-Disposition. */
  filename: string;
  chunks: AsyncIterable<string>;
}

export class CollectionExport {
  constructor(
    private readonly collections: CollectionService,
    private readonly organizations: OrganizationStore,
  ) {}

  /** One page of exported items (the tenant's collection only: else NOT_FOUND). */
  async page(tenant: string, id: string, page: { limit: number; cursor?: string }): Promise<Page<ExportedItem>> {
    const items = await this.collections.listItems(tenant, id, page);
    return { data: await this.joined(items.data), next_cursor: items.next_cursor };
  }

  /** Every item of the collection, a store page at a time. */
  async *pages(tenant: string, id: string): AsyncGenerator<ExportedItem[]> {
    let cursor: string | undefined;
    do {
      const page = await this.page(tenant, id, { limit: EXPORT_STORE_PAGE, cursor });
      yield page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** The export as a file of `format`; NOT_FOUND (thrown here, before any chunk) for a collection that is not the tenant's. */
  async open(tenant: string, id: string, format: ExportFormat): Promise<ExportFile> {
    const collection = await this.collections.get(tenant, id);
    const pages = this.pages(tenant, id);
    return {
      collection,
      contentType: EXPORT_CONTENT_TYPES[format],
      filename: `${fileSlug(collection)}.${format}`,
      chunks: format === "csv" ? csvChunks(collection.entity_type, pages) : ndjsonChunks(pages),
    };
  }

  /** Organization items with `organization` set: the current record, or null when it is gone. */
  private async joined(items: CollectionItem[]): Promise<ExportedItem[]> {
    const ids = [...new Set(items.filter((item) => item.entity_type === "organization").map((item) => Number(item.entity_id)))];
    if (ids.length === 0) return items;
    const current = new Map((await this.organizations.getMany(ids)).map((organization) => [organization.id, organization]));
    return items.map((item) => (item.entity_type === "organization" ? { ...item, organization: current.get(Number(item.entity_id)) ?? null } : item));
  }
}

/** One JSON object a line, a chunk a page. */
async function* ndjsonChunks(pages: AsyncIterable<ExportedItem[]>): AsyncGenerator<string> {
  for await (const page of pages) {
    if (page.length > 0) yield page.map((item) => `${JSON.stringify(item)}\n`).join("");
  }
}

/** The collection's name in ASCII letters, digits and dashes (accents dropped), for a file name any system takes; its id when nothing is left. */
export function fileSlug(collection: Pick<Collection, "id" | "name">): string {
  const slug = collection.name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "");
  return slug || collection.id;
}
