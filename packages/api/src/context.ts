/** What every procedure sees: the services, who is calling, and per-request response hints. */
import type { OrgsimError, Principal, Services } from "@orgsim/core";

/**
 * The transport's verdict on the caller: a principal, or why it was refused (401, 429).
 * Refusals are raised by the procedures' first middleware, so they travel as the same
 * contract error (with the request id) as any other error, on REST and tRPC alike.
 */
export type Access = { principal: Principal } | { refused: OrgsimError };

export interface Context {
  services: Services;
  access: Access;
  requestId: string;
  /**
   * Set by a procedure when the REST status is not 200 (201 created, 204 no content). An object,
   * so what a procedure sets reaches the transport through middlewares that extend the context.
   */
  response: { status?: number };
}
