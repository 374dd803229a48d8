import { organization, rng, unitVector } from "@orgsim/testing";
import { afterAll, describe, expect, it } from "vitest";
import { indexNames } from "../src/index";
import { mergeSegments } from "../src/segment-merge";
import { prefixes, rawClient } from "./helpers";

const indices = prefixes("merge");
const DIM = 8;
const MODEL = { modelId: "merge", dimension: DIM };

afterAll(() => indices.cleanup());

/** 160 organizations (one deleted) on two shards, written in four refreshed batches: several segments a shard. */
async function writeInPieces(prefix: string) {
  const random = rng(3);
  const backend = await indices.open({ shards: 2 }, prefix);
  const store = backend.organizations;
  for (let batch = 0; batch < 4; batch++) {
    const records = Array.from({ length: 40 }, (_, i) => ({
      organization: organization(batch * 40 + i + 1),
      profileVector: unitVector(DIM, random),
      customerVector: null,
    }));
    await store.upsert(records, MODEL);
  }
  await store.delete(7);
  const query = { vector: unitVector(DIM, random), kind: "profile" as const, filter: {}, offset: 0, size: 20 };
  return { backend, store, query, before: await store.search(query) };
}

describe("mergeSegments (orgsim optimize)", () => {
  it("merges the organization index into one segment per shard, and searches answer as before", async () => {
    const prefix = indices.next();
    const { backend, store, query, before } = await writeInPieces(prefix);
    try {
      const lines: string[] = [];
      const merge = await store.mergeSegments((line) => lines.push(line));

      expect(merge.shards).toBe(2);
      expect(merge.before).toBeGreaterThan(2);
      expect(merge.after).toBe(2);
      const stats = await rawClient().indices.stats({ index: indexNames(prefix).organizations.alias, metric: ["segments", "docs"] });
      expect(stats._all.primaries?.segments?.count).toBe(2);
      expect(stats._all.primaries?.docs?.count).toBe(159);
      expect(lines.at(-1)).toMatch(/-organizations: 2 segments after \d+ s/);
      expect(await store.search(query)).toEqual(before);
    } finally {
      await backend.close();
    }
  });

  it("keeps a segment for every 100k organizations of a shard (here every 30): no graph of them all", async () => {
    const prefix = indices.next();
    const { backend, store, query, before } = await writeInPieces(prefix);
    const client = rawClient();
    try {
      const alias = indexNames(prefix).organizations.alias;
      const shards = (await client.indices.stats({ index: alias, metric: ["docs"], level: "shards" })).indices ?? {};
      const largest = Math.max(
        ...Object.values(shards).flatMap((i) =>
          Object.values(i.shards ?? {})
            .flat()
            .map((c) => c.docs?.count ?? 0),
        ),
      );
      const lines: string[] = [];
      const merge = await mergeSegments(client, alias, (line) => lines.push(line), 30);
      const perShard = Math.ceil(largest / 30);
      expect(perShard).toBeGreaterThan(1);
      expect(lines[0]).toContain(`merging into ${perShard} segments a shard`);
      expect(merge.before).toBeGreaterThan(2 * perShard);
      expect(merge.after).toBeGreaterThan(2);
      expect(merge.after).toBeLessThanOrEqual(2 * perShard);
      expect(await store.search(query)).toEqual(before);
    } finally {
      await client.close();
      await backend.close();
    }
  });
});
