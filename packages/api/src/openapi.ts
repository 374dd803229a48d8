/**
 * The OpenAPI document, generated from the router, then made truthful where trpc-to-openapi
 * cannot know: the success statuses each operation really answers, every error response it
 * can give (all with the contract's `Error` body), and the API-key scope it needs.
 * The REST suite fuzzes the server against this document (apps/server/test/fuzz.test.ts).
 */
import { API_VERSION, ERROR_STATUS, ErrorBody, type ErrorCode } from "@orgsim/core";
import { forEachOpenApiProcedure, generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { z } from "zod";
import { createSchema } from "zod-openapi";
import { EXPORT_OPERATION_ID, withExportOperation } from "./openapi-export";
import { appRouter } from "./router";
import type { Meta } from "./trpc";

export function buildOpenApiDocument(baseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: "orgsim",
    description:
      "Find organizations similar to a known organization, a business description or a customer base, and keep typed collections. " +
      "Every error, on every operation, has the shape of the `Error` schema; `error.code` says what went wrong and `error.status` equals the HTTP status. " +
      "Send `Authorization: Bearer <api key>`; each operation names the scope its key needs. " +
      "A server with no API key configured runs open on loopback only, and then needs none.",
    version: API_VERSION,
    baseUrl,
    tags: ["search", "organizations", "collections", "reference"],
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "API key",
        description: "`Authorization: Bearer <api key>`. Keys are made with `orgsim keys create` and carry scopes (see each operation's security).",
      },
    },
  });
  return withResourceLinks(withExportOperation(withContractResponses(withParameterDocs(document))));
}

/**
 * The query parameters' descriptions and deprecations, from the metadata of the core schemas'
 * fields: trpc-to-openapi keeps them for plain fields but drops them where a field is wrapped
 * (optional list parameters, defaults), and clients would see those parameters undocumented.
 */
function withParameterDocs(document: OpenAPIObject): OpenAPIObject {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  forEachOpenApiProcedure<Meta>(appRouter._def.procedures, ({ meta, procedure }) => {
    const operation = paths[meta.openapi.path]?.[meta.openapi.method.toLowerCase()];
    const input = (procedure._def as { inputs?: unknown[] }).inputs?.[0];
    const shape = input instanceof z.ZodObject ? (input.shape as Record<string, z.ZodType>) : null;
    if (!operation || !shape) return;
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in !== "query") continue;
      const docs = shape[parameter.name]?.meta() as { description?: string; deprecated?: boolean } | undefined;
      if (docs?.description && !parameter.description) parameter.description = docs.description;
      if (docs?.deprecated) parameter.deprecated = true;
    }
  });
  return document;
}

/**
 * Where a resource a response returns is used next, as OpenAPI links: clients and the fuzz run's
 * stateful phase follow them from a create or update to the reads, updates and deletes of what it made.
 */
const RESOURCE_LINKS: { from: string; to: string[]; parameters: Record<string, string> }[] = [
  {
    from: "organizations-upsert",
    to: ["organizations-get", "organizations-upsert", "organizations-delete", "search-similarToOrganization"],
    parameters: { organization_id: "$response.body#/id" },
  },
  {
    from: "organizations-bulkUpsert",
    to: ["organizations-get", "organizations-upsert", "organizations-delete", "search-similarToOrganization"],
    parameters: { organization_id: "$response.body#/data/0/id" },
  },
  {
    from: "collections-create",
    to: [
      "collections-get",
      "collections-update",
      "collections-delete",
      "collections-items-add",
      "collections-items-bulkAdd",
      "collections-items-list",
      EXPORT_OPERATION_ID,
    ],
    parameters: { id: "$response.body#/id" },
  },
  {
    from: "collections-items-add",
    to: ["collections-items-get", "collections-items-update", "collections-items-delete"],
    parameters: { id: "$response.body#/collection_id", item_id: "$response.body#/id" },
  },
  {
    from: "collections-items-bulkAdd",
    to: ["collections-items-get", "collections-items-update", "collections-items-delete"],
    parameters: { id: "$response.body#/data/0/collection_id", item_id: "$response.body#/data/0/id" },
  },
];

