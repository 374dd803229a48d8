/**
 * Elasticsearch's floor for the server's own requests: the proxy passes requests through and keeps
 * them, and the replay keeps the order the server imposed. The upstream here is a plain HTTP server
 * that logs what reaches it; nothing of Elasticsearch's is imitated.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, RecordingProxy, recordRequests, replayedFloor } from "../src/perf/es-replay";

/** What reached the upstream, in order: each request's method, path, body and type, and each answer. */
const events: string[] = [];
const ANSWER_MS = 100;
/** Requests held until another has arrived: path -> the path it waits for. */
const holds = new Map<string, string>();
const seen = new Set<string>();
const waiting = new Map<string, () => void>();
const arrivalOf = (path: string) => new Promise<void>((resolve) => (seen.has(path) ? resolve() : waiting.set(path, resolve)));

async function upstreamHandler(request: IncomingMessage, response: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const path = request.url ?? "";
  events.push(`in ${request.method} ${path} ${Buffer.concat(chunks).toString()} ${request.headers["content-type"] ?? ""}`.trim());
  seen.add(path);
  waiting.get(path)?.();
  const heldFor = holds.get(path);
  if (heldFor) await arrivalOf(heldFor);
  // Answers take a while, so that a request sent too early reaches the upstream before them.
  await new Promise((resolve) => setTimeout(resolve, ANSWER_MS));
  events.push(`out ${path}`);
  response.writeHead(path.includes("missing") ? 404 : 200, { "content-type": "application/json" });
  response.end(JSON.stringify({ path }));
}

const upstream = createServer((request, response) => void upstreamHandler(request, response));
let upstreamUrl = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => upstream.close(resolve)));

const recorded = (path: string, started: number, ended: number, body = ""): RecordedRequest => ({
  method: body ? "POST" : "GET",
  path,
  headers: body ? { "content-type": "application/json" } : {},
  body: Buffer.from(body),
  started,
  ended,
});

describe("replayedFloor", () => {
  it("sends side by side what the server sent side by side, and after what it waited for", async () => {
    // a and b overlapped; d was sent once b had ended; c once all three had; the mapping and the other index are left out.
    const query = [
      recorded("/idx/_search?a", 0, 50, '{"a":1}'),
      recorded("/idx/_search?b", 1, 20, '{"b":1}'),
      recorded("/idx/_mget?d", 25, 40, '{"d":1}'),
      recorded("/idx/_doc/7?c", 60, 70),
      recorded("/idx/_mapping", 0, 5),
      recorded("/other/_count", 0, 5),
    ];
    // a answers only once b has reached the upstream: were they sent one after the other, the warm-up pass would never end.
    holds.set("/idx/_search?a", "/idx/_search?b");
    events.length = 0;
    const floor = await replayedFloor(upstreamUrl, "idx", [query]);
    holds.clear();

    expect(floor).toMatchObject({
      queries: 1,
      requests_per_query: 4,
      round_trips_per_query: 3,
      endpoints: { "POST _search": 2, "POST _mget": 1, "GET _doc": 1 },
    });
    const pass = events.slice(events.length / 2); // the timed pass, after the warm-up's
    const at = (event: string) => pass.findIndex((e) => e.startsWith(event));
    expect(pass.filter((e) => e.startsWith("in"))).toHaveLength(4);
    expect(at('in POST /idx/_search?a {"a":1} application/json')).toBeGreaterThanOrEqual(0);
    expect(at("in POST /idx/_mget?d")).toBeGreaterThan(at("out /idx/_search?b"));
    for (const before of ["out /idx/_search?a", "out /idx/_search?b", "out /idx/_mget?d"]) expect(at("in GET /idx/_doc/7?c")).toBeGreaterThan(at(before));
  });

  it("fails when a replayed request is refused", async () => {
    await expect(replayedFloor(upstreamUrl, "idx", [[recorded("/idx/_search?missing", 0, 1, "{}")]])).rejects.toThrow(/_search\?missing answered 404/);
  });
});

describe("RecordingProxy", () => {
  let proxy: RecordingProxy;
  let proxyUrl = "";
  beforeAll(async () => {
    proxy = new RecordingProxy(upstreamUrl);
    proxyUrl = await proxy.start();
  });
  afterAll(() => proxy.stop());

  it("passes requests and answers through, and keeps those made while a query is answered", async () => {
    // The "server" here is the upstream itself asked through the proxy: each path's answer is its own request.
    const viaProxy = createServer(async (request, response) => {
      const answer = await fetch(`${proxyUrl}/idx/_search?q=${request.url?.slice(1)}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      response.writeHead(answer.status);
      response.end(await answer.text());
    });
    await new Promise<void>((resolve) => viaProxy.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(viaProxy.address() as AddressInfo).port}`;
    try {
      const requests = await recordRequests(proxy, baseUrl, ["/one", "/two"]);
      expect(requests.map((query) => query.map((r) => [r.method, r.path, r.body.toString(), r.headers["content-type"]]))).toEqual([
        [["POST", "/idx/_search?q=one", "{}", "application/json"]],
        [["POST", "/idx/_search?q=two", "{}", "application/json"]],
      ]);
      for (const [request] of requests) expect((request as RecordedRequest).ended).toBeGreaterThanOrEqual((request as RecordedRequest).started);
      await expect(recordRequests(proxy, baseUrl, ["/missing"])).rejects.toThrow(/answered 404/);
      expect(proxy.recording).toBeNull();
    } finally {
      await new Promise((resolve) => viaProxy.close(resolve));
    }
  });
});
