#!/usr/bin/env node
/** The orgsim command: `serve` (default), `import`, `optimize` and `keys`. */
import cluster from "node:cluster";
import { resolve } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { loadConfig, userCwd } from "@orgsim/runtime";
import { keysCommand } from "./keys-command";

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a positive integer");
  return n;
};

const program = new Command("orgsim").description("Find similar organizations; keep typed collections.");

program
  .command("serve", { isDefault: true })
  .description("start the HTTP server (REST /v1, tRPC /trpc, /docs); PORT, HOST, ORGSIM_DATA_DIR, ORGSIM_MODEL_DIR configure it")
  .action(async () => {
    const config = loadConfig();
    // A primary of several workers serves nothing: it loads only what starts and watches them, and
    // forks them sooner (tsx loads the whole server in about 1.1 s here, the primary's part in 0.6).
    if (config.workers > 1 && cluster.isPrimary) return (await import("./cluster")).runPrimary(config, (line) => console.log(line));
    await (await import("./serve")).serve(config);
  });

program
  .command("import")
  .description("import organizations from an NDJSON, JSON or CSV file through a field mapping (upserts by id: safe to re-run)")
  .argument("<file>", "the data file")
  .requiredOption("-m, --mapping <file>", "the mapping file (JSON); see examples/mappings")
  .option("-b, --batch-size <n>", "organizations embedded and written together (default 64; 1000 when the mapping gives both vectors)", positiveInt)
  .option("--dry-run", "map and validate every row; write nothing")
  .option("--show <n>", "how many failed rows to print", positiveInt, 20)
  .action(async (file: string, options) => {
    const fromUser = (path: string) => resolve(userCwd(), path);
    const { importCommand } = await import("./import-command");
    process.exitCode = await importCommand(fromUser(file), { ...options, mapping: fromUser(options.mapping) }, loadConfig());
  });

program
  .command("optimize")
  .description(
    "after a large import into Elasticsearch: merge the organization index into one segment for every 100k organizations of a shard (kNN searches every segment's graph); the embedded store has nothing to merge",
  )
  .action(async () => {
    const { optimizeBackend } = await import("@orgsim/runtime");
    await optimizeBackend(loadConfig(), (line) => console.log(line));
  });

program.addCommand(keysCommand());

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
