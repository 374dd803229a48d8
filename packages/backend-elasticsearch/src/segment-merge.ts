/**
 * Merging the organization index into fewer segments, for `orgsim optimize` after a large import.
 * Lucene keeps one HNSW graph per segment and a kNN search searches every one of them
 * (Elasticsearch's "Tune approximate kNN search", "Reduce the number of index segments"): on the
 * bench's 100k organizations, the vector ranking took p50 32.5 ms on the 19 segments the import
 * left and 19.3 ms on one (docs/benchmarks.md).
 *
 * But not into one graph of a million: merged into one segment, the bench's 1M organizations lost
 * a fifth of their exact nearest neighbours (recall@10 0.805), which no query could reach any more,
 * not even with its own vector at 5,000 candidates; on the 32 segments the import left, recall was
 * 1.000. The embedded backend found the same of its graphs, and caps them at 100k organizations
 * (SHARD_NODES there). So each shard is merged into as many segments as it has 100k organizations.
 *
 * Elasticsearch advises it for an index no longer written to: a merged segment above 5 GB is left
 * out of later automatic merges until most of its documents are deleted or replaced. The merge runs
 * as a task (the bench's merge of 100k organizations took 149 s here), polled until it ends.
 */
import type { Client } from "@elastic/elasticsearch";

/** A merged shard keeps a segment (an HNSW graph) for every this many organizations; Lucene sizes them unevenly (at 1M: 46k to 318k). */
export const MAX_SEGMENT_DOCS = 100_000;

export interface SegmentMerge {
  /** Segments of the primary shards before and after, and the primary shards (the least there can be). */
  before: number;
  after: number;
  shards: number;
  seconds: number;
}

const POLL_MS = 2_000;
const REPORT_MS = 30_000;

/**
 * Merges `index` (an index or alias) into one segment per `maxSegmentDocs` organizations of its
 * largest shard (at least one a shard); `log` hears how it goes.
 */
export async function mergeSegments(client: Client, index: string, log: (line: string) => void, maxSegmentDocs = MAX_SEGMENT_DOCS): Promise<SegmentMerge> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const before = await segments(client, index);
  const perShard = Math.max(1, Math.ceil(before.largestShardDocs / maxSegmentDocs));
  log(`${index}: ${segmentCount(before.segments)} in ${before.shards} primary shard(s); merging into ${segmentCount(perShard)} a shard`);
  const { task } = await client.indices.forcemerge({ index, max_num_segments: perShard, wait_for_completion: false });
  if (!task) throw new Error(`${index}: Elasticsearch started no force merge task`);
  let reported = performance.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const state = await client.tasks.get({ task_id: task });
    if (state.error) throw new Error(`${index}: the force merge failed: ${state.error.reason ?? state.error.type}`);
    if (state.completed) break;
    if (performance.now() - reported >= REPORT_MS) {
      reported = performance.now();
      log(`${index}: merging, ${segmentCount((await segments(client, index)).segments)} after ${seconds().toFixed(0)} s`);
    }
  }
  await client.indices.refresh({ index });
  const after = await segments(client, index);
  log(`${index}: ${segmentCount(after.segments)} after ${seconds().toFixed(0)} s`);
  return { before: before.segments, after: after.segments, shards: before.shards, seconds: seconds() };
}

const segmentCount = (n: number) => `${n} segment${n === 1 ? "" : "s"}`;

/** The primary shards' segments, the primary shards, and the documents of the largest. */
async function segments(client: Client, index: string): Promise<{ segments: number; shards: number; largestShardDocs: number }> {
  const [stats, settings] = await Promise.all([
    client.indices.stats({ index, metric: ["segments", "docs"], level: "shards" }),
    client.indices.getSettings({ index, name: "index.number_of_shards", flat_settings: true }),
  ]);
  const shards = Object.values(settings).reduce((sum, { settings }) => sum + Number(settings?.["index.number_of_shards"] ?? 0), 0);
  const primaries = Object.values(stats.indices ?? {}).flatMap((i) =>
    Object.values(i.shards ?? {}).flatMap((copies) => copies.filter((c) => c.routing?.primary)),
  );
  const largestShardDocs = Math.max(0, ...primaries.map((c) => c.docs?.count ?? 0));
  return { segments: stats._all.primaries?.segments?.count ?? 0, shards, largestShardDocs };
}
