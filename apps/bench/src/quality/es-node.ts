/** A benchmark's own Elasticsearch node (tools/elasticsearch-node) on its own port and state directory. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { openElasticsearchBackend } from "@orgsim/backend-elasticsearch";
import type { OrganizationRecord, OrganizationStore, VectorModel } from "@orgsim/core";
import { findRepoRoot } from "@orgsim/embeddings";
import { benchDataRoot } from "./imports";

export interface EsNode {
  url: string;
  port: number;
  home: string;
  stop(): void;
}

export function startEsNode(port: number, root = findRepoRoot()): EsNode {
  const home = join(benchDataRoot(root), `elasticsearch-${port}`);
  const env = { ...process.env, ES_PORT: String(port), ES_HOME: home, ES_START_TIMEOUT: process.env.ES_START_TIMEOUT ?? "300" };
  const script = join(root, "tools", "elasticsearch-node", "es.mjs");
  const started = spawnSync(process.execPath, [script, "start"], { env, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (started.status !== 0) throw new Error(`Elasticsearch did not start on port ${port} (exit ${started.status})`);
  // `start` prints the URL, or "es: already running at <url> (…)" when a node was up.
  const url = started.stdout.match(/https?:\/\/[^\s)]+/)?.[0] ?? `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    home,
    stop() {
      spawnSync(process.execPath, [script, "stop"], { env, stdio: ["ignore", "inherit", "inherit"] });
    },
  };
}

/** Index prefix of one model's copy of one corpus. */
export const esPrefixOf = (modelId: string, dataset: string) => `bench-quality-${modelId}-${dataset}`.toLowerCase();

/**
 * Opens the node's store for one model and corpus and, unless it already holds the same
 * `expected` organizations, copies them with their stored vectors from the embedded store
 * through the Elasticsearch OrganizationStore (vectors given: nothing is embedded again).
 */
export async function loadIntoElasticsearch(
  url: string,
  source: OrganizationStore,
  ids: readonly number[],
  model: VectorModel,
  dataset: string,
  log: (line: string) => void,
): Promise<{ store: OrganizationStore; close(): Promise<void>; loaded: boolean; seconds: number }> {
  const backend = await openElasticsearchBackend({
    url,
    indexPrefix: esPrefixOf(model.modelId, dataset),
    dimension: model.dimension,
    refresh: "wait_for",
    requestTimeoutMs: 120_000,
  });
  const store = backend.organizations;
  const started = performance.now();
  const stored = await store.count();
  const storedModel = await store.vectorModel();
  if (stored === ids.length && storedModel?.modelId === model.modelId) return { store, close: () => backend.close(), loaded: false, seconds: 0 };
  log(`  elasticsearch: loading ${ids.length} organizations of ${model.modelId}/${dataset} (${stored} there)`);
  const CHUNK = 500;
  for (let start = 0; start < ids.length; start += CHUNK) {
    const chunk = ids.slice(start, start + CHUNK);
    const organizations = await source.getMany([...chunk]);
    const records: OrganizationRecord[] = [];
    for (const organization of organizations) {
      const profileVector = await source.getVector(organization.id, "profile");
      if (!profileVector) throw new Error(`organization ${organization.id} has no profile vector`);
      records.push({ organization, profileVector: Float32Array.from(profileVector), customerVector: await source.getVector(organization.id, "customer") });
    }
    await store.upsert(records, model);
    if ((start / CHUNK) % 20 === 0) log(`  elasticsearch: ${start + chunk.length}/${ids.length}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const count = await store.count();
  if (count !== ids.length) throw new Error(`Elasticsearch holds ${count} organizations of ${model.modelId}/${dataset}, expected ${ids.length}`);
  return { store, close: () => backend.close(), loaded: true, seconds };
}
