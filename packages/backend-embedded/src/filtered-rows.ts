/**
 * The rows a filter lets through, scanned once per filter while the index is unchanged.
 * A hybrid ranking asks for the same filter's rows up to four times (vector and word rankings, of
 * profile and customer texts), and a user pages and switches seeds under one filter: at 1M rows
 * each scan costs milliseconds. Lucene keeps filter bitsets in its query cache for the same reason.
 * Every write to the index clears the cache, so a cached result is always of the current rows.
 */
import type { OrganizationFilter } from "@orgsim/core";
import { LRUCache } from "lru-cache";

/** The passing rows, ascending, and (built on first use) a bitmap of them. Read-only for callers. */
export class FilteredRows {
  private bits: Uint8Array | null = null;

  constructor(
    readonly rows: Int32Array,
    /** Rows in the index when the filter was scanned: the bitmap's length. */
    readonly rowCount: number,
  ) {}

  get length(): number {
    return this.rows.length;
  }

  /** 1 at each passing row; shared memory, for the graph search thread to read (graph-search-thread.ts). */
  get bitmap(): Uint8Array {
    if (!this.bits) {
      this.bits = new Uint8Array(new SharedArrayBuffer(this.rowCount));
      for (const row of this.rows) this.bits[row] = 1;
    }
    return this.bits;
  }
}

/** Filters kept, and the memory they may take (rows and bitmap): about 13 broad filters at 1M rows. */
const MAX_FILTERS = 32;
const MAX_BYTES = 64 * 2 ** 20;

export class FilterCache {
  // LRUCache holds objects only: a filter letting everything through is kept as { rows: null }.
  private readonly results = new LRUCache<string, { rows: FilteredRows | null }>({
    max: MAX_FILTERS,
    maxSize: MAX_BYTES,
    sizeCalculation: ({ rows }) => 1 + (rows ? rows.rows.byteLength + rows.rowCount : 0),
  });

  /** The rows `filter` lets through (its excludeIds aside: rankings leave those out themselves), scanned by `scan` when not cached. */
  rows(filter: OrganizationFilter, scan: () => FilteredRows | null): FilteredRows | null {
    const key = JSON.stringify({ ...filter, excludeIds: undefined });
    const cached = this.results.get(key);
    if (cached) return cached.rows;
    const rows = scan();
    this.results.set(key, { rows });
    return rows;
  }

  /** The index changed: no cached result is of its rows any more. */
  clear(): void {
    if (this.results.size > 0) this.results.clear();
  }
}
