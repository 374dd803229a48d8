/**
 * Which organizations each write changed, by generation (every committed write advances the
 * store's generation by one). Another connection's store, a second server process or a server
 * beside the import CLI, catches up by reading only what changed since the generation it holds,
 * instead of reloading every organization.
 */
import type { Db } from "./database";
import type { IndexEntry } from "./memory-index";
import { STORED_ENTRIES_SQL, type StoredEntryRow, storedEntry } from "./stored-entries";
import type { WriteStep } from "./write-steps";

/** Changes are kept for at least this many generations (pruned every 100); a store further behind reloads everything. */
export const KEPT_GENERATIONS = 1_000;
/** The meta key of the store's generation. */
export const GENERATION = "organizations_generation";

/**
 * A write's steps that advance the generation and log `ids` as changed by it, forgetting what is too
 * old to matter every 100 generations. The first returns the new generation.
 */
export function generationSteps(ids: Iterable<number>): WriteStep[] {
  const generation = "(SELECT value FROM meta WHERE key = ?)";
  return [
    { sql: "INSERT INTO meta (key, value) VALUES (?, 1) ON CONFLICT (key) DO UPDATE SET value = value + 1 RETURNING value", params: [GENERATION] },
    {
      sql: `INSERT INTO organization_changes (generation, org_id) SELECT ${generation}, value FROM json_each(?)`,
      params: [GENERATION, JSON.stringify([...new Set(ids)])],
    },
    {
      sql: `DELETE FROM organization_changes WHERE ${generation} % 100 = 0 AND generation <= ${generation} - ?`,
      params: [GENERATION, GENERATION, KEPT_GENERATIONS],
    },
  ];
}

export class OrganizationChanges {
  private readonly sql;

  constructor(db: Db) {
    this.sql = {
      oldest: db.prepare<[], number | null>("SELECT min(generation) FROM organization_changes").pluck(),
      changed: db
        .prepare<[number, number], number>("SELECT DISTINCT org_id FROM organization_changes WHERE generation > ? AND generation <= ? ORDER BY org_id")
        .pluck(),
      entries: db.prepare<[string], StoredEntryRow>(`${STORED_ENTRIES_SQL} WHERE o.id IN (SELECT value FROM json_each(?))`),
    };
  }

  /** The organizations changed after generation `from` up to `to`, ascending; null when the log no longer reaches back to `from`. */
  changedBetween(from: number, to: number): number[] | null {
    if (to === from) return [];
    const oldest = this.sql.oldest.get();
    if (oldest === null || oldest === undefined || oldest > from + 1) return null;
    return this.sql.changed.all(from, to);
  }

  /** What the memory index holds of each of `ids` that still exists (the others were deleted), read as the writer wrote them. */
  entries(ids: readonly number[]): IndexEntry[] {
    return this.sql.entries.all(JSON.stringify(ids)).map(storedEntry);
  }
}
