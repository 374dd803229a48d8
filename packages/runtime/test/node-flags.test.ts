import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../src/config";
import { missingNodeFlags, nodeFlagsSet, ORGSIM_NODE_FLAGS, withNodeFlags } from "../src/node-flags";

const script = (pkg: string, name: string): string => JSON.parse(readFileSync(join(repoRoot(), pkg, "package.json"), "utf8")).scripts[name];

describe("orgsim's V8 flags", () => {
  it("are added where missing, before the arguments given", () => {
    expect(withNodeFlags(["--enable-source-maps"], "")).toEqual([...ORGSIM_NODE_FLAGS, "--enable-source-maps"]);
    expect(missingNodeFlags([], "")).toEqual(ORGSIM_NODE_FLAGS);
  });

  it("keep a value the operator set, in node's arguments or in NODE_OPTIONS", () => {
    expect(withNodeFlags(["--max-semi-space-size=32"], "")).toEqual(["--max-semi-space-size=32"]);
    expect(withNodeFlags(["--enable-source-maps"], "--max-old-space-size=8192  --max-semi-space-size=16")).toEqual(["--enable-source-maps"]);
    expect(nodeFlagsSet(["--enable-source-maps"], "--max-old-space-size=8192  --max-semi-space-size=16")).toEqual(["--max-semi-space-size=16"]);
  });

  it("are given by every script that starts orgsim or measures its writes", () => {
    for (const [pkg, name] of [
      ["apps/server", "start"],
      ["apps/server", "cli"],
      ["apps/bench", "perf"],
    ] as const) {
      const words = script(pkg, name).split(/\s+/);
      for (const flag of ORGSIM_NODE_FLAGS) expect(words, `${pkg}'s ${name} script`).toContain(flag);
    }
  });
});
