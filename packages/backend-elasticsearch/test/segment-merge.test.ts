import { organization, rng, unitVector } from "@orgsim/testing";
import { afterAll, describe, expect, it } from "vitest";
import { indexNames } from "../src/index";
import { prefixes, rawClient } from "./helpers";

const indices = prefixes("merge");
const DIM = 8;
const MODEL = { modelId: "merge", dimension: DIM };

afterAll(() => indices.cleanup());

describe("mergeSegments (orgsim optimize)", () => {
  it("merges the organization index into one segment per shard, and searches answer as before", async () => {
    const random = rng(3);
    const prefix = indices.next();
    const backend = await indices.open({ shards: 2 }, prefix);
    const store = backend.organizations;
    try {
      // Each write refreshes: each leaves segments of its own.
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
      const before = await store.search(query);

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
});
