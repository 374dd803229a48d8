/**
 * A collection as a file to download, built from the `collections.export` procedure's pages
 * (500 items a page) with the core's own CSV writer, so the file is the one REST's
 * /v1/collections/{id}/export sends: same columns, BOM, CSV-injection guard and file name.
 */
import type { OrgsimClient } from "@orgsim/client";
import { csvChunks, EXPORT_CONTENT_TYPES, type ExportFormat, fileSlug } from "@orgsim/core/browser";
import type { Collection, ExportedItem } from "../api/types";

const EXPORT_PAGE = 500;

async function* pagesOf(client: OrgsimClient, id: string): AsyncGenerator<ExportedItem[]> {
  let cursor: string | undefined;
  do {
    const page = await client.collections.export.query({ id, limit: EXPORT_PAGE, ...(cursor ? { cursor } : {}) });
    yield page.data;
    cursor = page.meta.next_cursor ?? undefined;
  } while (cursor);
}

async function* ndjsonChunks(pages: AsyncIterable<ExportedItem[]>): AsyncGenerator<string> {
  for await (const page of pages) yield page.map((item) => `${JSON.stringify(item)}\n`).join("");
}

export async function exportCollection(client: OrgsimClient, collection: Collection, format: ExportFormat): Promise<{ blob: Blob; filename: string }> {
  const pages = pagesOf(client, collection.id);
  const chunks: string[] = [];
  for await (const chunk of format === "csv" ? csvChunks(collection.entity_type, pages) : ndjsonChunks(pages)) chunks.push(chunk);
  return { blob: new Blob(chunks, { type: EXPORT_CONTENT_TYPES[format] }), filename: `${fileSlug(collection)}.${format}` };
}

/** Hands the file to the browser as a download. */
export function download({ blob, filename }: { blob: Blob; filename: string }) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has taken the blob by the next task; the URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
