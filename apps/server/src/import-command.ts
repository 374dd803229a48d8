/** `orgsim import`: reads a user's file through a mapping and upserts it into the configured store. */
import { runImportCli } from "@orgsim/importer";
import { type Config, createApp, vectorIndexReporter } from "@orgsim/runtime";

export interface ImportCommandOptions {
  mapping: string;
  batchSize?: number;
  dryRun?: boolean;
  show?: number;
}

export async function importCommand(file: string, options: ImportCommandOptions, config: Config): Promise<number> {
  if (options.dryRun) {
    const { exitCode } = await runImportCli({ file, mappingPath: options.mapping, dryRun: true, show: options.show, batchSize: options.batchSize });
    return exitCode;
  }
  const app = await createApp(config, { bulkImport: true, onVectorIndexProgress: vectorIndexReporter((line) => console.error(line)) });
  try {
    const { exitCode } = await runImportCli({
      file,
      mappingPath: options.mapping,
      // options carries the vectors a mapping gives (profile_vector, customer_vector): stored instead of embedded
      upsert: (rows, options) => app.services.organizations.upsertMany(rows, options),
      batchSize: options.batchSize,
      show: options.show,
    });
    // The records are written at full speed first; the embedded word index and vector graphs are then built,
    // each in one pass (the graphs with every core), and Elasticsearch refreshes once.
    await app.vectorIndexSettled();
    return exitCode;
  } finally {
    await app.close();
  }
}
