/**
 * REST: the router's OpenAPI procedures under /v1, served by trpc-to-openapi.
 * Its error body is rewritten to the contract's `{ error: {...} }`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { appRouter, type ContractError } from "@orgsim/api";
import { createOpenApiHttpHandler } from "trpc-to-openapi";
import type { ContextFactory } from "./context";
import { MAX_BODY_BYTES } from "./limits";

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
  return (req: IncomingMessage, res: ServerResponse) => {
    requestOf.set(res, req);
    return handler(req, withContractErrorBodies(res));
  };
}

/** trpc-to-openapi writes `{...errorShape, message, code, issues}`; callers get only the contract's part. */
function withContractErrorBodies(res: ServerResponse): ServerResponse {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    if (res.statusCode === 204) return end();
    if (res.statusCode >= 400 && typeof chunk === "string") {
      try {
        const body = JSON.parse(chunk) as { data?: { error?: ContractError } };
        if (body.data?.error) return end(JSON.stringify({ error: body.data.error }));
      } catch {
        // not JSON: send as it is
      }
    }
    return end(chunk);
  }) as ServerResponse["end"];
  return res;
}
