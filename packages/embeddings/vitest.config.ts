import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Real ONNX models on a 2-core CPU: loading and embedding take seconds, not milliseconds.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
