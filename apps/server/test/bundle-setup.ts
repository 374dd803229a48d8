/**
 * Builds dist/orgsim.mjs from the current sources before the suite: the tests start the bundle,
 * which is up and ready about 0.7 s sooner than the sources through tsx (see @orgsim/testing/serve).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

export default function setup() {
  const built = spawnSync(process.execPath, ["build.mjs"], { cwd: join(import.meta.dirname, ".."), encoding: "utf8" });
  if (built.status !== 0) throw new Error(`node build.mjs failed (${built.status ?? built.signal}):\n${built.stdout}${built.stderr}`);
}
