/**
 * Fault injection for the failures-*.test.ts files: a server (or `orgsim import`) as a child
 * process we can SIGKILL or SIGTERM and whose exit we can see, and readers that inspect a
 * store from outside the server (the SQLite file itself; Elasticsearch over plain HTTP).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startOrgsimServe } from "@orgsim/testing/serve";
import Database from "better-sqlite3";
import { backendEnv, ENTRY, orgsimArgs, TEST_BACKEND } from "./harness";

export const SERVER_DIR = join(import.meta.dirname, "..");

export interface ServerProcess {
  baseUrl: string;
  dataDir: string;
  child: ChildProcess;
  output: () => string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL (when still running) and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (a graceful drain) when still running, and wait for the exit. */
  stop(): Promise<void>;
}

/** `orgsim serve` on a free port, on `dataDir`'s store; resolves once its /ready answers 200. */
export async function spawnServer(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startOrgsimServe({ serverDir: SERVER_DIR, entry: ENTRY, env: { ORGSIM_SAMPLE_SIZE: "0", ...backendEnv(dataDir), ...env } });
  return { baseUrl: server.baseUrl, dataDir, child: server.child, output: server.output, exited: server.exited, kill: server.kill, stop: server.stop };
}

/** `orgsim import FILE --mapping M` on `dataDir`'s store, as a child process. */
export function spawnImport(dataDir: string, file: string, mapping: string, args: string[] = []) {
  const child = spawn(process.execPath, orgsimArgs(["import", file, "--mapping", mapping, ...args]), {
    cwd: SERVER_DIR,
    env: { ...process.env, ...backendEnv(dataDir) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => ({ stdout, stderr }) };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request to `server` over real HTTP, a JSON body sent when given; the answer's status and parsed body (null when empty). */
export async function callServer(server: { baseUrl: string }, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Polls `check` every `everyMs` until it returns a value (not undefined); throws after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** What a store holds, read from outside the server. */
export interface StoreState {
  /** Stored organization ids, ascending (a duplicate would appear twice). */
  ids: number[];
  /** Problems found: corruption, dangling rows, documents without vectors. Empty when sound. */
  problems: string[];
}

/**
 * The embedded store's SQLite file, checked: PRAGMA integrity_check and foreign_key_check, every
 * organization with a parseable document of its own id and a profile vector of the store's
 * model and dimension, no vectors or locations without an organization.
 */
export function inspectSqlite(dataDir: string): StoreState {
  const file = join(dataDir, "orgsim.sqlite");
  if (!existsSync(file)) return { ids: [], problems: [] };
  const db = new Database(file, { timeout: 10_000 });
  try {
    const problems: string[] = [];
    const integrity = db.pragma("integrity_check", { simple: true });
    if (integrity !== "ok") problems.push(`integrity_check: ${integrity}`);
    const dangling = db.pragma("foreign_key_check") as unknown[];
    if (dangling.length > 0) problems.push(`foreign_key_check: ${dangling.length} rows`);
    const rows = db.prepare<[], { id: number; doc: string }>("SELECT id, doc FROM organizations ORDER BY id").all();
    for (const { id, doc } of rows) {
      try {
        if ((JSON.parse(doc) as { id: number }).id !== id) problems.push(`organization ${id}: document of another id`);
      } catch {
        problems.push(`organization ${id}: document is not JSON`);
      }
    }
    const meta = Object.fromEntries(
      db
        .prepare<[], { key: string; value: string }>("SELECT key, value FROM meta")
        .all()
        .map((r) => [r.key, r.value]),
    );
    const count = (sql: string) => db.prepare<[], number>(sql).pluck().get() as number;
    const withoutVector = count(
      "SELECT count(*) FROM organizations o WHERE NOT EXISTS (SELECT 1 FROM organization_vectors v WHERE v.org_row = o.row AND v.kind = 'profile')",
    );
    if (withoutVector > 0) problems.push(`${withoutVector} organizations without a profile vector`);
    if (rows.length > 0) {
      const dimension = Number(meta.vector_dimension);
      const badVectors = db
        .prepare<[string, number], number>("SELECT count(*) FROM organization_vectors WHERE model_id != ? OR length(vector) != ?")
        .pluck()
        .get(meta.vector_model_id ?? "", dimension * 4) as number;
      if (badVectors > 0) problems.push(`${badVectors} vectors of another model or length`);
    }
    const orphans = count("SELECT count(*) FROM organization_vectors WHERE org_row NOT IN (SELECT row FROM organizations)");
    if (orphans > 0) problems.push(`${orphans} vectors of organizations that do not exist`);
    return { ids: rows.map((r) => r.id), problems };
  } finally {
    db.close();
  }
}

type EsCall = (path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/**
 * Resolves once Elasticsearch runs no write task on `index` for three polls in a row (about
 * 300 ms). A killed client does not stop Elasticsearch from finishing a bulk it already received:
 * with `refresh=true` its documents would appear between an inspection's scan and its count.
 */
async function writesSettled(es: EsCall, index: string): Promise<void> {
  let quietPolls = 0;
  await waitFor(`Elasticsearch to finish its writes to ${index}`, async () => {
    const tasks = await es("_tasks?actions=indices:data/write/*&detailed=true");
    const nodes = Object.values((tasks.body.nodes ?? {}) as Record<string, { tasks: Record<string, { description?: string }> }>);
    const writing = nodes.some((node) => Object.values(node.tasks).some((task) => task.description?.includes(index)));
    quietPolls = writing ? 0 : quietPolls + 1;
    return quietPolls >= 3 ? true : undefined;
  });
}

/**
 * The organizations index behind `<prefix>-organizations`, checked once no write to it is under
 * way: ids, each document complete (its id, a profile vector), and a count that agrees.
 */
export async function inspectElasticsearch(url: string, prefix: string): Promise<StoreState> {
  const index = `${prefix}-organizations`;
  const es: EsCall = async (path, body) => {
    const response = await fetch(`${url}/${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  await writesSettled(es, index);
  const refreshed = await es(`${index}/_refresh`, {});
  if (refreshed.status === 404) return { ids: [], problems: [] };
  const problems: string[] = [];
  const ids: number[] = [];
  let after: unknown[] | undefined;
  for (;;) {
    const page = await es(`${index}/_search`, {
      size: 1000,
      sort: [{ id: "asc" }],
      _source: ["doc.id"],
      track_total_hits: true,
      query: { match_all: {} },
      ...(after ? { search_after: after } : {}),
    });
    if (page.status !== 200) throw new Error(`search of ${index} answered ${page.status}: ${JSON.stringify(page.body)}`);
    const hits = page.body.hits.hits as { _id: string; _source?: { doc?: { id?: number } }; sort: unknown[] }[];
    for (const hit of hits) {
      const id = Number(hit._id);
      if (hit._source?.doc?.id !== id) problems.push(`document ${hit._id}: no organization of that id inside`);
      ids.push(id);
    }
    if (hits.length < 1000) break;
    after = hits.at(-1)?.sort;
  }
  const count = (await es(`${index}/_count`)).body.count as number;
  if (count !== ids.length) problems.push(`_count says ${count}, a scan found ${ids.length}`);
  const withoutVector = (await es(`${index}/_count`, { query: { bool: { must_not: { exists: { field: "profile_vector" } } } } })).body.count as number;
  if (withoutVector > 0) problems.push(`${withoutVector} documents without a profile vector`);
  return { ids: ids.sort((a, b) => a - b), problems };
}

/**
 * How many organizations the store of `dataDir` holds now, while writers may still run: a cheap
 * count for polling (inspectStore waits for writes to settle, which a running import never does).
 */
export async function countStored(dataDir: string): Promise<number> {
  if (TEST_BACKEND === "embedded") {
    const file = join(dataDir, "orgsim.sqlite");
    if (!existsSync(file)) return 0;
    const db = new Database(file, { timeout: 10_000, readonly: true });
    try {
      return db.prepare<[], number>("SELECT count(*) FROM organizations").pluck().get() as number;
    } finally {
      db.close();
    }
  }
  const env = backendEnv(dataDir);
  const index = `${env.ELASTICSEARCH_URL}/${env.ORGSIM_ES_INDEX_PREFIX}-organizations`;
  if ((await fetch(`${index}/_refresh`, { method: "POST" })).status === 404) return 0;
  return ((await (await fetch(`${index}/_count`)).json()) as { count: number }).count;
}

/** The store of `dataDir` on this run's backend (see backendEnv), inspected from outside. */
export async function inspectStore(dataDir: string): Promise<StoreState> {
  if (TEST_BACKEND === "embedded") return inspectSqlite(dataDir);
  const env = backendEnv(dataDir);
  return inspectElasticsearch(env.ELASTICSEARCH_URL as string, env.ORGSIM_ES_INDEX_PREFIX as string);
}

export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * Rewrites the stored document of organization `id` in `dataDir`'s store from outside the server
 * (the SQLite row; the Elasticsearch document, refreshed), as an older version or a hand edit would.
 */
export async function rewriteStoredOrganization(dataDir: string, id: number, mutate: (doc: any) => void): Promise<void> {
  if (TEST_BACKEND === "embedded") {
    const db = new Database(join(dataDir, "orgsim.sqlite"), { timeout: 10_000 });
    try {
      const doc = JSON.parse(db.prepare<[number], string>("SELECT doc FROM organizations WHERE id = ?").pluck().get(id) as string);
      mutate(doc);
      db.prepare("UPDATE organizations SET doc = ? WHERE id = ?").run(JSON.stringify(doc), id);
    } finally {
      db.close();
    }
    return;
  }
  const env = backendEnv(dataDir);
  const document = `${env.ELASTICSEARCH_URL}/${env.ORGSIM_ES_INDEX_PREFIX}-organizations/_doc/${id}`;
  const source = ((await (await fetch(document)).json()) as { _source: { doc: unknown } })._source;
  mutate(source.doc);
  const written = await fetch(`${document}?refresh=true`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(source) });
  if (!written.ok) throw new Error(`rewriting organization ${id} answered ${written.status}: ${await written.text()}`);
}
