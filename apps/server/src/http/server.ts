/** The HTTP server: the web app (/), REST (/v1), tRPC (/trpc), MCP (/mcp), OpenAPI (/openapi.json, /docs) and health probes. */
import { createServer, type IncomingMessage, STATUS_CODES, type Server, type ServerOptions, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { appRouter } from "@orgsim/api";
import { assertScope, contractErrorOf, OrgsimError } from "@orgsim/core";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { App } from "@orgsim/runtime";
import { metricsText, recordRequest } from "../observability/metrics";
import { logRequest } from "../observability/request-log";
import { routeOf, surfaceOf } from "../observability/routes";
import { inRequestSpan } from "../observability/tracing";
import { type AccessPolicy, type AccessPolicyOptions, createAccessPolicy, isLoopbackHost } from "./access";
import { type ContextFactory, contextFactory, errorBody, requestIdFrom, requestIdOf, sendContractError } from "./context";
import { createDocsHandlers, send } from "./docs";
import { createExportHandler, exportRequestOf } from "./export";
import { createHostCheck } from "./host-check";
import { admitRequest, MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_TRPC_BATCH, sendRefusal } from "./limits";
import { createMcpHandler } from "./mcp";
import { createRestHandler } from "./rest";
import { createWebAppHandler } from "./web-app";

const notFound = (req: IncomingMessage, res: ServerResponse, path: string) => sendContractError(req, res, new OrgsimError("NOT_FOUND", `No route ${path}`));

export interface HttpServerOptions extends AccessPolicyOptions {
  /** Names besides loopback ones clients may call this server by (DNS-rebinding protection, see ./host-check). */
  allowedHosts: readonly string[];
  /** How long a client may take to send the request line and headers; then 408. */
  headersTimeoutMs: number;
  /** How long a client may take to send the whole request; then 408. */
  requestTimeoutMs: number;
  /** Where a line per request goes (none: no request log). */
  logger?: Logger;
  /** Request log lines carry the query string (ORGSIM_LOG_QUERIES). */
  logQueries?: boolean;
}

export function createHttpServer(app: App, options: HttpServerOptions): Server {
  let baseUrl = "";
  const route = createRouter(app, options, () => baseUrl);
  const server = createServer(nodeServerOptions(options), async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    // One id from arrival: every later reader (REST, tRPC, MCP, the log) echoes it.
    req.headers["x-request-id"] = requestIdOf(req, res);
    observeRequest(req, res, path);
    if (options.logger) logRequest(options.logger, options.logQueries ?? false, req, res, path, url.search);
    await inRequestSpan(req, res, routeOf(req.method ?? "GET", path), async () => {
      try {
        await route(req, res, path);
      } catch (error) {
        console.error("request failed", error);
        if (!res.headersSent) sendContractError(req, res, error);
        else res.end();
      }
    });
  });
  answerRefusedConnections(server, options);
  server.on("listening", () => {
    const address = server.address();
    if (address && typeof address === "object") {
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      baseUrl = `http://${host}:${address.port}`;
    }
  });
  return server;
}

/** Sends each path to its surface; `publicBaseUrl` is the address the OpenAPI document names. */
function createRouter(app: App, options: HttpServerOptions, publicBaseUrl: () => string) {
  const accessOf = createAccessPolicy(app.access, options);
  const createContext = contextFactory(app.services, accessOf);
  const hostCheck = createHostCheck(options.allowedHosts);
  const rest = createRestHandler(createContext);
  const exportCollection = createExportHandler(createContext);
  const trpc = createTrpcHandler(createContext);
  const mcp = createMcpHandler(app.services, { accessOf, hostCheck });
  const docs = createDocsHandlers(publicBaseUrl);
  const webApp = createWebAppHandler();

  return async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (path.startsWith("/v1/")) {
      const refused = hostCheck(req);
      if (refused) return sendRefusal(req, res, refused, "rest");
      req.url = req.url?.slice(3);
      // A streamed file, which trpc-to-openapi cannot serve: see ./export.
      const exportOf = exportRequestOf(req);
      if (exportOf !== null) return await exportCollection(req, res, exportOf);
      return await rest(req, res);
    }
    if (path.startsWith("/trpc/")) {
      const refused = hostCheck(req);
      if (refused) return sendRefusal(req, res, refused, "trpc");
      if (!(await admitRequest(req, res, "trpc"))) return;
      return trpc(req, res);
    }
    if (path === "/mcp") return await mcp(req, res);
    if (path === "/health") return send(res, 200, "application/json", JSON.stringify({ status: "ok" }));
    if (path === "/ready") return await ready(app, res);
    if (path === "/metrics") return await metrics(req, res, accessOf);
    if (path === "/openapi.json") return docs.openapi(res);
    if (path === "/docs" || path.startsWith("/docs/")) {
      if (await docs.docs(path, res)) return;
    }
    if (await webApp(req, res, path)) return;
    notFound(req, res, path);
  };
}

