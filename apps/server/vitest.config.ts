import { configDefaults, defineConfig } from "vitest/config";

/**
 * The HTTP suite is the backends' conformance suite: every test file runs once per backend.
 * The elasticsearch project starts a real node (tools/elasticsearch-node) unless ELASTICSEARCH_URL names one.
 * test/container/ checks the Dockerfile and docker-compose.yml (and the built bundle the image runs): once, in its own project.
 */
const CONTAINER_TESTS = "test/container/**";
// The servers the tests start run the bundle, built from the current sources once per run.
const BUNDLE_SETUP = "test/bundle-setup.ts";
export default defineConfig({
  test: {
    // Each file starts a real server with the real model; one at a time fits a 2-core machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 300_000,
    projects: [
      {
        extends: true,
        test: {
          name: "embedded",
          exclude: [...configDefaults.exclude, CONTAINER_TESTS],
          env: { ORGSIM_TEST_BACKEND: "embedded" },
          globalSetup: [BUNDLE_SETUP],
        },
      },
      {
        extends: true,
        test: {
          name: "elasticsearch",
          exclude: [...configDefaults.exclude, CONTAINER_TESTS],
          env: { ORGSIM_TEST_BACKEND: "elasticsearch" },
          // The same setup as the adapter's own tests: one node for the run.
          globalSetup: [BUNDLE_SETUP, "../../packages/backend-elasticsearch/test/global-setup.ts"],
        },
      },
      { extends: true, test: { name: "container", include: ["test/container/**/*.test.ts"] } },
    ],
  },
});
