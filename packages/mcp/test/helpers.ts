/**
 * A real orgsim (real model, real SQLite in a temp directory, fictional sample data)
 * and an SDK client connected to its MCP server through the SDK's in-memory transport.
 * The services come from the composition root, @orgsim/runtime (which does not depend on this package).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type App, createApp, loadConfig } from "@orgsim/runtime";
import { afterAll, beforeAll } from "vitest";
import { createOrgsimMcpServer, type OrgsimMcpServerOptions } from "../src/index";

export const SAMPLE_SIZE = 60;

export interface Harness {
  app: App;
  dataDir: string;
  close(): Promise<void>;
}

export async function startApp(): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), "orgsim-mcp-"));
  const app = await createApp({ ...loadConfig({}), dataDir, sampleSize: SAMPLE_SIZE });
  await app.loadSampleData(() => {});
  return {
    app,
    dataDir,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts the app and connects a client before the file's tests (handing both to `use`), and closes both after them. */
export function withConnectedApp(use: (harness: Harness, client: Client) => void): void {
  let harness: Harness | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    harness = await startApp();
    client = await connect(harness.app);
    use(harness, client);
  });
  afterAll(async () => {
    await client?.close();
    await harness?.close();
  });
}

export async function connect(app: App, options: Partial<OrgsimMcpServerOptions> = {}): Promise<Client> {
  const server = createOrgsimMcpServer({ services: app.services, ...options });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "orgsim-test", version: "0.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  // The client validates structuredContent against the output schemas it lists.
  await client.listTools();
  return client;
}

export type ToolResult = CallToolResult & { structuredContent?: any };

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** Calls a tool that must succeed and returns its structured content. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${text(result)}`);
  return result.structuredContent;
}

export const text = (result: ToolResult) => result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");

/** The contract error of an isError result: from its text's first line and from `_meta`. */
export function toolError(result: ToolResult) {
  if (!result.isError) throw new Error(`expected an error, got: ${text(result).slice(0, 300)}`);
  const first = text(result).split("\n")[0] ?? "";
  const meta = (result._meta?.["orgsim/error"] ?? {}) as { code: string; message: string; status: number; details: Record<string, any> };
  return { first, ...meta };
}
