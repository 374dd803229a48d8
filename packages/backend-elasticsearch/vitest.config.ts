import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Starts (and later stops) a real Elasticsearch node unless ELASTICSEARCH_URL names one.
    globalSetup: ["test/global-setup.ts"],
    // A real server on a shared 2-core machine: allow slow runs.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Two files at a time, each on indices of its own prefix (vitest's default on two cores is one):
    // the node answers one file while the other's client works. 91 s, against 97 s one at a time.
    maxWorkers: 2,
  },
});
