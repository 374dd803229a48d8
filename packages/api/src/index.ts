export { appRouter, type AppRouter } from "./router";
export { createCallerFactory } from "./trpc";
export type { Access, Context } from "./context";
export { toContractError, trpcCodeOf, trpcErrorShape } from "./errors";
// The error body is core's; re-exported for clients that only know the API package.
export { ErrorBody, type ContractError } from "@orgsim/core";
export { buildOpenApiDocument } from "./openapi";
