/**
 * The contract's error codes. Every surface (REST, tRPC, MCP) reports an
 * OrgsimError with the same code, message and details.
 */
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
