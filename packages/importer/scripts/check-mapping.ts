/**
 * Maps and validates a whole file without writing or embedding anything, and
 * prints the report: `pnpm --filter @orgsim/importer check-mapping <file> <mapping> [show]`.
 */
import { runImportCli } from "../src/cli";

const [file, mappingPath, show] = process.argv.slice(2);
if (!file || !mappingPath) {
  process.stderr.write("usage: check-mapping <data file> <mapping.json> [failures to show]\n");
  process.exit(2);
}
const { exitCode } = await runImportCli({ file, mappingPath, dryRun: true, ...(show ? { show: Number(show) } : {}) });
process.exitCode = exitCode;
