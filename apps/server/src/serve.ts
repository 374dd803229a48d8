/** Starts the server: opens the backend, loads the model, listens, loads sample data, shuts down gracefully. */
import cluster from "node:cluster";
import { once } from "node:events";
import type { Server, ServerResponse } from "node:http";
import { type AccessMode, assertSameModel } from "@orgsim/core";
import { type App, type Config, createApp, vectorIndexReporter } from "@orgsim/runtime";
import type { PrimaryMessage, WorkerMessage } from "./cluster";
import { isLoopbackHost } from "./http/access";
import { countOrganizations, metricObservers } from "./observability/metrics";
import { createRequestLogger } from "./observability/request-log";
import { inSpan, startTracing, stopTracing } from "./observability/tracing";
import { createHttpServer } from "./http/server";
import { findWebDist } from "./http/web-app";

/** One server process: a lone server, or one of the ORGSIM_WORKERS workers a primary runs (./cluster.ts, started by main.ts). */
export async function serve(config: Config): Promise<void> {
  const log = (line: string) => console.log(line);
  const onStop = stopRequests();
  if (startTracing()) log("Traces: exported over OTLP (OTEL_EXPORTER_OTLP_ENDPOINT)");
  const { app, modeAtStart } = await openGuarded(config);
  const server = createHttpServer(app, {
    loopbackOnly: isLoopbackHost(config.host),
    defaultRateLimitPerMinute: config.rateLimitPerMinute,
    openOnPurpose: config.openOnPurpose,
    allowedHosts: config.allowedHosts,
    modeAtStart,
    log,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    logger: createRequestLogger(),
    logQueries: config.logQueries,
  });
  const inFlight = trackResponses(server, app);
  server.listen(config.port, config.host);
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const base = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  const stop = gracefulStop({ server, app, inFlight, drainTimeoutMs: config.shutdownTimeoutMs, log });
  onStop(stop);

  await assertSameModel(app.organizationStore, app.embedder).catch((error: Error) => log(`WARNING: ${error.message}`));
  try {
    await app.loadSampleData(log);
  } catch (error) {
    if (app.isDraining()) return; // stopped while loading: the shutdown exits
    throw error;
  }
  if (app.isDraining()) return;
  const banner = readyBanner(app, config, base, modeAtStart, await app.services.organizations.count());
  if (cluster.isWorker) process.send?.({ type: "orgsim:ready", banner } satisfies WorkerMessage);
  else log(banner);
}

/**
 * A lone server stops at SIGINT or SIGTERM. A cluster worker stops when its primary says so, or
 * when the primary is gone; it ignores signals, which a terminal sends to every process of the
 * group at once (the primary's second signal, not the worker's own, stops it at once). A worker
 * listens from its first step and says so (the primary holds back stop requests until then). A
 * request to stop that comes before the server has started ends the process at once: there is
 * nothing to drain, and the store is safe to leave at any moment.
 */
function stopRequests(): (stop: (reason: string) => Promise<void>) => void {
  let handler: ((reason: string) => Promise<void>) | undefined;
  const request = (reason: string) => {
    if (handler) return void handler(reason);
    console.log(`${reason}: stopping before the server started`);
    process.exit(0);
  };
  if (cluster.isWorker) {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => {});
    process.on("message", (message: PrimaryMessage | undefined) => {
      if (message?.type === "orgsim:stop") request(message.signal);
      if (message?.type === "orgsim:force") request("a second signal");
    });
    process.on("disconnect", () => request("the primary process exited"));
    process.send?.({ type: "orgsim:listening" } satisfies WorkerMessage);
  } else {
    process.on("SIGINT", () => request("SIGINT"));
    process.on("SIGTERM", () => request("SIGTERM"));
  }
  return (stop) => {
    handler = stop;
  };
}

/** Opens the app, refusing (and closing it) when the configuration would expose it: open beyond loopback. */
async function openGuarded(config: Config): Promise<{ app: App; modeAtStart: AccessMode }> {
  const app = await createApp(config, {
    onVectorIndexProgress: vectorIndexReporter((line) => console.log(line), process.stdout),
    observe: { ...metricObservers, span: inSpan },
  });
  countOrganizations(() => app.organizationStore.count());
  const loopbackOnly = isLoopbackHost(config.host);
  const modeAtStart = await app.access.mode(config.openOnPurpose).catch(async (error) => {
    await app.close();
    throw error;
  });
  if (!loopbackOnly && config.openOnPurpose) {
    await app.close();
    throw new Error(`Refusing ORGSIM_OPEN=true on ${config.host}: a server runs open on loopback only (HOST=127.0.0.1)`);
  }
  if (!loopbackOnly && modeAtStart !== "keys") {
    await app.close();
    throw new Error(
      `Refusing to listen on ${config.host} without API keys: anyone who can reach it would have full access. ` +
        "Create a key first (pnpm orgsim keys create --tenant <tenant> --scopes search:read,collections:read,collections:write), or listen on 127.0.0.1.",
    );
  }
  return { app, modeAtStart };
}

