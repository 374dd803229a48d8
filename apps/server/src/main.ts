#!/usr/bin/env node
/** The orgsim command: `serve` (default) and `import`. */
import { Command } from "commander";
import { loadConfig } from "./config";
import { serve } from "./serve";

const program = new Command("orgsim").description("Find similar organizations; keep typed collections.");

program
  .command("serve", { isDefault: true })
  .description("start the HTTP server (REST /v1, tRPC /trpc, /docs); PORT, HOST, ORGSIM_DATA_DIR, ORGSIM_MODEL_DIR configure it")
  .action(async () => {
    await serve(loadConfig());
  });

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
