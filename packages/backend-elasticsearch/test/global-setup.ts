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

const ES = fileURLToPath(new URL("../../../tools/elasticsearch-node/es.mjs", import.meta.url));

export default function setup(project: TestProject) {
  const external = process.env.ELASTICSEARCH_URL;
  if (external) {
    project.provide("elasticsearchUrl", external);
    return;
  }
  const env = { ...process.env, ES_PORT: process.env.ES_PORT ?? "9250" };
  const run = (...args: string[]) => spawnSync(process.execPath, [ES, ...args], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  // Exit code 3: nothing runs on that port, so this run starts the node and stops it afterwards.
  const startedHere = run("status").status === 3;
  // Started here: from an empty state directory. Every run's indexes have their own names, so a kept
  // directory only grows (500 indexes after a few dozen runs), and recovering them outlasted the start timeout.
  const started = startedHere ? run("start", "--clean") : run("start");
  if (started.status !== 0) throw new Error(`could not start Elasticsearch on port ${env.ES_PORT}:\n${started.stderr}`);
  // `start` prints the URL, or "es: already running at <url> (…)" when a node was up.
  const url = started.stdout.match(/https?:\/\/[^\s)]+/)?.[0];
  if (!url) throw new Error(`es.mjs start printed no URL:\n${started.stdout}`);
  project.provide("elasticsearchUrl", url);
  return () => {
    if (!startedHere) return;
    const stopped = run("stop");
    if (stopped.status !== 0) console.error(`could not stop Elasticsearch on port ${env.ES_PORT}:\n${stopped.stderr}`);
  };
}