/** Counts and times the request when its response ends (the path is read before routing rewrites the URL). */
function observeRequest(req: IncomingMessage, res: ServerResponse, path: string) {
  const started = performance.now();
  const surface = surfaceOf(path);
  const route = routeOf(req.method ?? "GET", path);
  res.once("finish", () => recordRequest(surface, route, res.statusCode, (performance.now() - started) / 1000));
}

/** Prometheus metrics: open to loopback callers; from elsewhere, an API key with the metrics:read scope. */
async function metrics(req: IncomingMessage, res: ServerResponse, accessOf: AccessPolicy) {
  if (!isLoopbackHost(req.socket.remoteAddress ?? "")) {
    const access = await accessOf(req, res);
    if ("refused" in access) throw access.refused;
    assertScope(access.principal, "metrics:read");
  }
  const { contentType, body } = await metricsText();
  send(res, 200, contentType, body);
}

function createTrpcHandler(createContext: ContextFactory) {
  return createHTTPHandler({
    router: appRouter,
    basePath: "/trpc/",
    maxBodySize: MAX_BODY_BYTES,
    // A batch is one HTTP request but several operations: bounded, and each counts against the key's rate limit.
    maxBatchSize: MAX_TRPC_BATCH,
    createContext: ({ req, res, info }) => createContext(req, res, Math.max(1, info.calls.length)),
  });
}

function nodeServerOptions(options: HttpServerOptions): ServerOptions {
  return {
    // 64 KiB of headers: a 2,000-character query in a non-Latin script is ~18 KiB percent-encoded, over Node's 16 KiB default.
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    // Node looks for expired requests every 30 s by default: a 2 s timeout would fire at up to 32 s.
    connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs),
  };
}

/** Requests Node's parser refuses (URL and headers too large, malformed, too slow), and CONNECT, still get the contract's error. */
function answerRefusedConnections(server: Server, timeouts: HttpServerOptions) {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === "ECONNRESET") return socket.destroy();
    answerOnSocket(socket, clientErrorOf(error, timeouts));
  });
  // Node hands CONNECT (a proxy tunnel) to this event, and drops the connection when nobody listens.
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    answerOnSocket(
      socket,
      new OrgsimError("METHOD_NOT_ALLOWED", "CONNECT is not served: this is not a proxy"),
      { allow: "GET, POST, PUT, PATCH, DELETE" },
      req,
    );
  });
}

/**
 * Readiness: 200 when the backend answers, the model is loaded, any sample data is stored and the
 * server is not shutting down; else 503. `checks` says which hold (booleans), plus the number of
 * stored organizations found unreadable (informational); `status` is "ready", "not_ready" or "draining".
 */
async function ready(app: App, res: ServerResponse) {
  const checks = await app.readiness();
  const ok = Object.values(checks).every((value) => typeof value !== "boolean" || value);
  const status = ok ? "ready" : checks.accepting ? "not_ready" : "draining";
  send(res, ok ? 200 : 503, "application/json", JSON.stringify({ status, checks, backend: app.organizationStore.backend, model: app.embedder.modelId }));
}

function clientErrorOf(error: NodeJS.ErrnoException, timeouts: HttpServerOptions): OrgsimError {
  if (error.code === "HPE_HEADER_OVERFLOW") return new OrgsimError("PAYLOAD_TOO_LARGE", `The URL and headers exceed ${MAX_HEADER_BYTES / 1024} KiB`);
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return new OrgsimError(
      "REQUEST_TIMEOUT",
      `The request was not received in time: headers within ${timeouts.headersTimeoutMs} ms, the whole request within ${timeouts.requestTimeoutMs} ms`,
      { headers_timeout_ms: timeouts.headersTimeoutMs, request_timeout_ms: timeouts.requestTimeoutMs },
    );
  }
  return OrgsimError.validation([{ path: ["request"], message: "Malformed HTTP request" }]);
}

/** The contract's error written straight to a connection Node's request handling does not own, which then closes. */
function answerOnSocket(socket: Duplex, cause: OrgsimError, headers: Record<string, string> = {}, req?: IncomingMessage) {
  const requestId = requestIdFrom(req);
  const body = errorBody(contractErrorOf(cause, requestId));
  const head = Object.entries({
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "x-request-id": requestId,
    ...headers,
    connection: "close",
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(`HTTP/1.1 ${cause.status} ${STATUS_CODES[cause.status]}\r\n${head}\r\n${body}`);
}
