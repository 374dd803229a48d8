import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The test starts the real binary (real model, sample data embedded on first start).
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
