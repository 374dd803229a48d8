/**
 * GET /v1/collections/{id}/export: the one REST operation trpc-to-openapi cannot serve, since it
 * streams a file (CSV or NDJSON) instead of answering one JSON value. It goes through the same
 * machinery as every REST request (request id, URL checks, API key and rate limit, the scope,
 * the core's input schema, the contract's errors), then copies the core's chunks to the response
 * as they come, with backpressure; a client that goes away stops the export.
 * The OpenAPI document describes it (packages/api/src/openapi-export.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { assertScope, contractErrorOf, ExportCollectionInput, type ExportFile, OrgsimError } from "@orgsim/core";
import { type ContextFactory, requestIdOf, sendError } from "./context";
import { admitRequest } from "./limits";

/** The path after /v1, as the REST handler sees it. */
const EXPORT_PATH = /^\/collections\/([^/]*)\/export\/?$/;

/** The collection id of an export request, or null when the request is not one (another method, another path). */
export function exportRequestOf(req: IncomingMessage): string | null {
  if (req.method !== "GET") return null;
  const match = EXPORT_PATH.exec(new URL(req.url ?? "/", "http://localhost").pathname);
  return match ? (match[1] as string) : null;
}

export function createExportHandler(createContext: ContextFactory) {
  return async (req: IncomingMessage, res: ServerResponse, encodedId: string): Promise<void> => {
    const requestId = requestIdOf(req, res);
    req.headers["x-request-id"] = requestId;
    if (!(await admitRequest(req, res, "rest"))) return;
    let file: ExportFile;
    try {
      const ctx = await createContext(req, res);
      if ("refused" in ctx.access) throw ctx.access.refused;
      const { principal } = ctx.access;
      assertScope(principal, "collections:read");
      const input = ExportCollectionInput.parse({ ...queryOf(req), id: decodeURIComponent(encodedId) });
      file = await ctx.services.exports.open(principal.tenant, input.id, input.format);
    } catch (error) {
      if (!(error instanceof OrgsimError)) logUnexpected(error);
      return sendError(res, contractErrorOf(error, requestId));
    }
    res.writeHead(200, {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${file.filename}"`,
      "cache-control": "no-store",
    });
    try {
      await pipeline(Readable.from(file.chunks), res);
    } catch (error) {
      // Headers are gone: a failure now can only cut the response short, so the client sees an incomplete file, never a complete-looking one.
      if (!res.destroyed) console.error(`export of ${file.collection.id} failed midway`, error);
      res.destroy();
    }
  };
}

/** Query parameters; a repeated one becomes a list, which the schema then refuses, naming it. */
function queryOf(req: IncomingMessage): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URL(req.url ?? "/", "http://localhost").searchParams) {
    const seen = query[name];
    query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return query;
}

function logUnexpected(error: unknown) {
  // A zod error is the caller's bad input (VALIDATION_FAILED); anything else is worth a line in the log.
  if ((error as { name?: string })?.name !== "ZodError") console.error("export request failed", error);
}
