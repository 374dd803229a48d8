/** Builds a request's tRPC context (services, the caller's access, the request id), and the contract's error responses. */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "@orgsim/api";
import { type ContractError, contractErrorOf, type ErrorBody, type Services } from "@orgsim/core";
import type { AccessPolicy } from "./access";
import { send } from "./docs";

export type ContextFactory = (req: IncomingMessage, res: ServerResponse, calls?: number) => Promise<Context>;

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The caller's X-Request-Id when it is safe to echo, else a new one. */
export function requestIdFrom(req: IncomingMessage | undefined): string {
  const given = req?.headers["x-request-id"];
  return typeof given === "string" && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** The request's id (see requestIdFrom), set on the response. */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const requestId = requestIdFrom(req);
  res.setHeader("x-request-id", requestId);
  return requestId;
}

export function contextFactory(services: Services, accessOf: AccessPolicy): ContextFactory {
  return async (req, res, calls) => ({ services, access: await accessOf(req, res, calls), requestId: requestIdOf(req, res), response: {} });
}

/** The contract's error body, `{ "error": { code, message, status, details, request_id } }`: every HTTP error body is made here. */
export const errorBody = (error: ContractError): string => JSON.stringify({ error } satisfies ErrorBody);

/** Answers with the contract's error, at its status. */
export function sendError(res: ServerResponse, error: ContractError): void {
  send(res, error.status, "application/json", errorBody(error));
}

/** Answers with the contract's error for `cause` (an OrgsimError, or anything else as INTERNAL), with the request's id. */
export function sendContractError(req: IncomingMessage, res: ServerResponse, cause: unknown): void {
  sendError(res, contractErrorOf(cause, requestIdOf(req, res)));
}
