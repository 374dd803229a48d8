/**
 * tRPC's side of the contract's error (core's `contractErrorOf` maps what a service threw):
 * a domain error travels through tRPC with its HTTP status, and whatever tRPC itself raises
 * (bad JSON, unknown procedure) becomes the contract's `{ code, message, status, details, request_id }`.
 */
import { type ContractError, contractErrorOf, type ErrorCode, OrgsimError } from "@orgsim/core";
import { TRPCError } from "@trpc/server";
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { z } from "zod";

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

/** The tRPC code of an HTTP status (its envelope's `code` and `data.code`). */
export const trpcCodeOf = (status: number): TRPC_ERROR_CODE_KEY => TRPC_CODE_BY_STATUS[status] ?? "INTERNAL_SERVER_ERROR";

/** Lets tRPC pick the HTTP status of a domain error while keeping it as the cause. */
export function toTRPCError(error: OrgsimError): TRPCError {
  return new TRPCError({ code: trpcCodeOf(error.status), message: error.message, cause: error });
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

/** Maps anything thrown while serving a tRPC or REST request to the contract's error. */
export function toContractError(error: TRPCError, requestId: string | null): ContractError {
  const cause = error.cause;
  if (cause instanceof OrgsimError || cause instanceof z.ZodError) return contractErrorOf(cause, requestId);
  const code = CODE_BY_TRPC_CODE[error.code] ?? "INTERNAL";
  // Only tRPC's own messages (not found, bad JSON, too large) are safe to show; anything else is internal.
  if (code === "INTERNAL") return contractErrorOf(cause, requestId);
  return contractErrorOf(new OrgsimError(code, error.message), requestId);
}

/**
 * tRPC's error shape, carrying the contract's error in `data.error`: what a procedure's error becomes
 * (the errorFormatter in trpc.ts), and what the server's own refusals of a tRPC request send.
 */
export function trpcErrorShape(error: ContractError, code: TRPC_ERROR_CODE_KEY, path: string | undefined) {
  return { message: error.message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus: error.status, path, error } };
}
