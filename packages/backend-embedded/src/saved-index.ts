/**
 * Whether a store opened on a data directory would load its saved memory index and vector graphs
 * instead of rebuilding them, from the files' headers (nothing is loaded). When so, the server
 * starts its workers together; otherwise the first starts alone, does the rebuild once, and the
 * others load what it saved.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { MIGRATIONS } from "./database";
import { memorySnapshotMatches } from "./memory-snapshot";
import { DIMENSION, GENERATION, MODEL_ID } from "./sqlite-organization-store";
import { type GraphStamp, savedGraphsMatch } from "./vector-graphs";

export function savedIndexIsCurrent(dataDir: string, options: { graphs: boolean }): boolean {
  const stamp = storedStamp(join(dataDir, "orgsim.sqlite"));
  return stamp !== null && memorySnapshotMatches(dataDir, stamp) && (!options.graphs || savedGraphsMatch(dataDir, stamp));
}

/** The stored model and data generation; null for a new, empty, unreadable or not yet migrated file. */
function storedStamp(file: string): GraphStamp | null {
  if (!existsSync(file)) return null;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      if (db.pragma("user_version", { simple: true }) !== MIGRATIONS.length) return null;
      const meta = db.prepare<[string], string>("SELECT value FROM meta WHERE key = ?").pluck();
      const modelId = meta.get(MODEL_ID);
      const dimension = Number(meta.get(DIMENSION));
      return modelId && dimension ? { modelId, dimension, generation: Number(meta.get(GENERATION) ?? 0) } : null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}
