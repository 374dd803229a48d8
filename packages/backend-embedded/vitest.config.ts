import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Real SQLite files and child processes on a shared machine: allow slow runs.
    testTimeout: 30_000,
    // Two files at a time (vitest's default is one fewer than the cores: one here): 45 s, against 66 s one at a time.
    maxWorkers: 2,
  },
});
