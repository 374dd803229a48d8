/**
 * The memory index saved beside the SQLite file (`orgsim.memory.bin`), stamped with the store
 * generation it reflects: a store opened at that generation reads it in one pass instead of
 * re-reading every row, vector and document from SQLite. Any other generation or model, or a
 * torn file, means the slow path; the file is only ever replaced whole (snapshot-file.ts).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { MemoryIndex, type MemorySnapshotMeta } from "./memory-index";
import { readSnapshot, type SnapshotReader, writeSnapshot } from "./snapshot-file";
import type { GraphStamp } from "./vector-graphs";

const FILE = "orgsim.memory.bin";
/**
 * Bumped whenever what MemoryIndex.snapshot saves changes; a snapshot of another format is not read
 * (the store is read from SQLite, and saved in this format at close). 4: word-index terms as sorted
 * UTF-8 arrays with their score bounds, no longer a JSON list in the header.
 */
const FORMAT = 4;

interface SnapshotMeta extends GraphStamp {
  format: number;
  memory: MemorySnapshotMeta;
}

export function saveMemorySnapshot(dir: string, index: MemoryIndex, stamp: GraphStamp): void {
  const { meta, arrays } = index.snapshot();
  writeSnapshot<SnapshotMeta>(join(dir, FILE), { format: FORMAT, ...stamp, memory: meta }, arrays);
}

/** The saved index when it reflects exactly `stamp`; null otherwise (or when unreadable: the caller reads SQLite). */
export function loadMemorySnapshot(dir: string, stamp: GraphStamp): MemoryIndex | null {
  return readMatching(dir, stamp, (meta, reader) => MemoryIndex.restore(meta.memory, reader));
}

function readMatching<T>(dir: string, stamp: GraphStamp, read: (meta: SnapshotMeta, reader: SnapshotReader) => T): T | null {
  const file = join(dir, FILE);
  if (!existsSync(file)) return null;
  try {
    const snapshot = readSnapshot<SnapshotMeta>(file);
    try {
      const { meta } = snapshot;
      if (meta.format !== FORMAT || meta.generation !== stamp.generation || meta.modelId !== stamp.modelId || meta.dimension !== stamp.dimension) return null;
      return read(meta, snapshot);
    } finally {
      snapshot.close();
    }
  } catch {
    return null;
  }
}
