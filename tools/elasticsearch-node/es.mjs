#!/usr/bin/env node
// Start/stop a single dev/CI Elasticsearch node built from Maven Central jars (see README.md).
//
//   node tools/elasticsearch-node/es.mjs start [--clean]   build once, start in background, wait for yellow
//   node tools/elasticsearch-node/es.mjs stop              SIGTERM via pid file, SIGKILL after a timeout
//   node tools/elasticsearch-node/es.mjs status            exit 0 when healthy, 3 when not running
//
// Env: ES_PORT (9200), ES_HOME (state dir), ES_HEAP (1g), ES_JAVA_OPTS, ES_START_TIMEOUT (120 s),
//      ES_STOP_TIMEOUT (30 s), JAVA_HOME. Plain Node >= 20, no dependencies.
// biome-ignore-all lint/suspicious/noUndeclaredEnvVars: a dev tool run outside turbo; its env is documented above
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const TOOL_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(TOOL_DIR, "..", "..");
const TARGET = path.join(TOOL_DIR, "target");
const LAUNCHER_JAR = path.join(TARGET, "orgsim-es-node.jar");
const MAIN_CLASS = "dev.orgsim.esnode.Main";

const PORT = Number.parseInt(process.env.ES_PORT ?? "9200", 10);
if (!Number.isInteger(PORT) || PORT <= 0 || PORT > 65535) fail(`ES_PORT is not a port: ${process.env.ES_PORT}`);
// One state dir per port, so two nodes (e.g. parallel CI jobs) never share a data dir.
const BASE = path.resolve(process.env.ES_HOME ?? path.join(REPO_ROOT, ".orgsim", PORT === 9200 ? "elasticsearch" : `elasticsearch-${PORT}`));
const PID_FILE = path.join(BASE, "es.pid");
const CONSOLE_LOG = path.join(BASE, "console.log"); // JVM stdout/stderr
const SERVER_LOG = path.join(BASE, "logs", "elasticsearch.log"); // log4j, written by the node
const URL_BASE = `http://127.0.0.1:${PORT}`;
const START_TIMEOUT_MS = seconds(process.env.ES_START_TIMEOUT, 120) * 1000;
const STOP_TIMEOUT_MS = seconds(process.env.ES_STOP_TIMEOUT, 30) * 1000;

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

