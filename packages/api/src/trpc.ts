/** tRPC initialisation: context type, error formatter and the base procedure. */
import { assertScope, type ERROR_STATUS, type ErrorCode, OrgsimError, type Scope } from "@orgsim/core";
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { Context } from "./context";
import { toContractError, toTRPCError } from "./errors";

/** The error codes answered with 409. */
export type ConflictCode = { [Code in ErrorCode]: (typeof ERROR_STATUS)[Code] extends 409 ? Code : never }[ErrorCode];

/**
 * `successStatuses`: the REST statuses of success when not just 200 (documented in the OpenAPI document).
 * `scope`: the API-key scope the procedure needs (set by `scoped`), for documents and checks.
 * `conflicts`: the 409 codes the procedure can answer (the document's 409 response lists them;
 * `openapi.errorResponses[409]` describes them).
 */
export type Meta = OpenApiMeta<{ successStatuses?: (200 | 201 | 204)[]; scope?: Scope; conflicts?: ConflictCode[] }>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const contract = toContractError(error, ctx?.requestId ?? null);
      // No stack, no internals: the contract's error travels in `data.error`.
      return { message: contract.message, code: shape.code, data: { code: shape.data.code, httpStatus: contract.status, path: shape.data.path, error: contract } };
    },
  });

/** Domain errors keep their code and get the matching HTTP status. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof OrgsimError) throw toTRPCError(result.error.cause);
  return result;
});

/** Refuses callers the transport refused; gives procedures the principal and its tenant (collections are scoped to it). */
const authenticated = t.middleware(({ ctx, next }) => {
  if ("refused" in ctx.access) throw ctx.access.refused;
  const { principal } = ctx.access;
  return next({ ctx: { principal, tenant: principal.tenant } });
});

export const router = t.router;
/** Any authenticated caller. */
export const procedure = t.procedure.use(domainErrors).use(authenticated);
/** A procedure that needs `scope`: callers whose key lacks it get FORBIDDEN, naming the scope. */
export const scoped = (scope: Scope) =>
  procedure.meta({ scope }).use(({ ctx, next }) => {
    assertScope(ctx.principal, scope);
    return next();
  });
export const createCallerFactory = t.createCallerFactory;
