import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The monorepo root: the nearest directory above `start` holding pnpm-workspace.yaml.
 * Searched from this file by default so the answer does not depend on the caller's cwd
 * (pnpm --filter runs scripts inside the package, tests run elsewhere).
 */
export function findRepoRoot(start: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No pnpm-workspace.yaml found above ${start}`);
    dir = parent;
  }
}

/** Where model files are cached: $ORGSIM_MODEL_DIR, else <repo root>/.orgsim/models. */
export function defaultModelDir(): string {
  const fromEnv = process.env.ORGSIM_MODEL_DIR;
  if (fromEnv) return resolve(fromEnv);
  try {
    return join(findRepoRoot(), ".orgsim", "models");
  } catch {
    throw new Error("Cannot locate the model cache outside the orgsim repository: set ORGSIM_MODEL_DIR.");
  }
}
