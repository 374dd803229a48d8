/**
 * One structured log line per request (pino): request id, method, surface, route, status,
 * duration and tenant. Never an API key; the query string (search texts) only with
 * ORGSIM_LOG_QUERIES=true. JSON lines when stdout is a file or a pipe, pretty lines on a terminal.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import pino, { type Logger } from "pino";
import { routeOf, surfaceOf } from "./routes";

/** The caller's tenant, noted by the access policy once it knows it. */
const tenants = new WeakMap<ServerResponse, string>();
export const noteTenant = (res: ServerResponse, tenant: string) => void tenants.set(res, tenant);

export function createRequestLogger(): Logger {
  const options = { base: undefined, timestamp: pino.stdTimeFunctions.isoTime };
  // pino-pretty runs in a worker thread; a pipe gets JSON lines written straight away.
  return process.stdout.isTTY ? pino(options, pino.transport({ target: "pino-pretty", options: { translateTime: "SYS:HH:MM:ss.l" } })) : pino(options);
}

/** Logs the request when its response ends. `path` and `query` are read before routing rewrites the URL. */
export function logRequest(logger: Logger, logQueries: boolean, req: IncomingMessage, res: ServerResponse, path: string, query: string): void {
  const started = performance.now();
  const method = req.method ?? "GET";
  res.once("close", () => {
    const status = res.headersSent ? res.statusCode : 499;
    const line = {
      request_id: String(res.getHeader("x-request-id") ?? ""),
      method,
      surface: surfaceOf(path),
      route: routeOf(method, path),
      status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      tenant: tenants.get(res) ?? null,
      ...(logQueries && query ? { query } : {}),
    };
    const level = status >= 500 ? "error" : status >= 400 ? "warn" : "info";
    logger[level](line, "request");
  });
}
