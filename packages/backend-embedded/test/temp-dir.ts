import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh directory for one test's SQLite file. */
export function tempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), "orgsim-embedded-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
