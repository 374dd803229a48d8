#!/usr/bin/env node
// Start/stop a dev/CI Elasticsearch node, or a local cluster of several, built from Maven Central jars (see README.md).
//
//   node tools/elasticsearch-node/es.mjs start [--nodes N] [--clean]   build once, start in background, wait for yellow
//   node tools/elasticsearch-node/es.mjs stop [--nodes N]              SIGTERM via pid file, SIGKILL after a timeout
//   node tools/elasticsearch-node/es.mjs status [--nodes N]            exit 0 when healthy, 3 when not running
//
// --nodes N: a cluster of N nodes on HTTP ports ES_PORT .. ES_PORT+N-1 (transport ports 100 above),
// each with its own state dir under ES_HOME (default .orgsim/es-cluster-<ES_PORT>/node-<port>).
// Env: ES_PORT (9200), ES_HOME (state dir), ES_HEAP (1g), ES_JAVA_OPTS, ES_START_TIMEOUT (120 s),
//      ES_STOP_TIMEOUT (30 s), ES_JAVA_HOME or JAVA_HOME (else the newest JDK in /usr/lib/jvm, see
//      java.mjs). Plain Node >= 20, no dependencies.
// biome-ignore-all lint/suspicious/noUndeclaredEnvVars: a dev tool run outside turbo; its env is documented above
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chooseJava, vectorFlags } from "./java.mjs";

const TOOL_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(TOOL_DIR, "..", "..");
const TARGET = path.join(TOOL_DIR, "target");
const LAUNCHER_JAR = path.join(TARGET, "orgsim-es-node.jar");
const MAIN_CLASS = "dev.orgsim.esnode.Main";

const PORT = Number.parseInt(process.env.ES_PORT ?? "9200", 10);
if (!Number.isInteger(PORT) || PORT <= 0 || PORT > 65535) fail(`ES_PORT is not a port: ${process.env.ES_PORT}`);
const START_TIMEOUT_MS = seconds(process.env.ES_START_TIMEOUT, 120) * 1000;
const STOP_TIMEOUT_MS = seconds(process.env.ES_STOP_TIMEOUT, 30) * 1000;
/** A cluster node's transport port is this far above its HTTP port (9200 -> 9300, as Elasticsearch's defaults). */
const TRANSPORT_OFFSET = 100;

/**
 * One node's port, files and URL. A single node keeps its state in one dir per port, so two nodes
 * (e.g. parallel CI jobs) never share a data dir; a cluster's nodes live under one dir of their own.
 */
function nodeAt(port, clusterSize = 1) {
  const root =
    process.env.ES_HOME ?? path.join(REPO_ROOT, ".orgsim", clusterSize > 1 ? `es-cluster-${PORT}` : port === 9200 ? "elasticsearch" : `elasticsearch-${port}`);
  const base = path.resolve(clusterSize > 1 ? path.join(root, `node-${port}`) : root);
  return {
    port,
    base,
    name: `orgsim-dev-${port}`,
    transportPort: port + TRANSPORT_OFFSET,
    pidFile: path.join(base, "es.pid"),
    consoleLog: path.join(base, "console.log"), // JVM stdout/stderr
    serverLog: path.join(base, "logs", "elasticsearch.log"), // log4j, written by the node
    url: `http://127.0.0.1:${port}`,
  };
}

function seconds(value, fallback) {
  const n = Number(value);
  return value && Number.isFinite(n) && n > 0 ? n : fallback;
}