function withResourceLinks(document: OpenAPIObject): OpenAPIObject {
  const operations = Object.values(document.paths ?? {}).flatMap((path) =>
    Object.values(path as Record<string, { operationId?: string; responses?: Record<string, { links?: unknown }> }>),
  );
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  for (const { from, to, parameters } of RESOURCE_LINKS) {
    const source = byId.get(from);
    if (!source?.responses) throw new Error(`OpenAPI link from an unknown operation ${from}`);
    const links = Object.fromEntries(
      to.map((target) => {
        const wanted = byId.get(target);
        if (!wanted) throw new Error(`OpenAPI link to an unknown operation ${target}`);
        return [target, { operationId: target, parameters }];
      }),
    );
    // The successes: 200, and 201 where the operation creates.
    for (const status of ["200", "201"]) {
      const response = source.responses[status];
      if (response) response.links = links;
    }
  }
  return document;
}

interface Response {
  description?: string;
  content?: Record<string, { schema: unknown }>;
  headers?: Record<string, unknown>;
  $ref?: string;
}
interface Operation {
  parameters?: { in: string; name: string; description?: string; deprecated?: boolean }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: { $ref?: string; required?: string[] } }> };
  responses?: Record<string, Response>;
  security?: Record<string, string[]>[];
}

/** The `Error` body with `code` (and so `status`) narrowed to what this response carries. */
const errorContent = (...codes: ErrorCode[]) => ({
  "application/json": {
    schema: {
      allOf: [
        { $ref: "#/components/schemas/Error" },
        {
          type: "object",
          properties: {
            error: { type: "object", properties: { code: { enum: codes }, status: { enum: [...new Set(codes.map((c) => ERROR_STATUS[c]))] } } },
          },
        },
      ],
    },
  },
});
const intHeader = (description: string, required: boolean) => ({ description, required, schema: { type: "integer", minimum: 0 } });

/** The error responses every operation shares, as reusable components. */
const SHARED_ERRORS: Record<string, Response & { code: ErrorCode | null }> = {
  ValidationFailed: {
    code: "VALIDATION_FAILED",
    description:
      "VALIDATION_FAILED: an unknown, missing or invalid parameter or field; `details.issues` lists each with its path (bulk operations add `details.failing_indexes`)",
  },
  Unauthorized: {
    code: "UNAUTHORIZED",
    description: "UNAUTHORIZED: no API key, or one that is unknown or revoked",
    headers: { "WWW-Authenticate": { description: 'Always `Bearer realm="orgsim"`', required: true, schema: { type: "string" } } },
  },
  NotFound: { code: "NOT_FOUND", description: "NOT_FOUND: the resource in the path does not exist (another tenant's collection does not exist for this key)" },
  RequestTimeout: {
    code: "REQUEST_TIMEOUT",
    description:
      "REQUEST_TIMEOUT: the request's headers or body took longer to arrive than the server allows (ORGSIM_HEADERS_TIMEOUT_MS, ORGSIM_REQUEST_TIMEOUT_MS)",
  },
  PayloadTooLarge: {
    code: "PAYLOAD_TOO_LARGE",
    description: "PAYLOAD_TOO_LARGE: the request body is larger than 5 MiB, or the URL and headers larger than 64 KiB",
  },
  RateLimited: {
    code: "RATE_LIMITED",
    description: "RATE_LIMITED: the API key's requests-a-minute budget is spent; retry after `Retry-After` seconds",
    headers: {
      "Retry-After": intHeader("Seconds until the budget allows a request again", true),
      "RateLimit-Limit": intHeader("Requests a minute this key may make", false),
      "RateLimit-Remaining": intHeader("Requests left in the current window", false),
      "RateLimit-Reset": intHeader("Seconds until the window resets", false),
    },
  },
  Internal: { code: "INTERNAL", description: "INTERNAL: an unexpected error; no internals are shown, the server's log has them (quote `request_id`)" },
  BackendUnavailable: {
    code: "BACKEND_UNAVAILABLE",
    description: "BACKEND_UNAVAILABLE: the storage backend (e.g. Elasticsearch) cannot be reached or is overloaded; retry shortly",
  },
};

/**
 * Per operation: success statuses from `successStatuses` (trpc-to-openapi documents every success
 * as 200), and the contract's error responses in place of trpc-to-openapi's generic ones: 404 where
 * the path names a resource (or as `errorResponses` describes it), 413 where there is a body, 403 where a scope is needed, 409 with the
 * codes the procedure declares in its meta's `conflicts`, and the rest everywhere.
 */
