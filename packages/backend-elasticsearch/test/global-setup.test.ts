/**
 * The test node's start: a node this run starts comes up from an empty state directory, so old
 * runs' indexes are never recovered (they outlasted the start timeout); a node already running is
 * never cleaned nor stopped.
 */
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { NOT_RUNNING, nodeStart } from "./global-setup";

const ES = fileURLToPath(new URL("../../../tools/elasticsearch-node/es.mjs", import.meta.url));

/** A port nothing listens on (just released by the OS). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the Elasticsearch test setup", () => {
  it("starts a node of its own with --clean, and stops it at the end", () => {
    expect(nodeStart(NOT_RUNNING)).toEqual({ args: ["start", "--clean"], stopAtEnd: true });
  });

  it("sees 'not running' where nothing runs: es.mjs status exits NOT_RUNNING there", async () => {
    const status = spawnSync(process.execPath, [ES, "status"], { env: { ...process.env, ES_PORT: String(await freePort()) }, encoding: "utf8" });
    expect(status.status, status.stdout + status.stderr).toBe(NOT_RUNNING);
    expect(nodeStart(status.status).args).toContain("--clean");
  });

  it("leaves a node that already runs (healthy or not) as it is: no --clean, no stop", () => {
    for (const status of [0, 1, null]) expect(nodeStart(status)).toEqual({ args: ["start"], stopAtEnd: false });
  });
});
