/**
 * One error shape for every surface. Whatever a procedure throws becomes the
 * contract's `{ code, message, status, details, request_id }`; internals never leak.
 */
import { ERROR_STATUS, type ErrorCode, OrgsimError, type ValidationIssue } from "@orgsim/core";
import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { z } from "zod";

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      status: z.number().int(),
      details: z.record(z.string(), z.unknown()),
      request_id: z.string().nullable(),
    }),
  })
  .meta({ id: "Error" });
export type ErrorBody = z.infer<typeof ErrorBody>;
export type ContractError = ErrorBody["error"];

const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  408: "TIMEOUT",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  503: "SERVICE_UNAVAILABLE",
};

/** Lets tRPC pick the HTTP status of a domain error while keeping it as the cause. */
export function toTRPCError(error: OrgsimError): TRPCError {
  return new TRPCError({ code: TRPC_CODE_BY_STATUS[error.status] ?? "INTERNAL_SERVER_ERROR", message: error.message, cause: error });
}

const CODE_BY_TRPC_CODE: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  BAD_REQUEST: "VALIDATION_FAILED",
  PARSE_ERROR: "VALIDATION_FAILED",
  UNSUPPORTED_MEDIA_TYPE: "VALIDATION_FAILED",
  METHOD_NOT_SUPPORTED: "NOT_FOUND",
  NOT_FOUND: "NOT_FOUND",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  CONFLICT: "CONFLICT",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  TOO_MANY_REQUESTS: "RATE_LIMITED",
  SERVICE_UNAVAILABLE: "BACKEND_UNAVAILABLE",
};

/** Bulk inputs name the array elements that failed, so a caller can fix just those. */
const BULK_FIELDS = new Set(["items", "organizations"]);

function validationError(issues: ValidationIssue[]): OrgsimError {
  const error = OrgsimError.validation(issues);
  const failing = new Set<number>();
  for (const { path } of issues) {
    if (typeof path[0] === "string" && BULK_FIELDS.has(path[0]) && typeof path[1] === "number") failing.add(path[1]);
  }
  if (failing.size > 0) error.details.failing_indexes = [...failing].sort((a, b) => a - b);
  return error;
}

/**
 * The contract's error for what a service threw (any surface): a domain error keeps its code,
 * a zod error is VALIDATION_FAILED, anything else is INTERNAL with no internals shown.
 */
export function contractErrorOf(cause: unknown, requestId: string | null): ContractError {
  const domain =
    cause instanceof OrgsimError
      ? cause
      : cause instanceof z.ZodError
        ? validationError(cause.issues.map((i) => ({ path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)), message: i.message })))
        : new OrgsimError("INTERNAL", "Internal error");
  return { code: domain.code, message: domain.message, status: domain.status, details: domain.details, request_id: requestId };
}

/** Maps anything thrown while serving a tRPC or REST request to the contract's error. */
export function toContractError(error: TRPCError, requestId: string | null): ContractError {
  const cause = error.cause;
  if (cause instanceof OrgsimError || cause instanceof z.ZodError) return contractErrorOf(cause, requestId);
  const code = CODE_BY_TRPC_CODE[error.code] ?? "INTERNAL";
  // Only tRPC's own messages (not found, bad JSON, too large) are safe to show; anything else is internal.
  if (code === "INTERNAL") return contractErrorOf(cause, requestId);
  const domain = new OrgsimError(code, error.message);
  return { code: domain.code, message: domain.message, status: domain.status, details: domain.details, request_id: requestId };
}