function withContractResponses(document: OpenAPIObject): OpenAPIObject {
  // `Error` arrives among the components (the schema itself is a $ref to it).
  const { components } = createSchema(ErrorBody);
  const schemas = Object.fromEntries(Object.entries(document.components?.schemas ?? {}).filter(([name]) => !name.startsWith("error.")));
  document.components = {
    ...document.components,
    // trpc-to-openapi's own error schemas (`error.BAD_REQUEST`, …) are replaced by the contract's.
    schemas: { ...schemas, ...components },
    responses: Object.fromEntries(
      Object.entries(SHARED_ERRORS).map(([name, { code, ...response }]) => [name, code ? { ...response, content: errorContent(code) } : response]),
    ),
  } as OpenAPIObject["components"];

  const paths = document.paths as Record<string, Record<string, Operation>>;
  for (const meta of restProcedureMetas()) {
    const operation = paths[meta.openapi.path]?.[meta.openapi.method.toLowerCase()];
    if (!operation) continue;
    const responses = operation.responses ?? {};
    const ok = responses["200"] ?? { description: "Successful response" };
    const declared = (Array.isArray(meta.openapi.errorResponses) ? {} : meta.openapi.errorResponses) ?? {};
    const ref = (name: keyof typeof SHARED_ERRORS) => ({ $ref: `#/components/responses/${name}` });

    const result: Record<string, Response> = {};
    for (const status of meta.successStatuses ?? [200]) {
      result[String(status)] = status === 204 ? { description: ok.description ?? "No content" } : ok;
    }
    result["400"] = declared[400]
      ? { description: `VALIDATION_FAILED: ${declared[400]}`, content: errorContent("VALIDATION_FAILED") }
      : ref("ValidationFailed");
    result["401"] = ref("Unauthorized");
    // Any key may call an operation that needs no scope (GET /categories); the Host check applies to every one.
    const hostRefusal =
      "the request's Host, or a browser Origin on a request that changes data, is not a name of this server (`details.host`, `details.origin`)";
    result["403"] = {
      description: meta.scope
        ? `FORBIDDEN: the API key lacks the scope \`${meta.scope}\` (named in \`details.required_scope\`), or ${hostRefusal}`
        : `FORBIDDEN: ${hostRefusal}`,
      content: errorContent("FORBIDDEN"),
    };
    if (declared[404]) result["404"] = { description: `NOT_FOUND: ${declared[404]}`, content: errorContent("NOT_FOUND") };
    else if (operation.parameters?.some((p) => p.in === "path")) result["404"] = ref("NotFound");
    if (meta.conflicts?.length) {
      result["409"] = { description: declared[409] ?? meta.conflicts.join(", "), content: errorContent(...meta.conflicts) };
    } else if (declared[409]) {
      throw new Error(`${meta.openapi.path}: a 409 is described in errorResponses but its codes are not declared in the meta's conflicts`);
    }
    result["408"] = ref("RequestTimeout");
    result["413"] = ref("PayloadTooLarge");
    result["429"] = ref("RateLimited");
    result["500"] = ref("Internal");
    result["503"] = ref("BackendUnavailable");
    operation.responses = result;
    // The server reads a missing body as `{}`: where no field is required (the PATCHes), no body is fine.
    const body = operation.requestBody?.content?.["application/json"]?.schema;
    if (operation.requestBody && body && !body.$ref && !body.required?.length) operation.requestBody.required = false;
    // OpenAPI 3.1 lets a requirement list roles for non-OAuth schemes: here, the key's scope.
    if (meta.scope) operation.security = [{ bearerAuth: [meta.scope] }];
  }
  return document;
}

/**
 * The meta of every procedure served over REST. tRPC offers no public listing of a router's
 * procedures: this reads `_def.procedures`, as trpc-to-openapi's own generator does.
 */
function restProcedureMetas(): (Meta & { openapi: NonNullable<Meta["openapi"]> })[] {
  const metas: (Meta & { openapi: NonNullable<Meta["openapi"]> })[] = [];
  forEachOpenApiProcedure<Meta>(appRouter._def.procedures, ({ meta }) => metas.push(meta));
  return metas;
}
