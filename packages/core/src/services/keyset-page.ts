/**
 * Collections and items are paged the same way in every store: keyset paging by
 * (created_at, id), with a signed cursor bound to the query (see cursor.ts).
 */
import type { Page } from "../ports/collection-store";
import { decodeCursor, encodeCursor, fingerprint } from "./cursor";

/** Page position: the (created_at, id) of the last row of the previous page. */
export type KeysetPosition = [createdAt: string, id: string];

const isPosition = (p: unknown): p is KeysetPosition => Array.isArray(p) && p.length === 2 && p.every((v) => typeof v === "string");

/**
 * One page: `fetch` returns up to `limit` rows after `after` (null: from the start) in
 * (created_at, id) order; `reshape` turns the page's rows into what the caller returns. `scope`
 * (say tenant and collection) binds the cursor to this query.
 */
export async function keysetPage<R extends { created_at: string; id: string }, T>(
  scope: unknown[],
  page: { limit: number; cursor?: string },
  fetch: (after: KeysetPosition | null, limit: number) => R[] | Promise<R[]>,
  reshape: (rows: R[]) => T[] | Promise<T[]>,
): Promise<Page<T>> {
  const queryFingerprint = fingerprint(scope);
  const after = page.cursor ? decodeCursor(page.cursor, queryFingerprint, isPosition) : null;
  // One row more than the page tells whether another page follows.
  const rows = await fetch(after, page.limit + 1);
  const data = rows.slice(0, page.limit);
  const last = data.at(-1);
  return {
    data: await reshape(data),
    next_cursor: rows.length > page.limit && last ? encodeCursor([last.created_at, last.id], queryFingerprint) : null,
  };
}

/** A store's page as the contract's response body (`CollectionPage`, `ItemPage`). */
export function pageBody<T>(page: Page<T>): { data: T[]; meta: { next_cursor: string | null } } {
  return { data: page.data, meta: { next_cursor: page.next_cursor } };
}
