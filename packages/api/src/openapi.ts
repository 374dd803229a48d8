/** The OpenAPI document, generated from the router; error responses use the contract's shape. */
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { createSchema } from "zod-openapi";
import { ErrorBody } from "./errors";
import { appRouter } from "./router";
import type { Meta } from "./trpc";

export const API_VERSION = "0.1.0";

export function buildOpenApiDocument(baseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: "orgsim",
    description:
      "Find organizations similar to a known organization, a business description or a customer base, and keep typed collections. " +
      "Errors on every operation have the shape of the `Error` schema.",
    version: API_VERSION,
    baseUrl,
    docsUrl: "https://github.com/orgsim/orgsim",
    tags: ["search", "organizations", "collections", "reference"],
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
  });
  return withSuccessStatuses(withContractErrors(document));
}

type Responses = Record<string, { description?: string; content?: Record<string, { schema: unknown }> }>;
type Operations = Record<string, Record<string, { responses?: Responses }>>;

/** trpc-to-openapi documents every success as 200; some operations answer 201 or 204 (see `successStatuses`). */
function withSuccessStatuses(document: OpenAPIObject): OpenAPIObject {
  const paths = document.paths as Operations;
  for (const procedure of Object.values(appRouter._def.procedures)) {
    const meta = (procedure as unknown as { _def: { meta?: Meta } })._def.meta;
    const statuses = meta?.successStatuses;
    const operation = meta?.openapi && paths[meta.openapi.path]?.[meta.openapi.method.toLowerCase()];
    if (!statuses || !operation?.responses?.["200"]) continue;
    const ok = operation.responses["200"];
    delete operation.responses["200"];
    for (const status of statuses) {
      operation.responses[String(status)] = status === 204 ? { description: ok.description ?? "No content" } : ok;
    }
  }
  return document;
}

/** trpc-to-openapi describes its own error body; ours is `{ error: {...} }`, so point every error response at it. */
function withContractErrors(document: OpenAPIObject): OpenAPIObject {
  const { schema, components } = createSchema(ErrorBody);
  document.components ??= {};
  document.components.schemas = { ...document.components.schemas, ...components, Error: schema };
  for (const path of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(path as Record<string, { responses?: Record<string, { content?: Record<string, { schema: unknown }> }> }>)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) >= 400 && response.content?.["application/json"]) {
          response.content["application/json"].schema = { $ref: "#/components/schemas/Error" };
        }
      }
    }
  }
  return document;
}
