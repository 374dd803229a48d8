/**
 * SQLite failures as the contract's errors, in one place: every store method of the embedded
 * backend runs its work through `guarded`. A file another process keeps locked past the busy timeout
 * (SQLITE_BUSY / SQLITE_LOCKED), a full disk, or a store already closed by a shutdown is
 * BACKEND_UNAVAILABLE (503): the caller may retry. Anything else (corruption, I/O errors, bugs)
 * stays what it is and answers INTERNAL without internals.
 */
import { OrgsimError } from "@orgsim/core";
import Database from "better-sqlite3";

/** The contract's error for a SQLite failure that retrying later may cure, else null. */
export function unavailableOf(error: unknown): OrgsimError | null {
  let mapped: OrgsimError | null = null;
  if (error instanceof Database.SqliteError) {
    const code = error.code ?? "";
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
      mapped = new OrgsimError("BACKEND_UNAVAILABLE", "The embedded store is busy: another process holds its data file's write lock; retry shortly", {
        backend: "embedded",
        reason: "busy",
      });
    } else if (code === "SQLITE_FULL") {
      mapped = new OrgsimError("BACKEND_UNAVAILABLE", "The embedded store cannot write: its disk is full", { backend: "embedded", reason: "disk_full" });
    }
  } else if (error instanceof TypeError && error.message === "The database connection is not open") {
    mapped = new OrgsimError("BACKEND_UNAVAILABLE", "The embedded store is closed: the server is stopping", { backend: "embedded", reason: "closed" });
  }
  // For a debugger or a server log; the contract error shows only code, message and details.
  if (mapped) Object.defineProperty(mapped, "cause", { value: error, enumerable: false });
  return mapped;
}

/**
 * Runs `fn` (store work on the SQLite file), reporting a failure `unavailableOf` knows as the
 * contract's error. Both backends map errors this one way, an explicit `guarded(...)` around the
 * store work of each method (see the Elasticsearch backend's errors.ts): the mapping shows where
 * the backend is called, the classes keep their own types, and a call that must not be mapped
 * (the Elasticsearch ping, which answers false rather than fail) simply stays outside; a Proxy over
 * every method could not tell them apart.
 */
export async function guarded<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw unavailableOf(error) ?? error;
  }
}
