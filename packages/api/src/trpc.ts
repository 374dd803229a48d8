/** tRPC initialisation: context type, error formatter and the base procedure. */
import { OrgsimError } from "@orgsim/core";
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { Context } from "./context";
import { toContractError, toTRPCError } from "./errors";

/** `successStatuses`: the REST statuses of success when not just 200 (documented in the OpenAPI document). */
export type Meta = OpenApiMeta<{ successStatuses?: (200 | 201 | 204)[] }>;

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

export const router = t.router;
export const procedure = t.procedure.use(domainErrors);
export const createCallerFactory = t.createCallerFactory;
