/**
 * The contract's error codes. Every surface (REST, tRPC, MCP) reports an
 * OrgsimError with the same code, message and details.
 */
import { z } from "zod";

export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  ENTITY_TYPE_MISMATCH: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  BACKEND_UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ValidationIssue {
  path: (string | number)[];
  message: string;
}

export class OrgsimError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "OrgsimError";
    this.status = ERROR_STATUS[code];
  }

  static validation(issues: ValidationIssue[]): OrgsimError {
    const summary = issues
      .slice(0, 5)
      .map((i) => `${i.path.length ? i.path.join(".") : "input"}: ${i.message}`)
      .join("; ");
    return new OrgsimError("VALIDATION_FAILED", `Invalid input: ${summary}`, { issues });
  }

  static notFound(what: string, id: string | number): OrgsimError {
    return new OrgsimError("NOT_FOUND", `${what} ${id} was not found`, { resource: what, id });
  }
}

/** The contract's error body: `{ error: { code, message, status, details, request_id } }` on every surface. */
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
