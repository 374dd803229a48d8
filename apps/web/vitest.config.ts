import { defineConfig } from "vitest/config";

/**
 * Browser tests: a real Chromium against a real orgsim server with the real model, both started
 * once for the run (test/global-setup.ts). Files run one at a time, like the server's suite.
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
