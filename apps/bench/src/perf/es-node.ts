/**
 * The bench's own Elasticsearch node: tools/elasticsearch-node/es.mjs on its own port and state
 * directory (never a developer's or the tests' node), started clean and stopped at the end.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { indexNames, openElasticsearchBackend } from "@orgsim/backend-elasticsearch";
import { diskUsage, type ProcessMemory, processMemory } from "./system";

export interface EsNode {
  url: string;
  home: string;
  heap: string;
  version: string;
  /** The Java the node runs on, and whether Lucene's vector code uses the Vector API (SIMD). */
  jvm: string;
  pid: number | null;
  stop(): void;
}

function esTool(repo: string, args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, [join(repo, "tools", "elasticsearch-node", "es.mjs"), ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { code: result.status ?? 1, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/** `keep`: start on the indices an earlier run left in the state directory (--reuse-data); else on an empty one. */
export async function startEsNode(repo: string, options: { port: number; heap: string; keep: boolean; log: (line: string) => void }): Promise<EsNode> {
  const home = join(repo, ".orgsim", `elasticsearch-bench-${options.port}`);
  const env = { ES_PORT: String(options.port), ES_HOME: home, ES_HEAP: options.heap, ES_START_TIMEOUT: "300", ES_STOP_TIMEOUT: "120" };
  // A node left running by an interrupted bench (same state directory): stop it, then start it again.
  esTool(repo, ["stop"], env);
  const state = options.keep ? "the indices kept there" : "a clean state";
  options.log(`elasticsearch: starting a node on port ${options.port} (heap ${options.heap}, state in ${home}) on ${state}`);
  const started = esTool(repo, options.keep ? ["start"] : ["start", "--clean"], env);
  if (started.code !== 0) throw new Error(`elasticsearch did not start:\n${started.stderr}${started.stdout}`);
  const url = started.stdout.trim().split("\n").pop() as string;
  let pid: number | null = null;
  try {
    pid = Number.parseInt(readFileSync(join(home, "es.pid"), "utf8"), 10);
  } catch {
    pid = null;
  }
  const info = (await (await fetch(`${url}/_nodes/_local?filter_path=nodes.*.version,nodes.*.jvm`)).json()) as { nodes: Record<string, NodeInfo> };
  const node = Object.values(info.nodes)[0];
  const version = node?.version ?? "unknown";
  const jvm = node ? jvmOf(node) : "unknown";
  options.log(`elasticsearch: ${version} at ${url} (pid ${pid}), ${jvm}`);
  return {
    url,
    home,
    heap: options.heap,
    version,
    jvm,
    pid,
    stop() {
      const stopped = esTool(repo, ["stop"], env);
      options.log(`elasticsearch: ${stopped.stdout.trim() || stopped.stderr.trim()}`);
    },
  };
}

interface NodeInfo {
  version: string;
  jvm: { version: string; vm_vendor: string; input_arguments: string[] };
}

function jvmOf(node: NodeInfo): string {
  const simd = node.jvm.input_arguments.some((a) => a.includes("jdk.incubator.vector")) ? "Vector API on" : "no Vector API";
  return `Java ${node.jvm.version} (${node.jvm.vm_vendor}; ${simd})`;
}

async function get<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export interface EsIndexStats {
  /** Documents in the organizations index. */
  docs: number;
  /** The index's store size as Elasticsearch reports it (primaries, no replicas on one node). */
  store_bytes: number;
  segments: number;
  /** Bytes of the node's whole data directory on disk (every index, translog, state). */
  data_dir_bytes: number;
}

/** Statistics of `<prefix>-organizations` (an alias). */
export async function indexStats(node: EsNode, prefix: string): Promise<EsIndexStats> {
  const alias = `${prefix}-organizations`;
  const stats = await get<{ _all: { primaries: { docs: { count: number }; store: { size_in_bytes: number }; segments: { count: number } } } }>(
    `${node.url}/${alias}/_stats/docs,store,segments`,
  );
  return {
    docs: stats._all.primaries.docs.count,
    store_bytes: stats._all.primaries.store.size_in_bytes,
    segments: stats._all.primaries.segments.count,
    data_dir_bytes: diskUsage(join(node.home, "data")),
  };
}

export interface EsJvm {
  heap_used_mib: number;
  heap_committed_mib: number;
  heap_max_mib: number;
  /** The JVM process (from /proc): RSS includes the heap, off-heap memory and mapped index files it touched. */
  process: ProcessMemory | null;
}

export async function jvmStats(node: EsNode): Promise<EsJvm> {
  const stats = await get<{
    nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_committed_in_bytes: number; heap_max_in_bytes: number } } }>;
  }>(`${node.url}/_nodes/_local/stats/jvm`);
  const mem = Object.values(stats.nodes)[0]?.jvm.mem;
  const m = (b: number | undefined) => Math.round((b ?? Number.NaN) / 2 ** 20);
  return {
    heap_used_mib: m(mem?.heap_used_in_bytes),
    heap_committed_mib: m(mem?.heap_committed_in_bytes),
    heap_max_mib: m(mem?.heap_max_in_bytes),
    process: node.pid ? processMemory(node.pid) : null,
  };
}

