/**
 * MCP over Streamable HTTP at /mcp, stateless: every POST gets a new MCP server and
 * transport (the SDK's stateless pattern), bound to the caller's tenant.
 *
 * Why stateless: every orgsim tool is one request and one answer; nothing is pushed to
 * the client later, so sessions would only add server memory, expiry and sticky
 * routing. A server per request costs little (the tool definitions and their JSON
 * Schemas are built once per process) and binds each request to its API key's
 * tenant and scopes.
 *
 * GET (a standalone event stream) and DELETE (ending a session) have nothing to do
 * without sessions: 405, as the SDK's stateless example answers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse } from "@modelcontextprotocol/sdk/types.js";
import { contractErrorOf, OrgsimError, type Services } from "@orgsim/core";
import { createOrgsimMcpServer } from "@orgsim/mcp";
import type { AccessPolicy } from "./access";
import { requestIdOf } from "./context";
import type { HostCheck } from "./host-check";
import { checkRequest, MAX_BODY_BYTES, MAX_MCP_BATCH } from "./limits";

export interface McpHandlerOptions {
  /** Authenticates the caller (API key, rate limit), as for REST and tRPC. */
  accessOf: AccessPolicy;
  /** DNS-rebinding protection, as for REST and tRPC (and as the MCP transport spec asks of local servers). */
  hostCheck: HostCheck;
  log?: (line: string) => void;
}

export function createMcpHandler(services: Services, options: McpHandlerOptions) {
  const log = options.log ?? ((line: string) => console.error(line));

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = options.hostCheck(req);
    if (refused) return refuse(req, res, refused);
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      return jsonRpcError(res, 405, "Method not allowed: this MCP endpoint is stateless and takes POST only");
    }
    // The same body checks as REST and tRPC (UTF-8, duplicate keys, lone surrogates, prototype keys, depth, 5 MiB).
    let body: unknown;
    try {
      await checkRequest(req, "trpc");
      body = JSON.parse((req as IncomingMessage & { body?: string }).body || "null");
    } catch (cause) {
      if (!(cause instanceof OrgsimError)) throw cause;
      // JSON-RPC's "parse error" for a body that is not acceptable JSON; a generic server error for one too large.
      return refuse(req, res, cause, cause.code === "VALIDATION_FAILED" ? -32700 : -32000);
    }
    if (Array.isArray(body) && body.length > MAX_MCP_BATCH) {
      const tooMany = `a JSON-RPC batch may hold at most ${MAX_MCP_BATCH} messages; this one holds ${body.length}`;
      return refuse(req, res, OrgsimError.validation([{ path: ["batch"], message: tooMany }]), -32600);
    }
    // A batch is one HTTP request but several calls: each counts against the key's rate limit, as on tRPC.
    const access = await options.accessOf(req, res, callsIn(body));
    // MCP clients start their auth flow on HTTP 401.
    if ("refused" in access) return refuse(req, res, access.refused);
    // Links to REST (export_collection) name the server as the client reached it; the Host was checked above.
    const server = createOrgsimMcpServer({ services, principal: access.principal, log, restBaseUrl: req.headers.host ? `http://${req.headers.host}` : null });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      // One JSON answer a request: no tool streams anything.
      enableJsonResponse: true,
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    oneCallAtATime(transport);
    await transport.handleRequest(req, res, body);
  };
}

/** The JSON-RPC requests a body holds (a batch's elements with a method and an id; at least 1). */
function callsIn(body: unknown): number {
  if (!Array.isArray(body)) return 1;
  const isCall = (m: unknown) => typeof m === "object" && m !== null && "method" in m && "id" in m;
  return Math.max(1, body.filter(isCall).length);
}

/**
 * Hands a batch's requests to the MCP server one at a time, each once the previous one is answered.
 * The SDK starts them all at once, which queues every model run and search of the batch ahead of
 * other clients' requests (a batch of 100 long searches held them for seconds); one at a time,
 * another client's request waits for one call at most.
 */
function oneCallAtATime(transport: StreamableHTTPServerTransport) {
  const deliver = transport.onmessage;
  const send = transport.send.bind(transport);
  const answered = new Map<string | number, () => void>();
  let previous = Promise.resolve();
  transport.send = async (message, options) => {
    await send(message, options);
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) answered.get(message.id ?? "")?.();
  };
  transport.onmessage = (message, extra) => {
    if (!isJSONRPCRequest(message)) return deliver?.(message, extra);
    previous = previous.then(
      () =>
        new Promise<void>((resolve) => {
          answered.set(message.id, resolve);
          deliver?.(message, extra);
        }),
    );
  };
}

/** A refusal at the contract's status, as a JSON-RPC error whose `data` is the contract's error. */
function refuse(req: IncomingMessage, res: ServerResponse, cause: OrgsimError, rpcCode = -32000) {
  const error = contractErrorOf(cause, requestIdOf(req, res));
  jsonRpcError(res, error.status, `${error.code}: ${error.message}`, error, rpcCode);
}

/** Transport-level refusals are JSON-RPC errors (no request id), as the SDK writes its own. */
function jsonRpcError(res: ServerResponse, status: number, message: string, data?: unknown, code = -32000) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message, ...(data === undefined ? {} : { data }) }, id: null }));
}
