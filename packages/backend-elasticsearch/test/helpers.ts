/** Backends on the test node, each on indices of its own prefix, deleted afterwards. */
import { Client } from "@elastic/elasticsearch";
import { inject } from "vitest";
import { type ElasticsearchBackend, type ElasticsearchBackendOptions, indexNames, openElasticsearchBackend } from "../src/index";

export const url = () => inject("elasticsearchUrl");

/** A raw client, to look at what the stores wrote. */
export function rawClient(): Client {
  return new Client({ node: url() });
}

/**
 * Hands out index prefixes `<file>-<run>-<n>` and deletes every index made under them.
 * `file` must be unique per test file (files run in parallel on one node).
 */
export function prefixes(file: string) {
  const run = Date.now().toString(36);
  const made: string[] = [];
  let n = 0;
  const next = (): string => {
    const prefix = `t-${file}-${run}-${++n}`;
    made.push(prefix);
    return prefix;
  };
  return {
    next,
    async open(options: Partial<ElasticsearchBackendOptions> = {}, prefix = next()): Promise<ElasticsearchBackend> {
      return openElasticsearchBackend({ url: url(), indexPrefix: prefix, ...options });
    },
    /** Deletes the indices of every prefix handed out (explicit names: wildcard deletes are refused by default). */
    async cleanup(): Promise<void> {
      const client = rawClient();
      const names = made.flatMap((p) => Object.values(indexNames(p)).map((i) => i.index));
      for (let i = 0; i < names.length; i += 50) await client.indices.delete({ index: names.slice(i, i + 50), ignore_unavailable: true });
      made.length = 0;
      await client.close();
    },
  };
}
