// The JVM an Elasticsearch node runs on, and the flags that let Lucene's vector code use SIMD.
//
// Elasticsearch's own distribution runs on the recent JDK it bundles and enables the Panama Vector
// API for Lucene (its server CLI sets the upper Java version Lucene accepts to the running one).
// On Java 17, or without those flags, Lucene compares vectors with scalar code: building the HNSW
// graphs of an import and every kNN search run slower than in the distribution. We bundle no JDK,
// so we take the newest installed one unless told otherwise.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** Where Debian and Ubuntu install JDKs (`/usr/lib/jvm/<name>/bin/java`). */
const JVM_DIR = "/usr/lib/jvm";
/** The first Java whose Vector API Lucene 9.12's Panama code runs on. */
const VECTOR_API_FROM = 21;
const VECTOR_MODULE = "jdk.incubator.vector";

/**
 * The Java to run: ES_JAVA_HOME (the distribution's own variable), else JAVA_HOME, else the newest
 * JDK under /usr/lib/jvm, else `java` on PATH. `feature` is its major version (17, 21, 25), or 0
 * when it cannot be read; `vectorModule` says whether it holds the Vector API's module.
 */
export function chooseJava(env = process.env) {
  for (const name of ["ES_JAVA_HOME", "JAVA_HOME"]) {
    if (env[name]) return { ...describeHome(env[name]), source: name };
  }
  const newest = newestInstalled();
  if (newest) return { ...newest, source: newest.home };
  return { bin: "java", ...describeCommand("java"), source: "PATH" };
}

/** The JVM flags Elasticsearch's launcher adds on a Java with the Vector API; none on older ones. */
export function vectorFlags(java) {
  if (java.feature < VECTOR_API_FROM || !java.vectorModule) return [];
  return [
    `--add-modules=${VECTOR_MODULE}`,
    // Lucene 9.12 turns its Panama code off above Java 23 unless told the running version is fine.
    `-Dorg.apache.lucene.vectorization.upperJavaFeatureVersion=${java.feature}`,
    "--enable-native-access=ALL-UNNAMED",
  ];
}

function newestInstalled() {
  let names;
  try {
    names = fs.readdirSync(JVM_DIR);
  } catch {
    return null;
  }
  const jdks = names
    .map((name) => path.join(JVM_DIR, name))
    .filter((home) => fs.existsSync(path.join(home, "bin", "java")))
    .map((home) => describeHome(fs.realpathSync(home)))
    .filter((jdk) => jdk.feature >= 17);
  jdks.sort((a, b) => b.feature - a.feature || a.home.localeCompare(b.home));
  return jdks[0] ?? null;
}

/** A JDK's version and modules from its `release` file, or from running its java when it has none. */
function describeHome(home) {
  const bin = path.join(home, "bin", "java");
  let release = "";
  try {
    release = fs.readFileSync(path.join(home, "release"), "utf8");
  } catch {
    /* no release file: ask the binary */
  }
  const version = /^JAVA_VERSION="([^"]+)"/m.exec(release)?.[1];
  const modules = /^MODULES="([^"]*)"/m.exec(release)?.[1];
  if (!version || modules === undefined) return { bin, home, ...describeCommand(bin) };
  return { bin, home, feature: majorOf(version), vectorModule: modules.split(" ").includes(VECTOR_MODULE) };
}

function describeCommand(bin) {
  const run = spawnSync(bin, ["--list-modules"], { encoding: "utf8" });
  const versionRun = spawnSync(bin, ["-version"], { encoding: "utf8" });
  const version = /version "([^"]+)"/.exec(`${versionRun.stderr ?? ""}${versionRun.stdout ?? ""}`)?.[1];
  return { feature: version ? majorOf(version) : 0, vectorModule: (run.stdout ?? "").includes(`${VECTOR_MODULE}@`) };
}

/** "25.0.1" -> 25, "17" -> 17, "1.8.0_392" -> 8. */
function majorOf(version) {
  const [first, second] = version.split(/[.+_-]/).map((part) => Number.parseInt(part, 10));
  return first === 1 ? (second ?? 0) : (first ?? 0);
}
