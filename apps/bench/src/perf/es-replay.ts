/**
 * Elasticsearch's floor for a whole orgsim request: the very requests the server sent to
 * Elasticsearch for it, sent again straight to the node. An orgsim server is pointed at a recording
 * proxy; each query is asked of it once, alone, and the proxy keeps what the server sent while it
 * was answered. The replay keeps the order the server imposed: a request starts once every request
 * that had ended before the server sent it has ended again, so steps it ran side by side still run
 * side by side. What the server adds above the replay is its own work: routing, validation,
 * fusion, HTTP.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type FloorResult, floorOf } from "./floor";

/** One request the server sent to Elasticsearch, and when (ms, the bench process's clock). */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Content-Type and Accept: the client asks for its API version through them. */
  headers: Record<string, string>;
  body: Buffer;
  started: number;
  ended: number;
}

/** What a floor of replayed requests measured, and what was replayed. */
export interface ReplayResult extends FloorResult {
  /** Elasticsearch requests per orgsim request, mean. */
  requests_per_query: number;
  /** The longest chain of requests that had to wait for one another, mean. */
  round_trips_per_query: number;
  /** Each endpoint replayed (e.g. `POST _search`) and how many times over all queries. */
  endpoints: Record<string, number>;
}

/** A proxy in front of `esUrl` that records every request while `recording` is set. */
export class RecordingProxy {
  recording: RecordedRequest[] | null = null;
  private server: Server | null = null;

  constructor(private readonly esUrl: string) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      void this.forward(request).then(
        ({ status, headers, body }) => {
          response.writeHead(status, headers);
          response.end(body);
        },
        (error: Error) => {
          response.writeHead(502, { "content-type": "text/plain" });
          response.end(error.message);
        },
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async forward(request: IncomingMessage) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "accept"]) {
      const value = request.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    const recorded = { method: request.method ?? "GET", path: request.url ?? "/", headers, body };
    const started = performance.now();
    const answer = await send(this.esUrl, recorded);
    this.recording?.push({ ...recorded, started, ended: performance.now() });
    return answer;
  }
}

async function send(esUrl: string, request: Pick<RecordedRequest, "method" | "path" | "headers" | "body">) {
  const hasBody = request.body.length > 0 && request.method !== "GET" && request.method !== "HEAD";
  const response = await fetch(`${esUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: hasBody ? request.body : undefined,
  });
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "content-length" && name !== "transfer-encoding" && name !== "content-encoding") headers[name] = value;
  });
  return { status: response.status, headers, body };
}

/** Records the Elasticsearch requests behind each of `paths`, asked of the orgsim server at `baseUrl` one at a time. */
export async function recordRequests(proxy: RecordingProxy, baseUrl: string, paths: string[]): Promise<RecordedRequest[][]> {
  const recorded: RecordedRequest[][] = [];
  try {
    for (const path of paths) {
      const requests: RecordedRequest[] = [];
      proxy.recording = requests;
      const response = await fetch(`${baseUrl}${path}`);
      if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
      recorded.push(requests);
    }
    return recorded;
  } finally {
    proxy.recording = null;
  }
}

/** The positions of the requests that had ended before `request` was sent: those it waited for. */
const waitedFor = (requests: RecordedRequest[], request: RecordedRequest) => requests.flatMap((other, i) => (other.ended <= request.started ? [i] : []));

/** Sends one query's recorded requests again, each once the ones it waited for have ended. */
async function replayOne(esUrl: string, requests: RecordedRequest[]): Promise<void> {
  const sent: Promise<void>[] = [];
  for (const request of requests) {
    const waitsFor = waitedFor(requests, request).map((i) => sent[i] as Promise<void>);
    sent.push(
      Promise.all(waitsFor).then(async () => {
        const { status, body } = await send(esUrl, request);
        if (status >= 300) throw new Error(`replayed ${request.method} ${request.path} answered ${status}: ${body.toString().slice(0, 500)}`);
      }),
    );
  }
  await Promise.all(sent);
}

/** The longest chain of requests each waiting for the one before it. */
function roundTrips(requests: RecordedRequest[]): number {
  // Sorted by when they were sent, so whatever a request waited for comes before it.
  const depth: number[] = [];
  for (const request of requests) depth.push(1 + Math.max(0, ...waitedFor(requests, request).map((i) => depth[i] as number)));
  return Math.max(0, ...depth);
}

/**
 * What the server asked of the organizations index for the query: the checks it makes now and then
 * and caches (the index's mapping, whether any API key exists) are left out.
 */
const isOfTheQuery = (index: string) => (r: RecordedRequest) => r.path.startsWith(`/${index}/`) && !r.path.includes("/_mapping");

/** Replays each query's recorded requests to `index` once to warm up, then once timed; one query at a time. */
export async function replayedFloor(esUrl: string, index: string, recorded: RecordedRequest[][]): Promise<ReplayResult> {
  const queries = recorded.map((requests) => requests.filter(isOfTheQuery(index)).sort((a, b) => a.started - b.started));
  for (const requests of queries) await replayOne(esUrl, requests);
  const times: number[] = [];
  for (const requests of queries) {
    const started = performance.now();
    await replayOne(esUrl, requests);
    times.push(performance.now() - started);
  }
  const endpoints: Record<string, number> = {};
  for (const r of queries.flat()) {
    const endpoint = `${r.method} ${/\/(_\w+)/.exec(r.path)?.[1] ?? r.path}`;
    endpoints[endpoint] = (endpoints[endpoint] ?? 0) + 1;
  }
  const mean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)) * 100) / 100;
  return {
    ...floorOf(times),
    requests_per_query: mean(queries.map((q) => q.length)),
    round_trips_per_query: mean(queries.map(roundTrips)),
    endpoints,
  };
}
