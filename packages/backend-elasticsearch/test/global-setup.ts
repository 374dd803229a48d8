/**
 * Gives the tests an Elasticsearch URL: ELASTICSEARCH_URL when set, else a node of
 * tools/elasticsearch-node on ES_PORT (default 9250), started here when none runs there and
 * then stopped at the end (a node that was already running is left running).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    elasticsearchUrl: string;
  }
}

/** es.mjs's exit code of `status` when nothing runs on the port. */
export const NOT_RUNNING = 3;

/**
 * How the setup starts the node, from the exit code of `es.mjs status`: when nothing runs there,
 * this run starts it from an empty state directory (`--clean`) and stops it at the end. Every
 * run's indexes have their own names, so a kept directory only grows (500 indexes after a few
 * dozen runs), and recovering them outlasted the start timeout. A node already running is someone
 * else's: started without `--clean` (es.mjs refuses to clean a running node) and left running.
 */
export function nodeStart(statusCode: number | null): { args: string[]; stopAtEnd: boolean } {
  const startedHere = statusCode === NOT_RUNNING;
  return startedHere ? { args: ["start", "--clean"], stopAtEnd: true } : { args: ["start"], stopAtEnd: false };
}

const ES = fileURLToPath(new URL("../../../tools/elasticsearch-node/es.mjs", import.meta.url));

export default function setup(project: TestProject) {
  const external = process.env.ELASTICSEARCH_URL;
  if (external) {
    project.provide("elasticsearchUrl", external);
    return;
  }
  const env = { ...process.env, ES_PORT: process.env.ES_PORT ?? "9250" };
  const run = (...args: string[]) => spawnSync(process.execPath, [ES, ...args], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const { args, stopAtEnd } = nodeStart(run("status").status);
  const started = run(...args);
  if (started.status !== 0) throw new Error(`could not start Elasticsearch on port ${env.ES_PORT}:\n${started.stderr}`);
  // `start` prints the URL, or "es: already running at <url> (…)" when a node was up.
  const url = started.stdout.match(/https?:\/\/[^\s)]+/)?.[0];
  if (!url) throw new Error(`es.mjs start printed no URL:\n${started.stdout}`);
  project.provide("elasticsearchUrl", url);
  return () => {
    if (!stopAtEnd) return;
    const stopped = run("stop");
    if (stopped.status !== 0) console.error(`could not stop Elasticsearch on port ${env.ES_PORT}:\n${stopped.stderr}`);
  };
}
