/**
 * An import's batch writes, a few at once: the store writes one batch while the importer reads,
 * maps and validates the next (the embedded store writes on a thread of its own, its
 * write-thread.ts). At 100k organizations with vectors given, two in flight wrote 15,474 to 16,644
 * organizations/s where one at a time wrote 12,083 and 12,838; later three wrote 20,368 on average
 * where two wrote 18,924, the calling thread then waiting less for the write thread
 * (docs/benchmarks.md).
 */
export class WritesInFlight {
  private readonly writing = new Map<Promise<void>, ReadonlySet<number>>();
  private firstFailure: { error: unknown } | null = null;

  constructor(private readonly limit: number) {}

  /** The first write that failed; none starts after it. */
  get failure(): { error: unknown } | null {
    return this.firstFailure;
  }

  /**
   * Starts `write` (of the organizations `ids`) once fewer than the limit are in flight, and after
   * every write in flight that holds one of `ids`: of an id written twice, the later row wins.
   */
  async start(ids: ReadonlySet<number>, write: () => Promise<void>): Promise<void> {
    for (const [running, held] of this.writing) if (overlaps(held, ids)) await running;
    while (this.writing.size >= this.limit) await Promise.race(this.writing.keys());
    if (this.firstFailure) return;
    const running: Promise<void> = write()
      .catch((error: unknown) => {
        this.firstFailure ??= { error };
      })
      .finally(() => this.writing.delete(running));
    this.writing.set(running, ids);
  }

  /** Resolves when no write is in flight. */
  async settled(): Promise<void> {
    while (this.writing.size > 0) await Promise.all(this.writing.keys());
  }
}

function overlaps(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const id of small) if (large.has(id)) return true;
  return false;
}
