import { basename } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The HTTP suite is the backends' conformance suite: every test file runs once per backend.
 * The elasticsearch project starts a real node (tools/elasticsearch-node) unless ELASTICSEARCH_URL names one.
 * test/container/ checks the Dockerfile and docker-compose.yml (and the built bundle the image runs): once, in its own project.
 */
const CONTAINER_TESTS = "test/container/**";
// The servers the tests start run the bundle, built from the current sources once per run.
const BUNDLE_SETUP = "test/bundle-setup.ts";
/**
 * The files that take longest (26-187 s each in a clean-clone run, where the rest take 0.1-20 s),
 * longest first: started first within their project, so the two workers end together. A clean
 * clone has no durations cached to sort by (vitest then starts the largest files first, and the
 * 85-s fuzzing of the embedded backend came last).
 */
const LONGEST_FIRST = ["fuzz", "failures-cluster", "limits", "failures-elasticsearch", "access", "failures-first-add", "import", "failures-kill", "workers"];

class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const projects = [...new Set(sorted.map((file) => file.project.name))];
    const rank = (file: TestSpecification) => {
      const known = LONGEST_FIRST.indexOf(basename(file.moduleId, ".test.ts"));
      return known === -1 ? LONGEST_FIRST.length : known;
    };
    const keyed = sorted.map((file, order) => ({ file, order, project: projects.indexOf(file.project.name), rank: rank(file) }));
    keyed.sort((a, b) => a.project - b.project || a.rank - b.rank || a.order - b.order);
    return keyed.map(({ file }) => file);
  }
}

export default defineConfig({
  test: {
    // Each file starts real servers with the real model. Two files at a time: a file spends much of
    // its time waiting (servers starting, nodes killed and back), and two keep both cores busy; the
    // suite took 645-751 s one file at a time. Each file has its own data directories (and, on
    // Elasticsearch, its own index prefix), so files do not meet.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
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
