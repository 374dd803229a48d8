#!/usr/bin/env node
/** The orgsim command: `serve` (default), `import` and `keys`. */
import { Command, InvalidArgumentError } from "commander";
import { resolve } from "node:path";
import { loadConfig, userCwd } from "@orgsim/runtime";
import { importCommand } from "./import-command";
import { keysCommand } from "./keys-command";
import { serve } from "./serve";

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
    await serve(loadConfig());
  });

program
  .command("import")
  .description("import organizations from an NDJSON, JSON or CSV file through a field mapping (upserts by id: safe to re-run)")
  .argument("<file>", "the data file")
  .requiredOption("-m, --mapping <file>", "the mapping file (JSON); see examples/mappings")
  .option("-b, --batch-size <n>", "organizations embedded and written together", positiveInt, 64)
  .option("--dry-run", "map and validate every row; write nothing")
  .option("--show <n>", "how many failed rows to print", positiveInt, 20)
  .action(async (file: string, options) => {
    const fromUser = (path: string) => resolve(userCwd(), path);
    process.exitCode = await importCommand(fromUser(file), { ...options, mapping: fromUser(options.mapping) }, loadConfig());
  });

program.addCommand(keysCommand());

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
