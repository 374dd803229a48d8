/**
 * REST: the router's OpenAPI procedures under /v1, served by trpc-to-openapi.
 * Its error body is rewritten to the contract's `{ error: {...} }`, and what it does not
 * handle itself (exotic methods, unreadable bodies, bad URLs) is answered with the
 * contract's error too, never a 500.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { appRouter, toContractError } from "@orgsim/api";
import { type ContractError, contractErrorOf, OrgsimError } from "@orgsim/core";
import { TRPCError } from "@trpc/server";
import { createOpenApiHttpHandler } from "trpc-to-openapi";
import { type ContextFactory, requestIdOf } from "./context";
import { send } from "./docs";
import { admitRequest, MAX_BODY_BYTES } from "./limits";

/** The methods REST operations use; anything else (HEAD, OPTIONS, TRACE, …) names no operation. */
const SERVED_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

export function createRestHandler(createContext: ContextFactory) {
  // trpc-to-openapi hands createContext a Fetch Request made from the IncomingMessage (typed as the
  // latter); the context reads the caller's headers from the original, found through the response.
  const requestOf = new WeakMap<ServerResponse, IncomingMessage>();
  const handler = createOpenApiHttpHandler({
    router: appRouter,
    createContext: ({ res }) => createContext(requestOf.get(res) as IncomingMessage, res),
    maxBodySize: MAX_BODY_BYTES,
    responseMeta: ({ ctx, errors }) => {
      if (errors.length > 0) return {};
      return ctx?.response.status ? { status: ctx.response.status } : {};
    },
  });
  return async (req: IncomingMessage, res: ServerResponse) => {
    // Fixed on arrival, so errors raised before the context exists (no route, bad body) carry it
    // too; written back so the context factory echoes the same id.
    const requestId = requestIdOf(req, res);
    req.headers["x-request-id"] = requestId;
    requestOf.set(res, req);
    const fail = (error: OrgsimError) => sendError(res, contractErrorOf(error, requestId));

    const method = req.method ?? "GET";
    // trpc-to-openapi builds a Fetch Request, which throws on TRACE/CONNECT; no operation uses these methods anyway.
    if (!SERVED_METHODS.has(method)) return fail(new OrgsimError("NOT_FOUND", `No operation ${method} ${pathOf(req)}`));
    // The contract's transport checks (URL, body size, UTF-8, JSON): see ./limits. A checked body is left in req.body.
    if (!(await admitRequest(req, res, "rest"))) return;

    try {
      await handler(req, withContractErrorBodies(res, requestId));
    } catch (error) {
      // Thrown before trpc-to-openapi answers, e.g. a Host header that makes no URL (tRPC's BAD_REQUEST).
      if (!(error instanceof TRPCError)) console.error("REST request failed", error);
      if (res.headersSent) return void res.end();
      sendError(res, error instanceof TRPCError ? toContractError(error, requestId) : contractErrorOf(error, requestId));
    }
  };
}

const pathOf = (req: IncomingMessage) => new URL(req.url ?? "/", "http://localhost").pathname;

function sendError(res: ServerResponse, error: ContractError) {
  send(res, error.status, "application/json", JSON.stringify({ error }));
}

/**
 * trpc-to-openapi writes `{...errorShape, message, code, issues}`; callers get only the contract's
 * part, with the request id, and the HTTP status is the contract's (trpc-to-openapi answers 415 or
 * 405 where the contract's code is VALIDATION_FAILED or NOT_FOUND).
 */
function withContractErrorBodies(res: ServerResponse, requestId: string): ServerResponse {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    if (res.statusCode === 204) return end();
    if (res.statusCode >= 400 && typeof chunk === "string") {
      try {
        const body = JSON.parse(chunk) as { data?: { error?: ContractError } };
        const error = body.data?.error;
        if (error) {
          if (!res.headersSent) res.statusCode = error.status;
          return end(JSON.stringify({ error: { ...error, request_id: error.request_id ?? requestId } }));
        }
      } catch {
        // not JSON: send as it is
      }
    }
    return end(chunk);
  }) as ServerResponse["end"];
  return res;
}
