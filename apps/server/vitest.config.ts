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
    // Each file starts real servers with the real model. Two files at a time: a file spends much of
    // its time waiting (servers starting, nodes killed and back), and two keep both cores busy; the
    // suite took 645-751 s one file at a time. Each file has its own data directories (and, on
    // Elasticsearch, its own index prefix), so files do not meet.
    maxWorkers: 2,
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
