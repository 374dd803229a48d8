/**
 * Starts the real server (the `orgsim serve` command) as a child process on a
 * free port with its own data directory, and talks to it over real HTTP.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { inject } from "vitest";
import { generateSampleOrganizations } from "@orgsim/sample-data";
import { orgsimScript, startOrgsimServe } from "@orgsim/testing/serve";
import { normalizeOrganization, type Organization, OrganizationWithId } from "@orgsim/core";

const SERVER_DIR = join(import.meta.dirname, "..");
/** Every server and command the suite starts runs dist/orgsim.mjs, which test/bundle-setup.ts builds first. */
export const ENTRY = "bundle";
/** node's arguments for `orgsim <args>` as the suite runs it. */
export const orgsimArgs = (args: string[]) => [...orgsimScript(ENTRY), ...args];
export const TEST_SAMPLE_SIZE = 400;

declare module "vitest" {
  export interface ProvidedContext {
    /** Provided by the elasticsearch project's global setup. */
    elasticsearchUrl: string;
  }
}

/** Which backend this run of the suite exercises (set per vitest project). */
export const TEST_BACKEND = (process.env.ORGSIM_TEST_BACKEND ?? "embedded") as "embedded" | "elasticsearch";

/**
 * The environment that points a server (or the import command) at this run's backend. On
 * Elasticsearch a data directory maps to its own index prefix, so a restart finds its data again.
 */
export function backendEnv(dataDir: string): Record<string, string> {
  if (TEST_BACKEND === "embedded") return { ORGSIM_BACKEND: "embedded", ORGSIM_DATA_DIR: dataDir };
  return {
    ORGSIM_BACKEND: "elasticsearch",
    ELASTICSEARCH_URL: inject("elasticsearchUrl"),
    ORGSIM_ES_INDEX_PREFIX: basename(dataDir)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "-"),
    ORGSIM_DATA_DIR: dataDir,
  };
}

export interface TestServer {
  baseUrl: string;
  dataDir: string;
  output: () => string;
  stop(): Promise<void>;
}

export async function startServer(options: { dataDir?: string; env?: Record<string, string> } = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "orgsim-test-"));
  const server = await startOrgsimServe({
    serverDir: SERVER_DIR,
    entry: ENTRY,
    env: { ...backendEnv(dataDir), ORGSIM_SAMPLE_SIZE: String(TEST_SAMPLE_SIZE), ...options.env },
  });
  return { baseUrl: server.baseUrl, dataDir, output: server.output, stop: server.stop };
}

export function removeDir(dir: string) {
  rmSync(dir, { recursive: true, force: true });
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A JSON request to the REST API (paths are relative to /v1), with an API key when given. */
export async function api<T = any>(server: TestServer, method: string, path: string, body?: unknown, apiKey?: string): Promise<ApiResponse<T>> {
  const response = await fetch(`${server.baseUrl}/v1${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
}

/** The sample organizations the test server loads, as stored: ground truth for filter tests. */
export function sampleOrganizations(): Organization[] {
  return generateSampleOrganizations({ count: TEST_SAMPLE_SIZE }).map((o) => normalizeOrganization(OrganizationWithId.parse(o)));
}

export const query = (params: Record<string, string | number | boolean | (string | number)[]>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, String(v));
  }
  return search.toString();
};

/** Runs the orgsim command (as `pnpm orgsim …` would) against a data directory's backend. */
export async function orgsimCommand(args: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, orgsimArgs(args), { cwd: SERVER_DIR, env: { ...process.env, ...backendEnv(dataDir) } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const code = await new Promise<number>((resolve) => child.once("exit", (c) => resolve(c ?? 1)));
  return { code, stdout, stderr };
}
