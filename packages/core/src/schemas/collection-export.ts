/** Exporting a collection: the formats, the inputs, and the shape of one exported item (an NDJSON line, a tRPC row). */
import { z } from "zod";
import { CollectionId, CollectionItem } from "./collections";
import { Organization } from "./organization";
import { intParam } from "./params";

export const EXPORT_FORMATS = ["csv", "ndjson"] as const;
export const ExportFormat = z.enum(EXPORT_FORMATS).meta({
  id: "ExportFormat",
  description: "csv: a spreadsheet file (UTF-8 with a BOM, RFC 4180); ndjson: one JSON object (an ExportedItem) a line",
});
export type ExportFormat = z.infer<typeof ExportFormat>;

/** GET /collections/{id}/export. */
export const ExportCollectionInput = z.strictObject({ id: CollectionId, format: ExportFormat.default("csv") });

/** Most rows of one export page over tRPC. */
export const MAX_EXPORT_PAGE = 500;

export const ExportPageInput = z.strictObject({
  id: CollectionId,
  limit: intParam(z.number().int().min(1).max(MAX_EXPORT_PAGE))
    .default(100)
    .meta({ description: `Items a page, 1–${MAX_EXPORT_PAGE} (default 100)` }),
  cursor: z.string().max(2000).optional(),
});

export const ExportedItem = CollectionItem.extend({
  organization: Organization.nullable().optional().meta({
    description:
      "On organization items only: the organization as it is now (not when it was added), or null when it no longer exists. Absent on other entity types.",
  }),
}).meta({ id: "ExportedItem" });
export type ExportedItem = z.infer<typeof ExportedItem>;

export const ExportPage = z.object({ data: z.array(ExportedItem), meta: z.object({ next_cursor: z.string().nullable() }) }).meta({ id: "ExportPage" });
