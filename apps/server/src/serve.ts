/** Starts the server: opens the backend, loads the model, listens, loads sample data, shuts down gracefully. */
import { once } from "node:events";
import { assertSameModel } from "@orgsim/core";
import { createApp } from "./app";
import type { Config } from "./config";
import { createHttpServer } from "./http/server";

export async function serve(config: Config): Promise<void> {
  const log = (line: string) => console.log(line);
  const app = await createApp(config);
  const server = createHttpServer(app);
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
      // Access control arrives with API keys; until then the server is for loopback use.
      "  Access   open (no API keys configured): listening for local use only",
    ].join("\n"),
  );
}