function fail(message, code = 1) {
  console.error(`es: ${message}`);
  process.exit(code);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function tail(file, lines = 30) {
  try {
    return fs.readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(none)";
  }
}

function logTails(node) {
  return `--- ${node.consoleLog} (tail) ---\n${tail(node.consoleLog, 20)}\n--- ${node.serverLog} (tail) ---\n${tail(node.serverLog, 30)}`;
}

// --- process bookkeeping -------------------------------------------------------------------

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

/** The pid from the node's pid file when that process is still our launcher; removes stale files. */
function runningPid(node) {
  let pid;
  try {
    pid = Number.parseInt(fs.readFileSync(node.pidFile, "utf8"), 10);
  } catch {
    return null;
  }
  let ours = alive(pid);
  if (ours) {
    // Guard against a recycled pid: on Linux check the command line names our main class.
    try {
      ours = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(MAIN_CLASS);
    } catch {
      /* no /proc (macOS): trust the pid */
    }
  }
  if (!ours) fs.rmSync(node.pidFile, { force: true });
  return ours ? pid : null;
}

/** Cluster health as `node` sees it, or null when nothing (or not Elasticsearch) answers; `waitForNodes`: yellow with that many nodes. */
async function health(node, waitForNodes = 0) {
  const query = waitForNodes ? `?wait_for_status=yellow&wait_for_nodes=${waitForNodes}&timeout=5s` : "";
  try {
    const res = await fetch(`${node.url}/_cluster/health${query}`, { signal: AbortSignal.timeout(10_000) });
    if (res.headers.get("x-elastic-product") !== "Elasticsearch") return { foreign: true };
    const body = await res.json();
    const formed = !waitForNodes || body.number_of_nodes >= waitForNodes;
    return res.ok && formed && (body.status === "green" || body.status === "yellow") ? body : { unhealthy: true, ...body };
  } catch {
    return null;
  }
}

// --- build ---------------------------------------------------------------------------------

function newestMtime(p) {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

function buildIfNeeded() {
  const sources = Math.max(newestMtime(path.join(TOOL_DIR, "pom.xml")), newestMtime(path.join(TOOL_DIR, "src")));
  const built = fs.existsSync(LAUNCHER_JAR) && fs.existsSync(path.join(TARGET, "lib")) ? fs.statSync(LAUNCHER_JAR).mtimeMs : 0;
  if (built >= sources) return;
  console.error("es: building the launcher (mvn package; first run downloads ~45 MB from Maven Central) ...");
  const t0 = Date.now();
  fs.rmSync(path.join(TARGET, "lib"), { recursive: true, force: true }); // drop jars of an older pin
  // Output captured (stdout stays for the URL only) and shown on failure; -q leaves only errors.
  const mvn = spawnSync("mvn", ["-q", "-B", "-Dstyle.color=never", "package"], {
    cwd: TOOL_DIR,
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (mvn.error) fail(`cannot run mvn (${mvn.error.code}); install Maven 3.8+ and a JDK 17+`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes
  const output = `${mvn.stdout}${mvn.stderr}`.replace(/\x1b\[[0-9;]*m/g, "").trim();
  if (mvn.status !== 0) fail(`mvn package failed (exit ${mvn.status}) in ${TOOL_DIR}\n${output}`);
  console.error(`es: built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Chosen once per command: every node of a cluster runs on the same Java. */
let chosenJava;
function javaRuntime() {
  chosenJava ??= chooseJava();
  return chosenJava;
}

// --- commands ------------------------------------------------------------------------------

/**
 * Serialises concurrent `start`s (e.g. parallel test workers): the lock file holds the pid of
 * the es.mjs that builds and spawns; others wait for it and then find the node running.
 */
async function withStartLock(dir, fn) {
  const lock = path.join(dir, "start.lock");
  fs.mkdirSync(dir, { recursive: true });
  const t0 = Date.now();
  for (;;) {
    try {
      fs.writeFileSync(lock, `${process.pid}\n`, { flag: "wx" });
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      const holder = Number.parseInt(fs.readFileSync(lock, "utf8"), 10);
      if (!(holder > 0) || !alive(holder))
        fs.rmSync(lock, { force: true }); // stale: its owner died
      else if (Date.now() - t0 > 10 * 60_000) fail(`another start (pid ${holder}) holds ${lock}`);
      else await sleep(300);
    }
  }
  const release = () => fs.rmSync(lock, { force: true });
  process.on("exit", release); // fail() exits the process directly
  try {
    return await fn();
  } finally {
    release();
  }
}

/** Starts every node of `nodes` that is not running (a cluster when there are several), then waits until they form it. */
async function start(nodes, clean) {
  const spawned = [];
  for (const node of nodes) {
    const pid = runningPid(node);
    const h = await health(node);
    if (h?.foreign) fail(`port ${node.port} is taken by something that is not Elasticsearch; set ES_PORT`);
    if (h && !h.unhealthy) {
      if (clean) fail(`a node is already running at ${node.url}; stop it before --clean`);
      console.error(`es: already running at ${node.url} (status ${h.status}${pid ? `, pid ${pid}` : ", not started from this dir"})`);
      continue;
    }
    if (pid) {
      // Started earlier and still coming up (or unhealthy): just wait for it.
      if (clean) fail(`a node is already starting (pid ${pid}); stop it before --clean`);
      console.error(`es: pid ${pid} is already starting, waiting for it ...`);
      spawned.push({ node, pid });
      continue;
    }
    buildIfNeeded();
    spawned.push({ node, pid: await spawnNode(node, nodes, clean) });
  }
  const t0 = Date.now();
  for (const { node, pid } of spawned) await waitHealthy(node, pid, nodes, t0);
  // A cluster answers at every node: the client is given them all.
  console.log(nodes.map((n) => n.url).join(","));
}

async function spawnNode(node, cluster, clean) {
  if (clean) {
    for (const dir of ["data", "logs", "home", "tmp"]) fs.rmSync(path.join(node.base, dir), { recursive: true, force: true });
    fs.rmSync(node.consoleLog, { force: true });
    console.error(`es: --clean: removed the data under ${node.base}`);
  }
  fs.mkdirSync(path.join(node.base, "tmp"), { recursive: true });

  const heap = process.env.ES_HEAP ?? "1g";
  const args = [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    "-XX:+UseG1GC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djava.awt.headless=true",
    "-Dfile.encoding=UTF-8",
    `-Djava.io.tmpdir=${path.join(node.base, "tmp")}`,
    ...vectorFlags(javaRuntime()),
    ...(process.env.ES_JAVA_OPTS ?? "").split(/\s+/).filter(Boolean),
    "-cp",
    `${LAUNCHER_JAR}${path.delimiter}${path.join(TARGET, "lib", "*")}`,
    MAIN_CLASS,
    node.base,
    String(node.port),
  ];
  // Read by Main.java: a node of a local cluster finds the others through their transport ports.
  const clusterEnv =
    cluster.length > 1
      ? {
          ES_TRANSPORT_PORT: String(node.transportPort),
          ES_SEED_HOSTS: cluster.map((n) => `127.0.0.1:${n.transportPort}`).join(","),
          ES_INITIAL_MASTER_NODES: cluster.map((n) => n.name).join(","),
        }
      : { ES_SEED_HOSTS: "" };
  const out = fs.openSync(node.consoleLog, "a");
  const child = spawn(javaRuntime().bin, args, { detached: true, stdio: ["ignore", out, out], env: { ...process.env, ...clusterEnv } });
  fs.closeSync(out);
  const spawnError = await new Promise((resolve) => {
    child.once("error", resolve);
    child.once("spawn", () => resolve(null));
  });
  if (spawnError) fail(`cannot run ${javaRuntime().bin} (${spawnError.code}); install a JDK 17+ or set ES_JAVA_HOME`);
  child.unref();
  fs.writeFileSync(node.pidFile, `${child.pid}\n`);
  const java = javaRuntime();
  const simd = vectorFlags(java).length > 0 ? "Lucene's vector code with SIMD" : "no Vector API: Lucene's vector code is scalar";
  console.error(`es: started pid ${child.pid} on Java ${java.feature || "?"} (${java.source}; ${simd}) (state in ${node.base}), waiting for yellow ...`);
  return child.pid;
}

async function waitHealthy(node, pid, cluster, t0) {
  while (Date.now() - t0 < START_TIMEOUT_MS) {
    if (!alive(pid)) {
      fs.rmSync(node.pidFile, { force: true });
      fail(`the node exited during start-up\n${logTails(node)}`);
    }
    const h = await health(node, cluster.length);
    if (h && !h.foreign && !h.unhealthy) {
      console.error(`es: ${node.url} healthy (${h.status}, ${h.number_of_nodes} node(s)) after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      return;
    }
    await sleep(500);
  }
  console.error(`es: not healthy after ${START_TIMEOUT_MS / 1000} s; stopping`);
  await stop(cluster);
  fail(logTails(node));
}

async function stop(nodes) {
  for (const node of nodes) await stopNode(node);
}

async function stopNode(node) {
  const pid = runningPid(node);
  if (!pid) {
    const h = await health(node);
    const note = h && !h.foreign ? ` (but something answers at ${node.url}: not started from ${node.base})` : "";
    console.log(`es: ${node.url} not running${note}`);
    return;
  }
  process.kill(pid, "SIGTERM"); // the launcher's shutdown hook closes the node cleanly
  const t0 = Date.now();
  while (alive(pid) && Date.now() - t0 < STOP_TIMEOUT_MS) await sleep(200);
  if (alive(pid)) {
    console.error(`es: pid ${pid} still alive after ${STOP_TIMEOUT_MS / 1000} s, sending SIGKILL`);
    process.kill(pid, "SIGKILL");
    while (alive(pid)) await sleep(100);
  }
  fs.rmSync(node.pidFile, { force: true });
  console.log(`es: stopped pid ${pid} (${node.url}) after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

async function status(nodes) {
  const codes = [];
  for (const node of nodes) {
    const pid = runningPid(node);
    const h = await health(node);
    if (h?.foreign) {
      console.log(`es: port ${node.port} answers, but not as Elasticsearch`);
      codes.push(1);
    } else if (h) {
      const who = pid ? `pid ${pid}` : `not started from ${node.base}`;
      console.log(`es: ${h.unhealthy ? "unhealthy" : "running"} at ${node.url} (status ${h.status}, ${h.number_of_nodes} node(s), ${who})`);
      codes.push(h.unhealthy ? 1 : 0);
    } else if (pid) {
      console.log(`es: pid ${pid} is running but ${node.url} does not answer yet`);
      codes.push(1);
    } else {
      console.log(`es: not running (port ${node.port}, state in ${node.base})`);
      codes.push(3);
    }
  }
  process.exitCode = Math.max(...codes);
}

const { values: flags, positionals } = (() => {
  try {
    return parseArgs({
      args: process.argv.slice(2).filter((a) => a !== "--"),
      allowPositionals: true,
      options: { clean: { type: "boolean" }, nodes: { type: "string", default: "1" } },
    });
  } catch (error) {
    fail(error.message, 2);
  }
})();
const [command] = positionals;
const size = Number(flags.nodes);
if (!Number.isInteger(size) || size < 1 || size > 9) fail(`--nodes takes a whole number from 1 to 9; got ${flags.nodes}`, 2);
if (flags.clean && command !== "start") fail("--clean goes with start", 2);
const nodes = Array.from({ length: size }, (_, i) => nodeAt(PORT + i, size));
switch (command) {
  case "start":
    // One lock per node's dir, or per cluster: parallel starts of the same node(s) wait for each other.
    await withStartLock(size > 1 ? path.dirname(nodes[0].base) : nodes[0].base, () => start(nodes, flags.clean));
    break;
  case "stop":
    await stop(nodes);
    break;
  case "status":
    await status(nodes);
    break;
  default:
    fail("usage: node tools/elasticsearch-node/es.mjs start [--nodes N] [--clean] | stop [--nodes N] | status [--nodes N]", 2);
}
