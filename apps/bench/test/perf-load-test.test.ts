/**
 * The load runs' warm-up: one pass over every path, then the seconds, before anything is measured.
 * The server is a plain HTTP server that answers slowly and logs what reaches it.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadTest } from "../src/perf/load-test";

const ANSWER_MS = 200;
const arrivals: string[] = [];
const server = createServer((request, response) => {
  arrivals.push(request.url ?? "");
  setTimeout(() => response.end("{}"), ANSWER_MS);
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it("asks every path once before its seconds of warm-up, even where those seconds reach only a few, and measures none of them", async () => {
  // 12 paths at 200 ms each: a second of warm-up (autocannon counts whole seconds) reaches 5 of them.
  const paths = Array.from({ length: 12 }, (_, i) => `/q${i}`);
  const result = await loadTest(url, paths, 1, 0.3, 0.1);
  expect(arrivals.slice(0, paths.length)).toEqual(paths);
  expect(result.requests).toBeGreaterThan(0);
  expect(result.requests).toBeLessThanOrEqual(arrivals.length - paths.length);
}, 20_000);

it("warms up with fewer paths than connections: each connection asks once, the paths in turn", async () => {
  arrivals.length = 0;
  const result = await loadTest(url, ["/only"], 4, 0.3, 0.1);
  expect(arrivals.slice(0, 4)).toEqual(["/only", "/only", "/only", "/only"]);
  expect(result.requests).toBeGreaterThan(0);
}, 20_000);