function logTails() {
  return `--- ${CONSOLE_LOG} (tail) ---\n${tail(CONSOLE_LOG, 20)}\n--- ${SERVER_LOG} (tail) ---\n${tail(SERVER_LOG, 30)}`;
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

/** The pid from the pid file when that process is still our launcher; removes stale files. */
function runningPid() {
  let pid;
  try {
    pid = Number.parseInt(fs.readFileSync(PID_FILE, "utf8"), 10);
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
  if (!ours) fs.rmSync(PID_FILE, { force: true });
  return ours ? pid : null;
}

/** Cluster health, or null when nothing (or not Elasticsearch) answers. */
async function health(waitForYellow = false) {
  const query = waitForYellow ? "?wait_for_status=yellow&timeout=5s" : "";
  try {
    const res = await fetch(`${URL_BASE}/_cluster/health${query}`, { signal: AbortSignal.timeout(10_000) });
    if (res.headers.get("x-elastic-product") !== "Elasticsearch") return { foreign: true };
    const body = await res.json();
    return res.ok && (body.status === "green" || body.status === "yellow") ? body : { unhealthy: true, ...body };
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

function javaBin() {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, "bin", "java") : "java";
}

// --- commands ------------------------------------------------------------------------------

/**
 * Serialises concurrent `start`s (e.g. parallel test workers): the lock file holds the pid of
 * the es.mjs that builds and spawns; others wait for it and then find the node running.
 */
async function withStartLock(fn) {
  const lock = path.join(BASE, "start.lock");
  fs.mkdirSync(BASE, { recursive: true });
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

async function start(clean) {
  const pid = runningPid();
  const h = await health();
  if (h?.foreign) fail(`port ${PORT} is taken by something that is not Elasticsearch; set ES_PORT`);
  if (h && !h.unhealthy) {
    if (clean) fail(`a node is already running at ${URL_BASE}; stop it before --clean`);
    console.log(`es: already running at ${URL_BASE} (status ${h.status}${pid ? `, pid ${pid}` : ", not started from this dir"})`);
    return;
  }
  if (pid) {
    // Started earlier and still coming up (or unhealthy): just wait for it.
    if (clean) fail(`a node is already starting (pid ${pid}); stop it before --clean`);
    console.error(`es: pid ${pid} is already starting, waiting for it ...`);
    return waitHealthy(pid, Date.now());
  }

  buildIfNeeded();
  if (clean) {
    for (const dir of ["data", "logs", "home", "tmp"]) fs.rmSync(path.join(BASE, dir), { recursive: true, force: true });
    fs.rmSync(CONSOLE_LOG, { force: true });
    console.error(`es: --clean: removed the data under ${BASE}`);
  }
  fs.mkdirSync(path.join(BASE, "tmp"), { recursive: true });

  const heap = process.env.ES_HEAP ?? "1g";
  const args = [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    "-XX:+UseG1GC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djava.awt.headless=true",
    "-Dfile.encoding=UTF-8",
    `-Djava.io.tmpdir=${path.join(BASE, "tmp")}`,
    ...(process.env.ES_JAVA_OPTS ?? "").split(/\s+/).filter(Boolean),
    "-cp",
    `${LAUNCHER_JAR}${path.delimiter}${path.join(TARGET, "lib", "*")}`,
    MAIN_CLASS,
    BASE,
    String(PORT),
  ];
  const out = fs.openSync(CONSOLE_LOG, "a");
  const child = spawn(javaBin(), args, { detached: true, stdio: ["ignore", out, out] });
  fs.closeSync(out);
  const spawnError = await new Promise((resolve) => {
    child.once("error", resolve);
    child.once("spawn", () => resolve(null));
  });
  if (spawnError) fail(`cannot run ${javaBin()} (${spawnError.code}); install a JDK 17+ or set JAVA_HOME`);
  child.unref();
  fs.writeFileSync(PID_FILE, `${child.pid}\n`);
  console.error(`es: started pid ${child.pid} (state in ${BASE}), waiting for yellow ...`);
  return waitHealthy(child.pid, Date.now());
}

async function waitHealthy(pid, t0) {
  while (Date.now() - t0 < START_TIMEOUT_MS) {
    if (!alive(pid)) {
      fs.rmSync(PID_FILE, { force: true });
      fail(`the node exited during start-up\n${logTails()}`);
    }
    const h = await health(true);
    if (h && !h.foreign && !h.unhealthy) {
      console.error(`es: healthy (${h.status}) after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      console.log(URL_BASE);
      return;
    }
    await sleep(500);
  }
  console.error(`es: not healthy after ${START_TIMEOUT_MS / 1000} s; stopping pid ${pid}`);
  await stop();
  fail(logTails());
}

async function stop() {
  const pid = runningPid();
  if (!pid) {
    const h = await health();
    const note = h && !h.foreign ? ` (but something answers at ${URL_BASE}: not started from ${BASE})` : "";
    console.log(`es: not running${note}`);
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
  fs.rmSync(PID_FILE, { force: true });
  console.log(`es: stopped pid ${pid} after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

async function status() {
  const pid = runningPid();
  const h = await health();
  if (h?.foreign) {
    console.log(`es: port ${PORT} answers, but not as Elasticsearch`);
    process.exitCode = 1;
  } else if (h) {
    const who = pid ? `pid ${pid}` : `not started from ${BASE}`;
    console.log(`es: ${h.unhealthy ? "unhealthy" : "running"} at ${URL_BASE} (status ${h.status}, ${who})`);
    process.exitCode = h.unhealthy ? 1 : 0;
  } else if (pid) {
    console.log(`es: pid ${pid} is running but ${URL_BASE} does not answer yet`);
    process.exitCode = 1;
  } else {
    console.log(`es: not running (port ${PORT}, state in ${BASE})`);
    process.exitCode = 3;
  }
}

const [command, ...flags] = process.argv.slice(2);
const unknown = flags.filter((f) => f !== "--clean");
if (unknown.length || (flags.length && command !== "start")) fail(`unknown option(s): ${flags.join(" ")}`);
switch (command) {
  case "start":
    await withStartLock(() => start(flags.includes("--clean")));
    break;
  case "stop":
    await stop();
    break;
  case "status":
    await status();
    break;
  default:
    fail("usage: node tools/elasticsearch-node/es.mjs start [--clean] | stop | status", 2);
}
