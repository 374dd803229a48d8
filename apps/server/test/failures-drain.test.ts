/**
 * Graceful shutdown: on SIGTERM the server stops accepting connections, /ready answers 503
 * ("draining") to a request already under way on an open connection, the request in flight
 * (a bulk upsert that embeds for seconds) completes with 200 and is stored, and the process
 * exits 0. A drain that outlasts ORGSIM_SHUTDOWN_TIMEOUT_MS is cut and exits 1, with the cut
 * write stored entirely or not at all.
 */
import { mkdtempSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateSampleOrganizations } from "@orgsim/sample-data";
import { afterAll, describe, expect, it } from "vitest";
import { inspectStore, range, type ServerProcess, sleep, spawnServer, waitFor } from "./failures-support";
import { removeDir, TEST_BACKEND } from "./harness";

const dirs: string[] = [];
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const server of servers) await server.kill();
  for (const dir of dirs) removeDir(dir);
});

async function start(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "orgsim-drain-"));
  dirs.push(dataDir);
  const server = await spawnServer(dataDir, env);
  servers.push(server);
  return server;
}

/** 150 new organizations: several seconds of embedding on two cores. */
const organizations = generateSampleOrganizations({ count: 150 });
const bulk = (server: ServerProcess) =>
  fetch(`${server.baseUrl}/v1/organizations/bulk`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ organizations }),
  });

/** Everything the server sends on `socket` until it closes the connection. */
function readUntilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (text += chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
  });
}

/** The body of a raw HTTP/1.1 response (chunked or not). */
function bodyOf(raw: string): string {
  const [head, ...rest] = raw.split("\r\n\r\n");
  const body = rest.join("\r\n\r\n");
  if (!/\r\ntransfer-encoding: chunked/i.test(head ?? "")) return body;
  let out = "";
  let at = 0;
  for (;;) {
    const eol = body.indexOf("\r\n", at);
    const size = Number.parseInt(body.slice(at, eol), 16);
    if (!size) return out;
    out += body.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

describe("graceful shutdown", () => {
  it("finishes the request in flight, refuses new connections, reports draining on /ready, exits 0", { timeout: 120_000 }, async () => {
    const server = await start();
    const { port } = new URL(server.baseUrl);
    // A connection whose request has begun (headers not yet complete) when the signal comes.
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write("GET /ready HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const answer = readUntilClosed(socket);

    const upsert = bulk(server);
    await sleep(800); // the bulk upsert is embedding
    const t0 = Date.now();
    server.child.kill("SIGTERM");
    const draining = await waitFor("the drain message", () => /SIGTERM: draining (\d+) request/.exec(server.output())?.[1]);
    expect(Number(draining)).toBeGreaterThanOrEqual(1);

    // No new connections.
    await expect(fetch(`${server.baseUrl}/health`)).rejects.toThrow();

    // The request under way is answered: not ready, because draining; and the connection closes.
    socket.write("\r\n");
    const raw = await answer;
    expect(raw).toMatch(/^HTTP\/1\.1 503 /);
    expect(raw).toMatch(/\r\nconnection: close\r\n/i);
    const ready = JSON.parse(bodyOf(raw));
    expect(ready).toMatchObject({ status: "draining", checks: { accepting: false, model: true, data_loaded: true } });

    // The request in flight completes and is stored; then the process exits 0.
    const response = await upsert;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(organizations.length);
    const answeredAt = Date.now();
    const exit = await server.exited;
    expect(exit.code, server.output()).toBe(0);
    console.log(
      `[fault] ${TEST_BACKEND}: SIGTERM during a ${organizations.length}-organization bulk upsert: answered 200 ${answeredAt - t0} ms after the signal, ` +
        `process exited 0 ${Date.now() - answeredAt} ms after the answer`,
    );
    const state = await inspectStore(server.dataDir);
    expect(state.problems).toEqual([]);
    expect(state.ids).toEqual(range(1, organizations.length));
  });

  // The drain deadline is the server's, not the backend's: one backend shows it.
  it.skipIf(TEST_BACKEND !== "embedded")(
    "cuts what is still running at ORGSIM_SHUTDOWN_TIMEOUT_MS and exits 1, the cut write all or nothing",
    { timeout: 120_000 },
    async () => {
      const server = await start({ ORGSIM_SHUTDOWN_TIMEOUT_MS: "300" });
      const upsert = bulk(server).then(
        (response) => response.status,
        () => "connection lost" as const,
      );
      await sleep(800);
      server.child.kill("SIGTERM");
      expect(await upsert).toBe("connection lost");
      const exit = await server.exited;
      expect(exit.code).toBe(1);
      expect(server.output()).toMatch(/closing 1 request\(s\) still in flight/);
      const state = await inspectStore(server.dataDir);
      expect(state.problems).toEqual([]);
      expect([0, organizations.length]).toContain(state.ids.length);
    },
  );
});
