/** Builds a request's tRPC context: services, tenant and request id. */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Context, DEFAULT_TENANT, type Services } from "@orgsim/api";

export type ContextFactory = (req: IncomingMessage, res: ServerResponse) => Context;

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function contextFactory(services: Services): ContextFactory {
  return (req, res) => {
    const given = req.headers["x-request-id"];
    const requestId = typeof given === "string" && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader("x-request-id", requestId);
    return { services, tenant: DEFAULT_TENANT, requestId };
  };
}