/** How long no merge may run, the segment count unchanged, before the index counts as settled. */
const QUIET_MS = 20_000;

/**
 * Refreshes and flushes the index, starts the merges its merge policy wants, and waits until no
 * merge has run and the segment count has not changed for QUIET_MS, so that searches, of either
 * backend, are measured beside as few merges as can be waited out. Not all: Elasticsearch merged
 * again minutes later in every 100k run (72 segments at the first instant without a running merge,
 * 18 at the end of the loads; with this wait 58, then 22), and the sooner loads ran beside them.
 */
export async function settle(node: EsNode, prefix: string, log: (line: string) => void): Promise<number> {
  const alias = `${prefix}-organizations`;
  const started = performance.now();
  await fetch(`${node.url}/${alias}/_refresh`, { method: "POST" });
  await fetch(`${node.url}/${alias}/_flush`, { method: "POST" });
  // Without max_num_segments: the merges the merge policy wants now (Lucene's maybeMerge), not one segment.
  await fetch(`${node.url}/${alias}/_forcemerge?wait_for_completion=false`, { method: "POST" });
  let lastLog = 0;
  let quietSince = performance.now();
  let segments = -1;
  for (;;) {
    // A shard with no searches for 30 s goes search-idle and skips its scheduled refreshes, and the
    // merges the policy picks after a refresh wait with them: in runs that did not refresh here, the
    // merges came back once the first load's searches woke the shard (59 -> 23 segments at 100k).
    await fetch(`${node.url}/${alias}/_refresh`, { method: "POST" });
    const stats = await get<{ _all: { primaries: { merges: { current: number }; segments: { count: number } } } }>(
      `${node.url}/${alias}/_stats/merge,segments`,
    );
    const { merges, segments: now } = stats._all.primaries;
    if (merges.current > 0 || now.count !== segments) quietSince = performance.now();
    segments = now.count;
    if (performance.now() - quietSince >= QUIET_MS) break;
    if (performance.now() - lastLog > 30_000) {
      lastLog = performance.now();
      log(`  elasticsearch: ${merges.current} merge(s) running, ${segments} segments (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return (performance.now() - started - QUIET_MS) / 1000;
}

/** Deletes the indices of one prefix (by name: wildcard deletes are refused by default). */
/**
 * Turns the shard request cache of `<prefix>-organizations` off, and empties it, before any search is
 * measured. Each run cycles through the same queries, so cached answers (Elasticsearch caches
 * requests of no hits: the hybrid ranking's term statistics) would count repeats that varied real
 * traffic does not have, and unevenly: the replay's timed pass repeats every request of its warm-up
 * pass, a load run only those it cycled through before.
 */
export async function withoutRequestCache(node: EsNode, prefix: string): Promise<void> {
  const alias = `${prefix}-organizations`;
  const response = await fetch(`${node.url}/${alias}/_settings`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ index: { requests: { cache: { enable: false } } } }),
  });
  if (!response.ok) throw new Error(`turning the request cache of ${alias} off: ${response.status} ${await response.text()}`);
  await fetch(`${node.url}/${alias}/_cache/clear?request=true`, { method: "POST" });
}

export async function deleteIndices(node: EsNode, prefix: string): Promise<void> {
  const names = Object.values(indexNames(prefix)).map((n) => n.index);
  await fetch(`${node.url}/${names.join(",")}?ignore_unavailable=true`, { method: "DELETE" });
}

/**
 * Merges the organizations index through the product's own path, `orgsim optimize`'s, and returns
 * its seconds: into one segment up to 100k organizations (one HNSW graph per vector field: what a
 * long-lived index tends towards, and the hardest case for recall), one per 100k above.
 */
export async function forceMerge(node: EsNode, prefix: string, log: (line: string) => void): Promise<number> {
  const backend = await openElasticsearchBackend({ url: node.url, indexPrefix: prefix });
  try {
    return (await backend.organizations.mergeSegments((line) => log(`  elasticsearch: ${line}`))).seconds;
  } finally {
    await backend.close();
  }
}
