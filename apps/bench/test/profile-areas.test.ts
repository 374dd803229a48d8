import { expect, it } from "vitest";
import { type CpuProfile, layerShares } from "../src/perf/profile-areas";

const frame = (id: number, url: string, children: number[] = [], functionName = "f") => ({ id, callFrame: { functionName, url, lineNumber: 0 }, children });

it("charges each sample to the innermost layer on its stack, Node.js only when none is, and leaves idle time out", () => {
  const profile: CpuProfile = {
    startTime: 0,
    endTime: 100,
    nodes: [
      frame(1, "", [2, 6, 7], "(root)"),
      frame(2, "file:///repo/apps/server/src/http/server.ts", [3]),
      frame(3, "file:///repo/node_modules/trpc-to-openapi/dist/core.mjs", [4, 5]),
      // A native call (no URL) made by trpc-to-openapi: routing's.
      frame(4, "", [], "stringify"),
      frame(5, "file:///repo/node_modules/zod/v4/core/schemas.js"),
      frame(6, "node:internal/stream_base_commons", [], "writev"),
      frame(7, "", [], "(idle)"),
    ],
    samples: [4, 4, 5, 6, 7],
    timeDeltas: [10, 10, 10, 10, 10],
  };
  expect(layerShares(profile, 0, 100)).toEqual([
    ["routing and serialization (tRPC, trpc-to-openapi)", 0.5],
    ["validation (zod)", 0.25],
    ["Node.js: HTTP, streams, timers", 0.25],
  ]);
  // Only the window's samples count.
  expect(layerShares(profile, 25, 35)).toEqual([["validation (zod)", 1]]);
});
