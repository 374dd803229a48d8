import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Starts (and later stops) a real Elasticsearch node unless ELASTICSEARCH_URL names one.
    globalSetup: ["test/global-setup.ts"],
    // A real server on a shared 2-core machine: allow slow runs.
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
