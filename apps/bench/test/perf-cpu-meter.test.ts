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

/**
 * A process that idles while a child of its own burns `seconds` of its own CPU: the child says
 * "spinning" as it starts and "spun" once done, then idles until its stdin ends. The CPU is counted,
 * not the wall time, so a busy machine (a late start, a descheduled child) cannot shrink it.
 */
function parentOfSpinner(seconds: number): ChildProcess {
  const spin = [
    "const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };",
    "const start = used();",
    'console.log("spinning");',
    `while (used() - start < ${seconds});`,
    'console.log("spun");',
    'process.stdin.on("end", () => process.exit(0)).resume();',
  ].join(" ");
  const parent = spawn(process.execPath, [
    "-e",
    `require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(spin)}], { stdio: "inherit" }).on("exit", () => process.exit(0))`,
  ]);
  children.push(parent);
  return parent;
}

/** Resolves once `child` has written a line `line` (through its stdout, which its own child shares). */
function lineFrom(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.split("\n").includes(line)) resolve();
    });
  });
}

it("counts the CPU of a process's descendants, not only its own", async () => {
  const parent = parentOfSpinner(0.7);
  const spinning = lineFrom(parent, "spinning");
  const spun = lineFrom(parent, "spun");
  await spinning;
  const before = processTreeCpuSeconds(parent.pid as number);
  await spun;
  const after = processTreeCpuSeconds(parent.pid as number);
  parent.stdin?.end();
  expect(before).not.toBeNull();
  // The grandchild used 0.7 s of CPU in between (by its own count); its idle parent next to nothing.
  expect((after as number) - (before as number)).toBeGreaterThan(0.5);
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
