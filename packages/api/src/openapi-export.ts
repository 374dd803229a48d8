/**
 * GET /collections/{id}/export in the OpenAPI document. It streams a file, so it is no tRPC
 * procedure trpc-to-openapi could describe (the server serves it from apps/server/src/http/export.ts);
 * it is added here from the same core schemas: the path's collection id and the errors as
 * GET /collections/{id}/items has them (same scope, same path parameter, same transport), the
 * `format` enum, and the `ExportedItem` schema an NDJSON line follows.
 */
import { EXPORT_FORMATS, ExportedItem } from "@orgsim/core";
import type { OpenAPIObject } from "trpc-to-openapi";
import { createSchema } from "zod-openapi";

export const EXPORT_OPERATION_ID = "collections-export";
const EXPORT_PATH = "/collections/{id}/export";
/** The read whose parameter and errors the export shares. */
const LIKE_PATH = "/collections/{id}/items";

interface Operation {
  parameters?: { in: string; name: string }[];
  responses?: Record<string, unknown>;
  security?: unknown;
}

export function withExportOperation(document: OpenAPIObject): OpenAPIObject {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const like = paths[LIKE_PATH]?.get;
  const idParameter = like?.parameters?.find((p) => p.in === "path" && p.name === "id");
  if (!like?.responses || !idParameter) throw new Error(`OpenAPI: ${LIKE_PATH} is needed to describe ${EXPORT_PATH}`);
  const { schema, components } = createSchema(ExportedItem);
  document.components = { ...document.components, schemas: { ...components, ...document.components?.schemas } };
  const { "200": _ok, ...errors } = like.responses;

  paths[EXPORT_PATH] = {
    get: {
      operationId: EXPORT_OPERATION_ID,
      summary: "Export a collection as CSV or NDJSON",
      description: DESCRIPTION,
      tags: ["collections"],
      parameters: [idParameter, FORMAT_PARAMETER],
      responses: { "200": success(schema), ...errors },
      security: like.security,
    } as Operation,
  };
  return document;
}

const DESCRIPTION =
  "Every item of the collection, streamed as a file to download (`Content-Disposition: attachment`). " +
  "Organization items carry the organization as it is now, not as it was when added; an organization deleted since is still exported, " +
  "with `organization: null` (NDJSON) or `organization_found` false and its columns empty (CSV). " +
  "CSV is UTF-8 with a byte-order mark (so Excel reads it as UTF-8), a header row and RFC 4180 quoting with CRLF line ends; " +
  "a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` so no spreadsheet runs it as a formula. " +
  "Columns: item_id, entity_type, entity_id, notes, tags, created_at, updated_at, then for organizations organization_found, name, domain, website, " +
  "description, categories, hq_city, hq_subdivision_code, hq_country_code, employee_count, employee_range, founded_year, last_round_stage, " +
  "last_round_date, last_round_amount_usd, total_raised_usd, and for other types the fields of their `entity` snapshot. Lists are joined with `; `. " +
  "An error after the file has started (the backend failing midway) cuts the response short: a download that does not end cleanly is incomplete.";

const FORMAT_PARAMETER = {
  in: "query",
  name: "format",
  required: false,
  description: "csv (default): a spreadsheet file; ndjson: one JSON object (an ExportedItem) a line",
  schema: { type: "string", enum: [...EXPORT_FORMATS], default: "csv" },
};

function success(itemSchema: unknown) {
  return {
    description: "The file: text/csv for format=csv, application/x-ndjson for format=ndjson",
    headers: {
      "Content-Disposition": {
        description: 'Always `attachment; filename="<collection-name-slug>.<format>"`',
        required: true,
        schema: { type: "string" },
      },
    },
    content: {
      "text/csv": { schema: { type: "string", description: "UTF-8 with a byte-order mark, a header row, CRLF line ends" } },
      "application/x-ndjson": {
        schema: { type: "string", description: "One JSON object a line, each an ExportedItem" },
        // OpenAPI 3.1 cannot say what each line of a stream is (3.2's itemSchema can): an extension says it meanwhile.
        "x-item-schema": itemSchema,
      },
    },
  };
}
