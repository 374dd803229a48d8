import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Each file starts a real server with the real model; one at a time fits a 2-core machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
