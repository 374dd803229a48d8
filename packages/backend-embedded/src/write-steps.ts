/**
 * A write as the statements it runs: WriteStep, run in one IMMEDIATE transaction by runWriteSteps,
 * on the store's connection or on the write thread's (write-thread.ts). What a write writes is
 * decided where its steps are made (organization-writes.ts); the thread only runs them. A read a
 * write depends on is a step too, with the rows it must find (`expect`): a write whose read finds
 * the store changed since its steps were made is rolled back whole (STALE_WRITE).
 */
import type { Statement } from "better-sqlite3";
import type { Db } from "./database";

export interface WriteStep {
  sql: string;
  params: unknown[];
  /** For a read: the JSON of the rows it must find, else the write is stale and rolls back. */
  expect?: string;
}

/** What a write's steps need besides themselves: the buffers the steps' blobs view, moved to the thread rather than copied. */
export interface WritePlan {
  steps: WriteStep[];
  transfer: ArrayBuffer[];
}

/** A connection that runs steps: its statements prepared once by SQL, and its WAL autocheckpoint setting. */
export interface StepConnection {
  db: Db;
  statements: Map<string, Statement>;
  autocheckpoint: number;
}

/** SQLite's own default: a connection checkpoints when a commit leaves the WAL this many pages long. */
export const AUTOCHECKPOINT_PAGES = 1_000;

/** The code of the error runWriteSteps throws when a read finds other rows than it expects. */
export const STALE_WRITE = "ORGSIM_STALE_WRITE";

export const isStaleWrite = (error: unknown) => (error as { code?: unknown } | null)?.code === STALE_WRITE;

/**
 * Runs `steps` in one IMMEDIATE transaction: a statement that writes gives its count of changed
 * rows, one that reads (or returns) its rows. `autocheckpoint`: the connection's WAL autocheckpoint
 * (0 while the checkpoint thread checkpoints). Self-contained, without inner named functions: the
 * write thread runs its source.
 */
export function runWriteSteps(connection: StepConnection, steps: readonly WriteStep[], autocheckpoint: number): unknown[] {
  if (connection.autocheckpoint !== autocheckpoint) {
    connection.db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
    connection.autocheckpoint = autocheckpoint;
  }
  const results: unknown[] = [];
  connection.db
    .transaction(() => {
      for (const step of steps) {
        let statement = connection.statements.get(step.sql);
        if (!statement) {
          statement = connection.db.prepare(step.sql);
          connection.statements.set(step.sql, statement);
        }
        if (!statement.reader) {
          results.push(statement.run(step.params).changes);
          continue;
        }
        const rows = statement.all(step.params);
        if (step.expect !== undefined && JSON.stringify(rows) !== step.expect) {
          throw Object.assign(new Error(`the store changed since this write was made (${step.sql})`), { code: "ORGSIM_STALE_WRITE" });
        }
        results.push(rows);
      }
    })
    .immediate();
  return results;
}
