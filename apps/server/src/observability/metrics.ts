/**
 * Operators' metrics in Prometheus format (prom-client), served at /metrics: requests by surface,
 * route and status with their latency, backend call and embedding latency, the number of stored
 * organizations, and rate-limit refusals, beside Node's process metrics. With worker processes the
 * primary sums every worker's metrics (prom-client's AggregatorRegistry, over the cluster's IPC).
 */
import cluster from "node:cluster";
import type { Observers } from "@orgsim/runtime";
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, register } from "prom-client";

export type Surface = "rest" | "trpc" | "mcp" | "other";

/** Seconds: from a cached lookup to a slow description search under load. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

collectDefaultMetrics({ register });
// prom-client answers the primary's requests for a worker's metrics once an AggregatorRegistry exists in the worker.
if (cluster.isWorker) new AggregatorRegistry();

const requests = new Counter({
  name: "orgsim_http_requests_total",
  help: "HTTP requests answered, by surface, route and status",
  labelNames: ["surface", "route", "status"],
});
const requestSeconds = new Histogram({
  name: "orgsim_http_request_duration_seconds",
  help: "Time from a request's arrival to its response's end, by surface and route",
  labelNames: ["surface", "route"],
  buckets: LATENCY_BUCKETS,
});
const rateLimited = new Counter({ name: "orgsim_rate_limited_total", help: "Requests refused by an API key's rate limit (429)", labelNames: ["surface"] });
const backendSeconds = new Histogram({
  name: "orgsim_backend_call_duration_seconds",
  help: "Organization store calls (the embedded backend or Elasticsearch), by operation and outcome",
  labelNames: ["operation", "outcome"],
  buckets: LATENCY_BUCKETS,
});
const embeddingSeconds = new Histogram({
  name: "orgsim_embedding_duration_seconds",
  help: "Embedding model runs, by purpose (query: a search text; document: organizations written)",
  labelNames: ["purpose"],
  buckets: LATENCY_BUCKETS,
});
const embeddedTexts = new Counter({ name: "orgsim_embedded_texts_total", help: "Texts embedded by the model, by purpose", labelNames: ["purpose"] });

/** Records one answered request. */
export function recordRequest(surface: Surface, route: string, status: number, seconds: number): void {
  requests.inc({ surface, route, status: String(status) });
  requestSeconds.observe({ surface, route }, seconds);
  if (status === 429) rateLimited.inc({ surface });
}

/** The observers runtime's createApp takes: backend calls and embeddings into their histograms. */
export const metricObservers: Pick<Observers, "storeCall" | "embedding"> = {
  storeCall(operation: string, seconds: number, failed: boolean) {
    backendSeconds.observe({ operation, outcome: failed ? "error" : "ok" }, seconds);
  },
  embedding(purpose: string, texts: number, seconds: number) {
    embeddingSeconds.observe({ purpose }, seconds);
    embeddedTexts.inc({ purpose }, texts);
  },
};

/** The number of stored organizations, read when scraped (from one process: they share the store). */
export function countOrganizations(count: () => Promise<number>): void {
  new Gauge({
    name: "orgsim_organizations",
    help: "Organizations in the store",
    // Every worker reads the same store: the cluster's sum would count it once per worker.
    aggregator: "max",
    async collect() {
      this.set(await count().catch(() => Number.NaN));
    },
  });
}

/** This process's metrics, or in a worker the whole cluster's, asked of the primary. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  if (!cluster.isWorker) return { contentType: register.contentType, body: await register.metrics() };
  return { contentType: register.contentType, body: await askPrimary() };
}

let asked = 0;
const pending = new Map<number, (body: string) => void>();

function askPrimary(): Promise<string> {
  const id = ++asked;
  if (pending.size === 0) process.on("message", onAnswer);
  return new Promise((resolve) => {
    pending.set(id, resolve);
    process.send?.({ type: "orgsim:metrics", id });
  });
}

function onAnswer(message: { type?: string; id?: number; body?: string } | undefined) {
  if (message?.type !== "orgsim:metrics-answer" || message.id === undefined) return;
  pending.get(message.id)?.(message.body ?? "");
  pending.delete(message.id);
  if (pending.size === 0) process.off("message", onAnswer);
}

/** In the primary: answers a worker's request for the cluster's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on("message", async (worker, message: { type?: string; id?: number } | undefined) => {
    if (message?.type !== "orgsim:metrics") return;
    const body = await aggregator.clusterMetrics().catch((error: Error) => `# cluster metrics failed: ${error.message}\n`);
    worker.send({ type: "orgsim:metrics-answer", id: message.id, body });
  });
}
