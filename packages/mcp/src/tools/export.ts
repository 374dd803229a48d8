/** Exporting a collection: a link to the REST file, and the items inline when the collection is small enough. */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ExportCollectionInput, ExportedItem, type ExportedItem as ExportedItemType, ExportFormat } from "@orgsim/core";
import { z } from "zod";
import { FullOrganization } from "../format";
import { defineTool, READ_ONLY, registerTools, type ToolRuntime } from "../tool";
import { collectionIdParam } from "./collections";

/** Collections up to this many items come inline; larger ones only as the link. */
export const MAX_INLINE_ITEMS = 1_000;

const exportPath = (collectionId: string, format: string) => `/v1/collections/${encodeURIComponent(collectionId)}/export?format=${format}`;

/** The exported item with the organization typed loosely (see FullOrganization). */
const ExportedItemOutput = ExportedItem.extend({
  organization: FullOrganization.nullable()
    .optional()
    .meta(ExportedItem.shape.organization.meta() ?? {}),
});

export const exportTools = [
  defineTool({
    name: "export_collection",
    title: "Export a collection",
    description:
      "Use it to hand a whole collection to a person or another program (a CSV file for a spreadsheet, or NDJSON), or to read every item of a small collection at once " +
      "with each organization's current fields. " +
      `Returns the link to download the file from the REST API (GET, with an API key that has collections:read) and, for collections of up to ${MAX_INLINE_ITEMS} items, ` +
      "every item inline as NDJSON (one JSON object a line, in the text; in data too), whatever the format. " +
      "Organization items carry the organization as it is now (organization: null when it no longer exists). " +
      "meta.url is absolute when the server was reached over HTTP, null over stdio (meta.path is then the link on a running `orgsim serve`).",
    input: ExportCollectionInput.omit({ id: true }).safeExtend({
      collection_id: collectionIdParam(),
      format: ExportCollectionInput.shape.format.meta({ description: "The linked file's format: csv (default, for spreadsheets) or ndjson" }),
    }),
    output: z.object({
      data: z
        .array(ExportedItemOutput)
        .nullable()
        .meta({ description: `Every item, when the collection holds at most ${MAX_INLINE_ITEMS}; else null (download the file)` }),
      meta: z.object({
        collection_id: z.string(),
        format: ExportFormat,
        item_count: z.number().int(),
        url: z.string().nullable().meta({ description: "The file's absolute URL, when the MCP server knows the HTTP server's address" }),
        path: z.string().meta({ description: "The file's path on the HTTP server" }),
        inline: z.boolean().meta({ description: "Whether data (and the text) hold the items" }),
      }),
    }),
    hints: READ_ONLY,
    scope: "collections:read",
    async run({ collection_id: id, format }, { services, principal, restBaseUrl }) {
      const collection = await services.collections.get(principal.tenant, id);
      const path = exportPath(collection.id, format);
      const url = restBaseUrl ? `${restBaseUrl}${path}` : null;
      const items = collection.item_count <= MAX_INLINE_ITEMS ? await inlineItems(services.exports.pages(principal.tenant, id)) : null;
      const lines = [
        `Collection ${collection.id} "${collection.name}": ${collection.item_count} items of ${collection.entity_type ?? "no type yet"}.`,
        `Download (${format}): ${url ?? `${path} on the HTTP server (orgsim serve)`}`,
        items ? `Every item as NDJSON${items.length === 0 ? " (none)" : ""}:` : `More than ${MAX_INLINE_ITEMS} items: not shown here; download the file.`,
        ...(items ?? []).map((item) => JSON.stringify(item)),
      ];
      return {
        structured: { data: items, meta: { collection_id: collection.id, format, item_count: collection.item_count, url, path, inline: items !== null } },
        text: lines.join("\n"),
      };
    },
  }),
];

/** All the pages, unless the collection grew past the inline limit meanwhile (then null). */
async function inlineItems(pages: AsyncIterable<ExportedItemType[]>): Promise<ExportedItemType[] | null> {
  const items: ExportedItemType[] = [];
  for await (const page of pages) {
    items.push(...page);
    if (items.length > MAX_INLINE_ITEMS) return null;
  }
  return items;
}

export function registerExportTools(server: McpServer, runtime: ToolRuntime): void {
  registerTools(server, runtime, exportTools);
}
