/** Starts the server: opens the backend, loads the model, listens, loads sample data, shuts down gracefully. */
import { once } from "node:events";
import { assertSameModel } from "@orgsim/core";
import { createApp } from "./app";
import type { Config } from "./config";
import { isLoopbackHost } from "./http/access";
import { createHttpServer } from "./http/server";

export async function serve(config: Config): Promise<void> {
  const log = (line: string) => console.log(line);
  const app = await createApp(config);
  const loopbackOnly = isLoopbackHost(config.host);
  const keyed = await app.access.hasActiveKeys().catch(async (error) => {
    await app.close();
    throw error;
  });
  if (!loopbackOnly && !keyed) {
    await app.close();
    throw new Error(
      `Refusing to listen on ${config.host} without API keys: anyone who can reach it would have full access. ` +
        "Create a key first (pnpm orgsim keys create --tenant <tenant> --scopes search:read,collections:read,collections:write), or listen on 127.0.0.1.",
    );
  }
  const server = createHttpServer(app, { loopbackOnly, defaultRateLimitPerMinute: config.rateLimitPerMinute });
  server.listen(config.port, config.host);
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const base = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: finishing requests in flight, then stopping`);
    server.close();
    server.closeIdleConnections();
    await once(server, "close");
    await app.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));

  await assertSameModel(app.organizationStore, app.embedder).catch((error: Error) => log(`WARNING: ${error.message}`));
  await app.loadSampleData(log);
  const count = await app.services.organizations.count();
  log(
    [
      `orgsim is ready: ${count} organizations, backend ${app.organizationStore.backend}, model ${app.embedder.modelId}`,
      `  REST     ${base}/v1   (e.g. ${base}/v1/search/organizations/similar?description=industrial+robots&countries=DE)`,
      `  tRPC     ${base}/trpc`,
      `  MCP      ${base}/mcp (Streamable HTTP); stdio: pnpm --silent mcp`,
      `  OpenAPI  ${base}/openapi.json`,
      `  Docs     ${base}/docs`,
      `  Health   ${base}/health, ${base}/ready`,
      config.backend === "embedded" ? `  Data     ${config.dataDir}` : `  Elasticsearch ${config.elasticsearch?.url}`,
      (await app.access.hasActiveKeys())
        ? `  Access   API keys required (Authorization: Bearer …); ${config.rateLimitPerMinute} requests a minute per key unless the key sets its own`
        : "  Access   OPEN: no API keys configured, so every local caller has full access; listening on loopback only (create a key to require keys)",
    ].join("\n"),
  );
}
