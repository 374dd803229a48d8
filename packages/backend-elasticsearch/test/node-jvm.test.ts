/**
 * The node this run started (tools/elasticsearch-node) runs Lucene's vector code with SIMD where
 * its Java allows it: on Java 21 and later with the Vector API's module and the upper Java version
 * Lucene accepts, as Elasticsearch's own distribution does. Without them every kNN search and
 * graph build falls back to scalar code (import 620 against 733 orgs/s at 50k: docs/benchmarks.md).
 */
import { describe, expect, it } from "vitest";
import { rawClient } from "./helpers";

interface NodeJvm {
  version: string;
  input_arguments: string[];
}

// A node named by ELASTICSEARCH_URL is someone else's, started with their flags.
describe.skipIf(Boolean(process.env.ELASTICSEARCH_URL))("the test node's JVM", () => {
  it("has the Vector API flags on Java 21 and later, and none on Java 17", async () => {
    const client = rawClient();
    const response = (await client.nodes.info({ node_id: "_local", metric: "jvm" })) as unknown as { nodes: Record<string, { jvm: NodeJvm }> };
    await client.close();
    const [node] = Object.values(response.nodes);
    const { version, input_arguments: args } = (node as { jvm: NodeJvm }).jvm;
    const feature = Number.parseInt(version, 10);
    const vectorArgs = args.filter((arg) => arg.includes("jdk.incubator.vector") || arg.includes("lucene.vectorization"));
    if (feature < 21) {
      expect(vectorArgs).toEqual([]);
      return;
    }
    expect(args).toContain("--add-modules=jdk.incubator.vector");
    expect(args).toContain(`-Dorg.apache.lucene.vectorization.upperJavaFeatureVersion=${feature}`);
  });
});
