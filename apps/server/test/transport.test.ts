/**
 * The HTTP transport around the API surfaces: slow clients (header and request timeouts), methods
 * no surface serves (CONNECT), ambiguous credentials (two Authorization headers) and the request
 * id every error body carries, on REST, tRPC and MCP.
 */
import { connect } from "node:net";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, startServer, type TestServer } from "./harness";

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    env: {
      ORGSIM_SAMPLE_SIZE: "20",
      ORGSIM_ALLOWED_HOSTS: "orgsim.internal, [fd00:0:0::5]",
      ORGSIM_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      ORGSIM_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    },
  });
});
afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

interface RawAnswer {
  status: number;
  text: string;
  /** Milliseconds from connecting to the end of the answer. */
  ms: number;
}

/** Writes `parts` to a new connection, `pauseMs` apart, and reads what comes back until the server closes it. */
function rawExchange(parts: string[], pauseMs = 0): Promise<RawAnswer> {
  const url = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(url.port), url.hostname);
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text, ms: Date.now() - started }));
    socket.setTimeout(20_000, () => socket.destroy(new Error("no answer within 20 s")));
    let i = 0;
    const next = () => {
      const part = parts[i++];
      if (part === undefined) return;
      socket.write(part);
      setTimeout(next, pauseMs);
    };
    socket.on("connect", next);
  });
}

const bodyOf = (answer: RawAnswer) => JSON.parse(answer.text.slice(answer.text.indexOf("\r\n\r\n") + 4));

