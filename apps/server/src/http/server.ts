/** The HTTP server: REST (/v1), tRPC (/trpc), MCP (/mcp), OpenAPI (/openapi.json, /docs) and health probes. */
import { createServer, type IncomingMessage, STATUS_CODES, type Server, type ServerResponse } from "node:http";
import { appRouter } from "@orgsim/api";
import { OrgsimError } from "@orgsim/core";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { App } from "../app";
import { type AccessPolicyOptions, createAccessPolicy } from "./access";
import { contextFactory, sendContractError } from "./context";
import { createDocsHandlers, send } from "./docs";
import { admitRequest, MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_TRPC_BATCH } from "./limits";
import { createMcpHandler } from "./mcp";
import { createRestHandler } from "./rest";

const notFound = (req: IncomingMessage, res: ServerResponse, path: string) => sendContractError(req, res, new OrgsimError("NOT_FOUND", `No route ${path}`));

export function createHttpServer(app: App, access: AccessPolicyOptions): Server {
  const accessOf = createAccessPolicy(app.access, access);
  const createContext = contextFactory(app.services, accessOf);
  const rest = createRestHandler(createContext);
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: "/trpc/",
    maxBodySize: MAX_BODY_BYTES,
    // A batch is one HTTP request but several operations: bounded, and each counts against the key's rate limit.
    maxBatchSize: MAX_TRPC_BATCH,
    createContext: ({ req, res, info }) => createContext(req, res, Math.max(1, info.calls.length)),
  });
  const mcp = createMcpHandler(app.services, { accessOf });
  let baseUrl = "";
  const docs = createDocsHandlers(() => baseUrl);

  // 64 KiB of headers: a 2,000-character query in a non-Latin script is ~18 KiB percent-encoded, over Node's 16 KiB default.
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    try {
      if (path.startsWith("/v1/")) {
        req.url = req.url?.slice(3);
        return await rest(req, res);
      }
      if (path.startsWith("/trpc/")) {
        if (!(await admitRequest(req, res, "trpc"))) return;
        return trpc(req, res);
      }
      if (path === "/mcp") return await mcp(req, res);
      if (path === "/health") return send(res, 200, "application/json", JSON.stringify({ status: "ok" }));
      if (path === "/ready") return await ready(app, res);
      if (path === "/openapi.json") return docs.openapi(res);
      if (path === "/docs" || path.startsWith("/docs/")) {
        if (await docs.docs(path, res)) return;
      }
      notFound(req, res, path);
    } catch (error) {
      console.error("request failed", error);
      if (!res.headersSent) sendContractError(req, res, error);
      else res.end();
    }
  });
  // Requests Node's parser refuses (URL and headers too large, malformed) still get the contract's error.
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === "ECONNRESET") return socket.destroy();
    const [code, status, message] =
      error.code === "HPE_HEADER_OVERFLOW"
        ? ["PAYLOAD_TOO_LARGE", 413, `The URL and headers exceed ${MAX_HEADER_BYTES / 1024} KiB`]
        : ["VALIDATION_FAILED", 400, "Malformed HTTP request"];
    const body = JSON.stringify({ error: { code, message, status, details: {}, request_id: null } });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  server.on("listening", () => {
    const address = server.address();
    if (address && typeof address === "object") {
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      baseUrl = `http://${host}:${address.port}`;
    }
  });
  return server;
}

/**
 * Readiness: 200 when the backend answers, the model is loaded, any sample data is stored and the
 * server is not shutting down; else 503. `checks` says which hold, `status` is "ready",
 * "not_ready" or "draining".
 */
async function ready(app: App, res: ServerResponse) {
  const checks = await app.readiness();
  const ok = Object.values(checks).every(Boolean);
  const status = ok ? "ready" : checks.accepting ? "not_ready" : "draining";
  send(res, ok ? 200 : 503, "application/json", JSON.stringify({ status, checks, backend: app.organizationStore.backend, model: app.embedder.modelId }));
}
