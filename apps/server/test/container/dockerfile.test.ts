/**
 * The container: the Dockerfile and docker-compose.yml at the repository root. No Docker engine
 * runs on our machines, so the image is never built here; instead this checks, once (project
 * `container`), what can be checked without one:
 *
 * - hadolint finds nothing in the Dockerfile (tools/hadolint: pinned, failure threshold warning,
 *   no rule ignored);
 * - the Dockerfile does what README "Container" says: the README's own set-up commands (those
 *   .ci/run proves), the models fetched at build time, Java and Maven in that stage only, a
 *   non-root user, the data volume, the health check on /ready;
 * - the image's command, run here on the bundle `pnpm build` made with the image's environment
 *   (HOST=0.0.0.0): it refuses to start without an API key, starts once one exists, and the
 *   image's HEALTHCHECK command fails before the server is ready and passes after;
 * - docker-compose.yml wires an orgsim service to Elasticsearch.
 *
 * Needs `pnpm build` first (pnpm test builds before it tests) and python3 for hadolint.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ORGSIM_NODE_FLAGS } from "@orgsim/runtime/node-flags";
import { WEB_DIST_CANDIDATES } from "../../src/http/web-app";
import { removeDir } from "../harness";

const ROOT = join(import.meta.dirname, "../../../..");
const SERVER_DIR = join(ROOT, "apps/server");
const HADOLINT_DIR = join(ROOT, "tools/hadolint");
const dockerfileText = readFileSync(join(ROOT, "Dockerfile"), "utf8");

interface Instruction {
  name: string;
  args: string;
}
interface Stage {
  image: string;
  alias: string | undefined;
  instructions: Instruction[];
}

/** The Dockerfile's stages and their instructions (comments dropped, continued lines joined). */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let current = "";
  for (const line of text.split("\n")) {
    if (/^\s*#/.test(line)) continue;
    if (line.endsWith("\\")) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    current += line;
    if (current.trim()) logical.push(current.trim());
    current = "";
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, name, args] = /^(\S+)\s*(.*)$/.exec(line) as RegExpExecArray;
    const instruction = { name: name!.toUpperCase(), args: args!.replace(/\s+/g, " ").trim() };
    if (instruction.name === "FROM") {
      const [image, as, alias] = instruction.args.split(" ");
      stages.push({ image: image!, alias: as?.toUpperCase() === "AS" ? alias : undefined, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

const stages = parseDockerfile(dockerfileText);
const runtime = stages.at(-1)!;
const args = (stage: Stage, name: string) => stage.instructions.filter((i) => i.name === name).map((i) => i.args);
const runs = (stage: Stage) => args(stage, "RUN").join(" && ");
/** The stages a stage builds on (FROM another stage), itself first. */
function lineage(stage: Stage): Stage[] {
  const parent = stages.find((s) => s.alias === stage.image);
  return parent ? [stage, ...lineage(parent)] : [stage];
}
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of args(stage, "ENV")) {
    for (const [, key, value] of line.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g)) env[key!] = value!.replace(/^"|"$/g, "");
  }
  return env;
}
/** An exec-form (JSON array) argument: CMD, ENTRYPOINT, HEALTHCHECK's CMD. */
const execForm = (text: string) => JSON.parse(text.slice(text.indexOf("["))) as string[];

function exec(command: string, argv: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, argv, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"], timeout: options.timeoutMs });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

describe("hadolint", () => {
  let hadolint: string;
  beforeAll(async () => {
    const setup = await exec(process.execPath, [join(HADOLINT_DIR, "setup.mjs")]);
    if (setup.code !== 0) throw new Error(`could not set up hadolint:\n${setup.stdout}${setup.stderr}`);
    hadolint = setup.stdout.trim().split("\n").at(-1) as string;
  });

  it("finds nothing in the Dockerfile (failure threshold warning, no rule ignored)", async () => {
    const config = join(HADOLINT_DIR, "hadolint.yaml");
    expect(readFileSync(config, "utf8")).not.toMatch(/^\s*ignored\s*:/m);
    const result = await exec(hadolint, ["--config", config, "--failure-threshold", "warning", "--format", "json", join(ROOT, "Dockerfile")], { cwd: ROOT });
    const findings = JSON.parse(result.stdout) as { code: string; level: string; line: number; message: string }[];
    expect(findings.map((f) => `line ${f.line} ${f.code} (${f.level}): ${f.message}`)).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
  });

  it("fails on a warning (the check can fail)", async () => {
    const config = join(HADOLINT_DIR, "hadolint.yaml");
    // DL3003 (use WORKDIR to switch to a directory) is a warning.
    const bad = spawn(hadolint, ["--config", config, "-"], { stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    bad.stdout.on("data", (chunk) => (output += chunk));
    bad.stdin.end("FROM node:20-bookworm-slim\nRUN cd /tmp && ls\n");
    const [code] = (await once(bad, "exit")) as [number];
    expect(output).toContain("DL3003");
    expect(code).not.toBe(0);
  });
});

describe("the Dockerfile", () => {
  const modelStage = stages.find((s) => /\bpnpm model:fetch\b/.test(runs(s)));

  it("runs the README's own set-up commands: the install .ci/run proves, the model fetch and the build", () => {
    const ciInstall = /^pnpm install.*$/m.exec(readFileSync(join(ROOT, ".ci/run"), "utf8"))?.[0];
    expect(ciInstall).toBe("pnpm install --frozen-lockfile");
    const all = stages.map(runs).join(" && ");
    expect(all).toContain(ciInstall);
    expect(all).toContain("npm i -g pnpm@10");
    const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    expect(scripts.test).toMatch(/^pnpm model:fetch && pnpm typecheck && turbo run lint build/);
    expect(all).toMatch(/\bpnpm build\b/);
    expect(scripts.build).toBe("turbo run build");
    const installStage = stages.find((s) => runs(s).includes(ciInstall!))!;
    expect(envOf(installStage).ONNXRUNTIME_NODE_INSTALL).toBe("skip");
  });

  it("fetches the models at build time, with Java and Maven in that stage only, and copies them into the image", () => {
    expect(modelStage, "a stage runs pnpm model:fetch").toBeDefined();
    expect(envOf(modelStage!).PATH).toMatch(/java.*maven|maven.*java/);
    const javaSource = stages.find((s) => /maven|temurin|jdk/.test(s.image))!;
    expect(javaSource.alias).toBeDefined();
    const copiesJava = (stage: Stage) => args(stage, "COPY").some((a) => a.includes(`--from=${javaSource.alias}`));
    expect(stages.filter(copiesJava)).toEqual([modelStage]);
    // The runtime neither is nor builds on a Java stage.
    expect(lineage(runtime).some((s) => s === javaSource || s === modelStage || copiesJava(s))).toBe(false);
    const modelDir = envOf(runtime).ORGSIM_MODEL_DIR;
    expect(modelDir).toBe("/app/models");
    expect(args(runtime, "WORKDIR")).toEqual(["/app"]);
    expect(args(runtime, "COPY")).toContain(`--from=${modelStage!.alias} /src/.orgsim/models ./models`);
  });

  it("runs as a user that is not root, in a slim runtime stage that listens on every interface", () => {
    expect(runtime.image).toMatch(/^node:20-.*slim$/);
    const users = args(runtime, "USER");
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
    const env = envOf(runtime);
    expect(env.HOST).toBe("0.0.0.0");
    expect(args(runtime, "EXPOSE")).toEqual([env.PORT]);
    // The security rule stays: no open mode in the image.
    expect(dockerfileText).not.toMatch(/ORGSIM_OPEN/);
  });

  it("keeps the data directory in a volume the server's user owns", () => {
    const dataDir = envOf(runtime).ORGSIM_DATA_DIR;
    expect(dataDir).toBe("/data");
    expect(args(runtime, "VOLUME").map((v) => (v.startsWith("[") ? execForm(v) : v.split(" ")).join(" "))).toEqual([dataDir]);
    const user = args(runtime, "USER").at(-1);
    expect(runs(runtime)).toContain(`chown ${user} ${dataDir}`);
  });

  it("checks health on /ready with node (the slim image has no curl)", () => {
    const [healthcheck] = args(runtime, "HEALTHCHECK");
    expect(healthcheck).toBeDefined();
    const command = execForm(healthcheck!.slice(healthcheck!.indexOf("CMD")));
    expect(command[0]).toBe("node");
    expect(command.join(" ")).toContain("/ready");
    expect(command.join(" ")).not.toContain("curl");
  });

  it("runs the orgsim command with orgsim's V8 flags, before its script", () => {
    const entrypoint = execForm(args(runtime, "ENTRYPOINT")[0]!);
    expect(entrypoint[0]).toBe("node");
    expect(entrypoint.slice(1, entrypoint.indexOf("dist/orgsim.mjs"))).toEqual(expect.arrayContaining([...ORGSIM_NODE_FLAGS]));
  });

  it("leaves installed and local files out of the build context", () => {
    const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n");
    for (const pattern of ["**/node_modules", "**/dist", ".orgsim", ".git"]) expect(ignored).toContain(pattern);
  });
});

describe("the image's command, on the bundle pnpm build made", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "orgsim-container-"));
  const entrypoint = execForm(args(runtime, "ENTRYPOINT")[0]!);
  const command = [...entrypoint, ...execForm(args(runtime, "CMD")[0]!)];
  const healthcheck = execForm(args(runtime, "HEALTHCHECK")[0]!.replace(/^.*?CMD /, ""));
  let port: number;
  let env: NodeJS.ProcessEnv;
  let server: ChildProcess | undefined;
  let output = "";

  beforeAll(async () => {
    // ENTRYPOINT names dist/orgsim.mjs relative to /app, where the build's apps/server/dist is copied.
    expect(args(runtime, "COPY")).toContain("--from=build /src/apps/server/dist ./dist");
    // The web app beside it: /app/web, one of the places the server looks (src/http/web-app.ts), built by `pnpm build`.
    expect(args(runtime, "COPY")).toContain("--from=build /src/apps/web/dist ./web");
    expect(WEB_DIST_CANDIDATES.map((dir) => relative(join(SERVER_DIR, "src/http"), dir))).toContain(join("..", "web"));
    const script = command.find((arg) => arg.endsWith(".mjs")) as string;
    if (!existsSync(join(SERVER_DIR, script))) throw new Error(`${script} is missing: run pnpm build first`);
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    port = (probe.address() as { port: number }).port;
    probe.close();
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(ORGSIM_|ELASTICSEARCH_|HOST$|PORT$)/.test(key)));
    // The image's environment; the data, the model cache and the port are this machine's. One worker, a small sample: quick.
    env = {
      ...inherited,
      ...envOf(runtime),
      ORGSIM_DATA_DIR: dataDir,
      ORGSIM_MODEL_DIR: join(ROOT, ".orgsim/models"),
      PORT: String(port),
      ORGSIM_WORKERS: "1",
      ORGSIM_SAMPLE_SIZE: "20",
    };
  });

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill("SIGKILL");
      await once(server, "exit");
    }
    removeDir(dataDir);
  });

  /** `docker run orgsim [arguments]`: arguments replace CMD after the ENTRYPOINT. */
  const runImage = (argv?: string[]) => {
    const [node, ...rest] = argv ? [...entrypoint, ...argv] : command;
    return exec(node!, rest, { cwd: SERVER_DIR, env, timeoutMs: 60_000 });
  };
  const health = () => exec(healthcheck[0]!, healthcheck.slice(1), { env, timeoutMs: 10_000 });

  it("refuses to listen on 0.0.0.0 while no API key exists", async () => {
    expect(env.HOST).toBe("0.0.0.0");
    const refused = await runImage();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("Refusing to listen on 0.0.0.0 without API keys");
  });

  it("starts once a key exists; the health check fails until /ready answers 200, then passes", async () => {
    expect((await health()).code).toBe(1); // nothing listens yet
    const created = await runImage(["keys", "create", "--tenant", "container", "--scopes", "search:read", "--json"]);
    expect(created.code, created.stderr).toBe(0);
    const { token } = JSON.parse(created.stdout) as { token: string };

    server = spawn(command[0]!, command.slice(1), { cwd: SERVER_DIR, env, stdio: ["ignore", "pipe", "pipe"] });
    server.stdout?.on("data", (chunk) => (output += chunk));
    server.stderr?.on("data", (chunk) => (output += chunk));
    const deadline = Date.now() + 120_000;
    while ((await health()).code !== 0) {
      if (server.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not become ready:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    expect(ready.status).toBe(200);
    const search = `http://127.0.0.1:${port}/v1/search/organizations/similar?description=robots&limit=3`;
    expect((await fetch(search)).status).toBe(401);
    const found = await fetch(search, { headers: { authorization: `Bearer ${token}` } });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { data: unknown[] }).data).toHaveLength(3);
    // The web app, at /, from the build the bundle found.
    const app = await fetch(`http://127.0.0.1:${port}/`);
    expect(app.status).toBe(200);
    expect(await app.text()).toContain('<div id="root"></div>');

    server.kill("SIGTERM");
    const [code] = (await once(server, "exit")) as [number];
    expect(code, output).toBe(0);
    expect((await health()).code).toBe(1);
  }, 180_000);
});

