#!/usr/bin/env node
// Makes sure .orgsim/fuzz-venv holds schemathesis as pinned in requirements.txt (about 15 s the
// first time, at once afterwards), then prints the path of its `schemathesis` command.
//
//   node tools/fuzz/setup.mjs          prints e.g. /repo/.orgsim/fuzz-venv/bin/schemathesis
//
// Env: ORGSIM_PYTHON (python3), the interpreter the venv is made from (3.10 or newer).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensurePythonTool } from "../python-venv.mjs";

const requirements = path.join(path.dirname(fileURLToPath(import.meta.url)), "requirements.txt");
console.log(ensurePythonTool({ name: "fuzz", venv: "fuzz-venv", requirements, command: "schemathesis", minPython: "3.10" }));
