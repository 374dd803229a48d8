import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Real SQLite files and child processes on a shared machine: allow slow runs.
    testTimeout: 30_000,
  },
});
