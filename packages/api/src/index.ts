export { appRouter, type AppRouter } from "./router";
export { createCallerFactory } from "./trpc";
export { type Context, type Services, DEFAULT_TENANT } from "./context";
export { ErrorBody, type ContractError, contractErrorOf, toContractError } from "./errors";
export { buildOpenApiDocument, API_VERSION } from "./openapi";
