/**
 * The load runs' CPU meters: a process tree's CPU read from /proc, and a load run's CPU per request.
 * Real processes burn real CPU; the bounds leave room for a busy machine.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { loadTest } from "../src/perf/load-test";
import { processTreeCpuSeconds } from "../src/perf/system";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** A process that idles while a child of its own spins for `ms`, then both exit. */
function parentOfSpinner(ms: number): ChildProcess {
  const spin = `const end = Date.now() + ${ms}; while (Date.now() < end);`;
  const parent = spawn(process.execPath, [
    "-e",
    `require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(spin)}], { stdio: "inherit" }).on("exit", () => process.exit(0))`,
  ]);
  children.push(parent);
  return parent;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("counts the CPU of a process's descendants, not only its own", async () => {
  const parent = parentOfSpinner(1_500);
  await sleep(300);
  const before = processTreeCpuSeconds(parent.pid as number);
  await sleep(700);
  const after = processTreeCpuSeconds(parent.pid as number);
  expect(before).not.toBeNull();
  // The spinning grandchild used about 0.7 s of CPU meanwhile; its idle parent next to nothing.
  expect((after as number) - (before as number)).toBeGreaterThan(0.3);
}, 20_000);

it("reads null for a process that is gone", async () => {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((resolve) => child.on("exit", resolve));
  expect(processTreeCpuSeconds(child.pid as number)).toBeNull();
});

it("gives each meter's CPU per answered request of the measured seconds", async () => {
  let used = 0;
  const server = createServer((_request, response) => {
    used += 0.002;
    response.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A meter that reads 2 ms a request served (the warm-up's requests included, outside the difference).
    const result = await loadTest(url, ["/a", "/b"], 2, 1, 0.1, { server: () => used, gone: () => null });
    expect(result.cpu_ms_per_request?.server).toBeCloseTo(2, 1);
    expect(result.cpu_ms_per_request).not.toHaveProperty("gone");
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}, 20_000);
