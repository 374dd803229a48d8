/**
 * The stdio binary as a client starts it: a child process speaking MCP on stdin/stdout,
 * driven by the official SDK client (StdioClientTransport), with its own data directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { agentWorkflow, errorOf } from "@orgsim/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const APP_DIR = join(import.meta.dirname, "..");
const dataDir = mkdtempSync(join(tmpdir(), "orgsim-mcp-stdio-"));
let stderr = "";
let transport: StdioClientTransport;
let client: Client;
const protocolErrors: Error[] = [];

beforeAll(async () => {
  transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", "src/main.ts"],
    cwd: APP_DIR,
    env: { ...(process.env as Record<string, string>), ORGSIM_BACKEND: "embedded", ORGSIM_DATA_DIR: dataDir, ORGSIM_SAMPLE_SIZE: "60" },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk) => (stderr += chunk));
  client = new Client({ name: "orgsim-stdio-test", version: "0.0.0" });
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("orgsim-mcp over stdio", () => {
  it("introduces itself with instructions", () => {
    expect(client.getServerVersion()).toMatchObject({ name: "orgsim" });
    expect(client.getInstructions()).toContain("search_organizations_by_description");
  });

  it("runs an agent's workflow: every tool, bad input, the one-type rule", async () => {
    const report = await agentWorkflow(client);
    expect(report.called.size).toBe(16);
  });

  it("answers bad arguments with a tool error, not a protocol error", async () => {
    const result = (await client.callTool({ name: "create_collection", arguments: { name: "", colour: "red" } })) as any;
    const error = errorOf(result);
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.first).toContain("name");
    expect(error.first).toContain('"colour"');
  });

  it("keeps stdout for the protocol: the log is on stderr", () => {
    expect(protocolErrors).toEqual([]);
    expect(stderr).toContain("[orgsim-mcp] serving MCP on stdio");
    expect(stderr).toContain("loading 60 sample organizations");
    expect(stderr).toMatch(/ready: 60 organizations/);
  });

  it("stops when the client closes the connection", async () => {
    const pid = transport.pid!;
    await client.close();
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isAlive(pid)).toBe(false);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
