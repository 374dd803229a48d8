/** The HTTP server: REST (/v1), tRPC (/trpc), MCP (/mcp), OpenAPI (/openapi.json, /docs) and health probes. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { appRouter } from "@orgsim/api";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { App } from "../app";
import { type AccessPolicyOptions, createAccessPolicy } from "./access";
import { contextFactory } from "./context";
import { createDocsHandlers, send } from "./docs";
import { MAX_BODY_BYTES } from "./limits";
import { createMcpHandler } from "./mcp";
import { createRestHandler } from "./rest";

const notFound = (res: ServerResponse, path: string) =>
  send(res, 404, "application/json", JSON.stringify({ error: { code: "NOT_FOUND", message: `No route ${path}`, status: 404, details: {}, request_id: null } }));

export function createHttpServer(app: App, access: AccessPolicyOptions): Server {
  const accessOf = createAccessPolicy(app.access, access);
  const createContext = contextFactory(app.services, accessOf);
  const rest = createRestHandler(createContext);
  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: "/trpc/",
    maxBodySize: MAX_BODY_BYTES,
    createContext: ({ req, res }) => createContext(req, res),
  });
  const mcp = createMcpHandler(app.services, { accessOf });
  let baseUrl = "";
  const docs = createDocsHandlers(() => baseUrl);

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    try {
      if (path.startsWith("/v1/")) {
        req.url = req.url?.slice(3);
        return await rest(req, res);
      }
      if (path.startsWith("/trpc/")) return trpc(req, res);
      if (path === "/mcp") return await mcp(req, res);
      if (path === "/health") return send(res, 200, "application/json", JSON.stringify({ status: "ok" }));
      if (path === "/ready") return await ready(app, res);
      if (path === "/openapi.json") return docs.openapi(res);
      if (path === "/docs" || path.startsWith("/docs/")) {
        if (await docs.docs(path, res)) return;
      }
      notFound(res, path);
    } catch (error) {
      console.error("request failed", error);
      if (!res.headersSent) send(res, 500, "application/json", JSON.stringify({ error: { code: "INTERNAL", message: "Internal error", status: 500, details: {}, request_id: null } }));
      else res.end();
    }
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

async function ready(app: App, res: ServerResponse) {
  const backend = await app.organizationStore.ping().catch(() => false);
  const checks = { backend, model: true, data_loaded: app.isReady() };
  const ok = Object.values(checks).every(Boolean);
  send(res, ok ? 200 : 503, "application/json", JSON.stringify({ status: ok ? "ready" : "not_ready", checks, backend: app.organizationStore.backend, model: app.embedder.modelId }));
}
