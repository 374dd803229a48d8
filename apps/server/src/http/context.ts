/** Builds a request's tRPC context: services, the caller's access and the request id. */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "@orgsim/api";
import { contractErrorOf, type Services } from "@orgsim/core";
import type { AccessPolicy } from "./access";
import { send } from "./docs";

export type ContextFactory = (req: IncomingMessage, res: ServerResponse, calls?: number) => Promise<Context>;

export const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The caller's X-Request-Id when it is safe to echo, else a new one; set on the response. */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers["x-request-id"];
  const requestId = typeof given === "string" && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
  res.setHeader("x-request-id", requestId);
  return requestId;
}

export function contextFactory(services: Services, accessOf: AccessPolicy): ContextFactory {
  return async (req, res, calls) => ({ services, access: await accessOf(req, res, calls), requestId: requestIdOf(req, res), response: {} });
}

/** Answers with the contract's error for `cause` (an OrgsimError, or anything else as INTERNAL), with the request's id. */
export function sendContractError(req: IncomingMessage, res: ServerResponse, cause: unknown): void {
  const error = contractErrorOf(cause, requestIdOf(req, res));
  send(res, error.status, "application/json", JSON.stringify({ error }));
}