describe("docker-compose.yml", () => {
  const compose = parse(readFileSync(join(ROOT, "docker-compose.yml"), "utf8")) as {
    services: Record<string, Record<string, any>>;
    volumes: Record<string, unknown>;
  };
  const orgsim = compose.services.orgsim!;

  it("builds the orgsim service from the Dockerfile and wires it to the elasticsearch service once that is healthy", () => {
    expect(orgsim.build).toBe(".");
    expect(orgsim.environment).toEqual(expect.arrayContaining(["ORGSIM_BACKEND=elasticsearch", "ELASTICSEARCH_URL=http://elasticsearch:9200"]));
    expect(orgsim.depends_on).toEqual({ elasticsearch: { condition: "service_healthy" } });
    expect(compose.services.elasticsearch?.healthcheck).toBeDefined();
    expect(compose.services.elasticsearch?.image).toMatch(/^docker\.elastic\.co\/elasticsearch\/elasticsearch:8\./);
  });

  it("publishes port 3000 on the host's loopback only and keeps the data directory in a named volume", () => {
    const port = envOf(runtime).PORT;
    expect(orgsim.ports).toEqual([`127.0.0.1:3000:${port}`]);
    const dataDir = envOf(runtime).ORGSIM_DATA_DIR;
    const volume = (orgsim.volumes as string[]).find((v) => v.endsWith(`:${dataDir}`));
    expect(volume).toBeDefined();
    expect(Object.keys(compose.volumes)).toContain(volume!.split(":")[0]);
  });
});
