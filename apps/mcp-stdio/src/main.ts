#!/usr/bin/env node
/**
 * orgsim over MCP stdio, for clients that start their servers as a process (Claude
 * Desktop, Cursor, VS Code). Same configuration as the HTTP server (ORGSIM_DATA_DIR,
 * ORGSIM_MODEL, ORGSIM_MODEL_DIR, ORGSIM_SAMPLE_SIZE); stdout is the protocol, the log goes to stderr.
 *
 * It answers `initialize` and `tools/list` as soon as the model is loaded; tool calls
 * wait until the sample data of an empty store is embedded (first start only).
 */
import "./stdout-guard";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createOrgsimMcpServer } from "@orgsim/mcp";
import { createApp, loadConfig } from "@orgsim/runtime";

const log = (line: string) => process.stderr.write(`[orgsim-mcp] ${line}\n`);

async function main() {
  const config = loadConfig();
  const app = await createApp(config);
  const ready = app.loadSampleData(log);
  ready.then(
    async () => log(`ready: ${await app.services.organizations.count()} organizations, model ${app.embedder.modelId}, data ${config.dataDir}`),
    (error: unknown) => log(`could not load the data: ${error instanceof Error ? error.message : String(error)}`),
  );

  const server = createOrgsimMcpServer({ services: app.services, ready, log });
  const transport = new StdioServerTransport();

  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`${why}: stopping`);
    await server.close().catch(() => {});
    // A sample load in flight is cut short: each batch is written atomically.
    await app.close().catch(() => {});
    process.exit(0);
  };
  // The client ends the session by closing our stdin (or with a signal).
  process.stdin.on("end", () => void stop("stdin closed"));
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));

  await server.connect(transport);
  log("serving MCP on stdio");
}

main().catch((error: unknown) => {
  log(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
