export { appRouter, type AppRouter } from "./router";
export { createCallerFactory } from "./trpc";
export type { Access, Context, Services } from "./context";
export { ErrorBody, type ContractError, contractErrorOf, toContractError } from "./errors";
export { buildOpenApiDocument, API_VERSION } from "./openapi";
