/**
 * SQLite failures as the contract's errors, in one place: every store method of the embedded
 * backend runs through `guardStore`. A file another process keeps locked past the busy timeout
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

const rethrow = (error: unknown): never => {
  throw unavailableOf(error) ?? error;
};

/**
 * `store` with every method's errors mapped by `unavailableOf` (sync throws and rejected
 * promises alike); properties and `instanceof` are unchanged.
 */
export function guardStore<T extends object>(store: T): T {
  type Method = (...args: unknown[]) => unknown;
  const wrapped = new Map<PropertyKey, { method: Method; guarded: Method }>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || property === "constructor") return value;
      const method = value as Method;
      const known = wrapped.get(property);
      if (known?.method === method) return known.guarded;
      const guarded: Method = (...args) => {
        try {
          const result = method.apply(target, args);
          return result instanceof Promise ? result.catch(rethrow) : result;
        } catch (error) {
          return rethrow(error);
        }
      };
      wrapped.set(property, { method, guarded });
      return guarded;
    },
  });
}
