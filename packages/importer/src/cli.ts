/**
 * The `import` command's body, without argument parsing: the server app's CLI
 * parses its flags and calls runImportCli with them.
 */
import { basename, resolve } from "node:path";
import { ImportAbortedError, type ImportReport, importFile, type Upsert } from "./import-file";
import { loadMapping, type Mapping, MappingError, vectorsLeftToModel } from "./mapping";
import { createProgress } from "./progress";
import { SourceError } from "./sources";

export interface ImportCliOptions {
  /** The data file. */
  file: string;
  /** The mapping file (JSON). */
  mappingPath: string;
  /** Where rows go: `(rows, options) => organizationService.upsertMany(rows, options)`. Not needed with dryRun. */
  upsert?: Upsert;
  /** Map and validate only; nothing is written. */
  dryRun?: boolean;
  batchSize?: number;
  /** How many failures (and warnings) to print (default 20). */
  show?: number;
  /** Progress on stderr (default true): a bar on a terminal, plain lines otherwise. */
  progress?: boolean;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

export interface ImportCliResult {
  /**
   * 0 when at least one organization was imported (or, in a dry run, would be), however many rows failed;
   * 1 when none was, when the mapping or file is unusable, or when a write error stopped the import.
   */
  exitCode: number;
  report: ImportReport | null;
}

const count = (n: number) => n.toLocaleString("en-US");
const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

export function formatReport(report: ImportReport, options: { show?: number; dryRun?: boolean } = {}): string {
  const show = options.show ?? 20;
  const name = basename(report.file);
  const lines: string[] = [];
  const verb = options.dryRun ? "Would import" : "Imported";
  lines.push(
    `${verb} ${count(report.imported)} organizations from ${name} in ${seconds(report.durationMs)}${options.dryRun ? " (dry run: nothing written)" : ""}.`,
  );
  lines.push(
    `  read ${count(report.read)} · ${options.dryRun ? "valid" : "imported"} ${count(report.imported)} · failed ${count(report.failedCount)}` +
      (report.duplicates > 0 ? ` · repeated ids ${count(report.duplicates)} (the later row won)` : "") +
      (report.warningCount > 0 ? ` · warnings ${count(report.warningCount)}` : ""),
  );
  const list = (title: string, issues: ImportReport["failed"], total: number) => {
    if (total === 0 || show <= 0) return;
    const shown = issues.slice(0, show);
    lines.push(`${title}${total > shown.length ? ` (first ${shown.length} of ${count(total)})` : ""}:`);
    for (const issue of shown) lines.push(`  ${report.unit} ${issue.line}: ${issue.message}`);
  };
  list("Failed rows", report.failed, report.failedCount);
  list("Warnings", report.warnings, report.warningCount);
  return `${lines.join("\n")}\n`;
}

/**
 * What the model will still embed when a mapping gives one vector but not the other, said before the
 * rows are read: embedding is what makes an import slow (2,000 rows given only their profile vector
 * took 9.9 s, the model embedding the customer texts of 58 % of them; 0.7 s with both given).
 */
function halfGivenVectors(mapping: Mapping): string | null {
  const left = vectorsLeftToModel(mapping);
  if (left.length !== 1) return null;
  return left[0] === "customer_vector"
    ? "the mapping gives profile_vector but not customer_vector: the model embeds the customer text of every row that has one (customer_description, or else the description's sentences about customers); map customer_vector to give those too"
    : "the mapping gives customer_vector but not profile_vector: the model embeds every row's profile text (name, description, categories); map profile_vector to give those too";
}

/**
 * Runs an import and prints its report. Returns the exit code for the caller
 * to use (`process.exitCode = (await runImportCli(opts)).exitCode`): bad rows
 * alone never make it non-zero unless no row at all could be imported.
 */
export async function runImportCli(options: ImportCliOptions): Promise<ImportCliResult> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const file = resolve(options.file);
  if (!options.upsert && !options.dryRun) {
    stderr.write("import: no destination; pass upsert (organizationService.upsertMany) or dryRun\n");
    return { exitCode: 1, report: null };
  }
  const upsert: Upsert = options.dryRun ? async () => {} : (options.upsert as Upsert);

  const progress = options.progress === false ? null : createProgress({ stream: stderr, label: basename(file) });
  try {
    const mapping = await loadMapping(resolve(options.mappingPath));
    const note = halfGivenVectors(mapping);
    if (note) stderr.write(`import: ${note}\n`);
    const report = await importFile({
      file,
      mapping,
      upsert,
      ...(options.batchSize ? { batchSize: options.batchSize } : {}),
      ...(progress ? { onProgress: (p) => progress.update(p) } : {}),
    });
    progress?.stop();
    stdout.write(formatReport(report, { ...(options.show !== undefined ? { show: options.show } : {}), dryRun: options.dryRun ?? false }));
    return { exitCode: report.imported > 0 ? 0 : 1, report };
  } catch (error) {
    progress?.stop();
    if (error instanceof ImportAbortedError) {
      stdout.write(formatReport(error.report, { ...(options.show !== undefined ? { show: options.show } : {}) }));
      stderr.write(`import: ${error.message}\n`);
      // the file was not read to the end: a failure even when some rows were written
      return { exitCode: 1, report: error.report };
    }
    if (error instanceof MappingError || error instanceof SourceError || error instanceof RangeError) {
      stderr.write(`import: ${error.message}\n`);
      return { exitCode: 1, report: null };
    }
    throw error;
  }
}