/** A request with headers given as Node sends them (an array value is sent as several headers). */
function send(method: string, path: string, headers: Record<string, string | string[]>, body?: string): Promise<{ status: number; body: any }> {
  const url = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("slow clients", () => {
  it("answers headers that do not arrive within ORGSIM_HEADERS_TIMEOUT_MS with 408 REQUEST_TIMEOUT and a request id", async () => {
    const answer = await rawExchange(
      ["GET /v1/categories HTTP/1.1\r\n", "Host: 127.0.0.1\r\n", "X-Slow: 1\r\n", "X-Slow: 2\r\n", "X-Slow: 3\r\n", "X-Slow: 4\r\n"],
      500,
    );
    console.log(`[transport] headers cut after ${answer.ms} ms (timeout ${HEADERS_TIMEOUT_MS} ms)`);
    expect(answer.status, answer.text).toBe(408);
    expect(bodyOf(answer).error).toMatchObject({
      code: "REQUEST_TIMEOUT",
      status: 408,
      details: { headers_timeout_ms: HEADERS_TIMEOUT_MS },
      request_id: expect.any(String),
    });
  });

  it("answers a body that does not arrive within ORGSIM_REQUEST_TIMEOUT_MS with 408", async () => {
    const head = "POST /v1/collections HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n";
    const answer = await rawExchange([head, '{"name":', '"slow', " body", " still", " coming", " ..."], 600);
    console.log(`[transport] body cut after ${answer.ms} ms (timeout ${REQUEST_TIMEOUT_MS} ms)`);
    expect(answer.status, answer.text).toBe(408);
    expect(bodyOf(answer).error).toMatchObject({ code: "REQUEST_TIMEOUT", status: 408, request_id: expect.any(String) });
  });
});

describe("methods and malformed requests", () => {
  it("answers CONNECT with 405 and the contract's error, not a dropped connection", async () => {
    const answer = await rawExchange([`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-Id: connect-1\r\n\r\n`]);
    expect(answer.status, answer.text).toBe(405);
    expect(answer.text).toMatch(/\r\nallow: GET, POST, PUT, PATCH, DELETE\r\n/i);
    expect(bodyOf(answer).error).toMatchObject({ code: "METHOD_NOT_ALLOWED", status: 405, request_id: "connect-1" });
  });

  it("gives every error a request id: malformed requests, headers too large, unknown routes", async () => {
    const malformed = await rawExchange(["GET /v1/categories HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n"]);
    expect(malformed.status, malformed.text).toBe(400);
    expect(bodyOf(malformed).error).toMatchObject({ code: "VALIDATION_FAILED", request_id: expect.any(String) });
    const huge = await rawExchange([`GET /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(70 * 1024)}\r\n\r\n`]);
    expect(huge.status).toBe(413);
    expect(bodyOf(huge).error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", request_id: expect.any(String) });
    const unknown = await send("GET", "/nowhere", {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.request_id).toEqual(expect.any(String));
  });
});

describe("two Authorization headers", () => {
  const twice = { authorization: [`Bearer osk_0123456789abcdef_${"A".repeat(43)}`, `Bearer osk_fedcba9876543210_${"B".repeat(43)}`] };

  it("are refused with 400 naming authorization on REST, tRPC and MCP", async () => {
    const rest = await send("GET", "/v1/categories", twice);
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({ code: "VALIDATION_FAILED", details: { issues: [{ path: ["authorization"] }] }, request_id: expect.any(String) });

    const trpc = await send("GET", "/trpc/categories.list", twice);
    expect(trpc.status).toBe(400);
    expect(trpc.body.error.data.error).toMatchObject({ code: "VALIDATION_FAILED", details: { issues: [{ path: ["authorization"] }] } });

    const mcp = await send(
      "POST",
      "/mcp",
      { ...twice, "content-type": "application/json", accept: "application/json, text/event-stream" },
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    );
    expect(mcp.status).toBe(400);
    expect(mcp.body.error.data).toMatchObject({ code: "VALIDATION_FAILED", details: { issues: [{ path: ["authorization"] }] } });
  });
});

describe("DNS rebinding: Host and Origin", () => {
  const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const port = () => new URL(server.baseUrl).port;
  /** A state-changing and a reading call on each surface, with these headers. */
  async function everySurface(headers: Record<string, string>) {
    const h = { ...JSON_HEADERS, ...headers };
    return {
      restWrite: await send("POST", "/v1/collections", h, JSON.stringify({ name: "Rebound" })),
      restRead: await send("GET", "/v1/categories", h),
      trpcWrite: await send("POST", "/trpc/collections.create", h, JSON.stringify({ name: "Rebound" })),
      trpcRead: await send("GET", "/trpc/categories.list", h),
      mcp: await send("POST", "/mcp", h, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })),
    };
  }
  const statuses = (answers: Record<string, { status: number }>) => Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, v.status]));

  it("refuses a Host that is neither loopback nor in ORGSIM_ALLOWED_HOSTS with 403, on REST, tRPC and MCP", async () => {
    for (const host of ["evil.example", `evil.example:${port()}`, "127.0.0.1.evil.example", "localhost.evil.example", "evil@127.0.0.1"]) {
      const answers = await everySurface({ host });
      expect(statuses(answers), host).toEqual({ restWrite: 403, restRead: 403, trpcWrite: 403, trpcRead: 403, mcp: 403 });
      expect(answers.restWrite.body.error).toMatchObject({
        code: "FORBIDDEN",
        message: expect.stringMatching(/ORGSIM_ALLOWED_HOSTS/),
        request_id: expect.any(String),
      });
      expect(answers.trpcWrite.body.error.data.error).toMatchObject({ code: "FORBIDDEN" });
      // The tRPC envelope says FORBIDDEN too, as a client reading `data.code` expects.
      expect(answers.trpcWrite.body.error.data).toMatchObject({ code: "FORBIDDEN", httpStatus: 403 });
      expect(answers.mcp.body.error.data).toMatchObject({ code: "FORBIDDEN" });
    }
    // Nothing was written.
    const names = (await send("GET", "/v1/collections?limit=100", {})).body.data.map((c: any) => c.name);
    expect(names).not.toContain("Rebound");
  });

  it("serves loopback names and the names in ORGSIM_ALLOWED_HOSTS", async () => {
    // [fd00::5] is listed as [fd00:0:0::5]: names compare as a URL parser reads them.
    for (const host of [`127.0.0.1:${port()}`, `localhost:${port()}`, "orgsim.internal", `ORGSIM.internal:${port()}`, "[fd00::5]:8080", "[::1]"]) {
      expect(statuses(await everySurface({ host })), host).toEqual({ restWrite: 201, restRead: 200, trpcWrite: 200, trpcRead: 200, mcp: 200 });
    }
  });

  it("refuses a browser Origin that is not allowed on requests that change data, and lets it read", async () => {
    for (const origin of ["https://evil.example", "http://127.0.0.1.evil.example:3000", "null"]) {
      const answers = await everySurface({ host: `127.0.0.1:${port()}`, origin });
      expect(statuses(answers), origin).toEqual({ restWrite: 403, restRead: 200, trpcWrite: 403, trpcRead: 200, mcp: 403 });
      expect(answers.restWrite.body.error).toMatchObject({ code: "FORBIDDEN", details: { origin } });
    }
    for (const origin of ["http://localhost:6274", "https://orgsim.internal"]) {
      expect(statuses(await everySurface({ host: `127.0.0.1:${port()}`, origin })), origin).toEqual({
        restWrite: 201,
        restRead: 200,
        trpcWrite: 200,
        trpcRead: 200,
        mcp: 200,
      });
    }
  });
});