interface ShutdownParts {
  server: Server;
  app: App;
  /** The responses in flight (see trackResponses). */
  inFlight: Set<ServerResponse>;
  drainTimeoutMs: number;
  log: (line: string) => void;
}

/**
 * Graceful shutdown: /ready turns 503 at once, the listener stops accepting connections, idle
 * keep-alive connections close, and every request in flight is answered (its connection then
 * closes). When all are done the backend and the model are released and the process exits 0.
 * After ORGSIM_SHUTDOWN_TIMEOUT_MS, or at a second signal, the remaining connections are cut
 * and it exits 1.
 */
function gracefulStop({ server, app, inFlight, drainTimeoutMs, log }: ShutdownParts): (signal: string) => Promise<void> {
  let stopping = false;
  let force: (() => void) | undefined;
  return async (signal: string) => {
    if (stopping) {
      force?.();
      return;
    }
    stopping = true;
    app.startDraining();
    for (const res of inFlight) if (!res.headersSent) res.setHeader("connection", "close");
    log(`${signal}: draining ${inFlight.size} request(s) in flight (up to ${drainTimeoutMs} ms; a second signal stops at once), then stopping`);
    const closed = once(server, "close");
    server.close(); // stops accepting; closes idle keep-alive connections
    let forced = false;
    const timer = setTimeout(() => force?.(), drainTimeoutMs);
    force = () => {
      if (forced) return;
      forced = true;
      log(`shutdown: closing ${inFlight.size} request(s) still in flight`);
      server.closeAllConnections();
      // Whatever still holds the process (a backend call that never returns) does not keep it alive.
      setTimeout(() => process.exit(1), 5_000).unref();
    };
    await closed;
    clearTimeout(timer);
    await app.close().catch((error: Error) => log(`shutdown: closing the backend failed: ${error.message}`));
    await stopTracing().catch((error: Error) => log(`shutdown: sending the last traces failed: ${error.message}`));
    log(forced ? "stopped (requests were cut at the drain timeout)" : "stopped");
    process.exit(forced ? 1 : 0);
  };
}

/** What the operator reads once the server is ready: where each surface is, the data and the access mode. */
function readyBanner(app: App, config: Config, base: string, modeAtStart: AccessMode, count: number): string {
  return [
    `orgsim is ready: ${count} organizations, backend ${app.organizationStore.backend}, model ${app.embedder.modelId}`,
    `  Web app  ${base}/${findWebDist() ? "" : "   (not built: pnpm --filter @orgsim/web build)"}`,
    `  REST     ${base}/v1   (e.g. ${base}/v1/search/organizations/similar?description=industrial+robots&countries=DE)`,
    `  tRPC     ${base}/trpc`,
    `  MCP      ${base}/mcp (Streamable HTTP); stdio: pnpm --silent mcp`,
    `  OpenAPI  ${base}/openapi.json`,
    `  Docs     ${base}/docs`,
    `  Health   ${base}/health, ${base}/ready`,
    config.backend === "embedded" ? `  Data     ${config.dataDir}` : `  Elasticsearch ${config.elasticsearch?.url}`,
    `  Access   ${accessLine(modeAtStart, config)}`,
  ].join("\n");
}

function accessLine(mode: AccessMode, config: Config): string {
  if (mode === "keys") return `API keys required (Authorization: Bearer …); ${config.rateLimitPerMinute} requests a minute per key unless the key sets its own`;
  if (mode === "revoked") {
    return "API keys required, but every key is revoked: requests are refused until a key is created (or restart with ORGSIM_OPEN=true to run open on loopback)";
  }
  return config.openOnPurpose
    ? "OPEN (ORGSIM_OPEN=true): no API key is active, so every local caller has full access; listening on loopback only"
    : "OPEN: no API keys configured, so every local caller has full access; listening on loopback only (create a key to require keys)";
}

/**
 * The responses in flight. While the server drains, every response asks its client to close the
 * connection, and each finished one closes the keep-alive connections left idle, so the
 * listener's "close" comes as soon as the last request is answered.
 */
function trackResponses(server: Server, app: App): Set<ServerResponse> {
  const inFlight = new Set<ServerResponse>();
  server.prependListener("request", (_req, res: ServerResponse) => {
    if (app.isDraining()) res.setHeader("connection", "close");
    inFlight.add(res);
    res.once("close", () => {
      inFlight.delete(res);
      if (app.isDraining()) server.closeIdleConnections();
    });
  });
  return inFlight;
}
