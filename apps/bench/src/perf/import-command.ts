/**
 * The import with vectors given as a user runs it: the scale's organizations written to an NDJSON
 * file in the API's own shape with both vectors, then `orgsim import` (the server's bundle, as the
 * Docker image runs it) into a fresh embedded store. Unlike the bench's load (load.ts), this counts
 * reading the file, parsing each row's JSON and mapping it.
 */
import { closeSync, mkdirSync, openSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { OrganizationRecord } from "@orgsim/core";
import { ORGSIM_NODE_FLAGS } from "@orgsim/runtime/node-flags";
import type { Dataset } from "./data";
import { LOAD_BATCH } from "./load";
import { runImport } from "./server";

/** Scales up to this one also import from a file through `orgsim import` (about 12 KB a row: 1.2 GB at 100k). */
export const IMPORT_COMMAND_UP_TO = 100_000;

/** orgsim import's figures for one scale (apps/bench/results/perf.json). */
export interface ImportCommandResult {
  through: "orgsim import (bundle)";
  organizations: number;
  failed: number;
  /** The NDJSON file's size. */
  file_bytes: number;
  /** The importer's own time for the records ("Imported … in"), and the rate it gives. */
  records_s: number;
  per_second: number;
  /** From the "Imported" line until the command exited: the vector graphs' build, then shutdown. */
  after_records_s: number;
  wall_s: number;
  /** orgsim's V8 flags the command ran with (its launcher's, testing/serve.ts); absent: Node's defaults (runs before they existed). */
  node_flags?: string[];
}

/** The importer's mapping of the API's own shape (GET /organizations/{id}) plus the two vectors. */
export const API_SHAPE_MAPPING = {
  format: "ndjson",
  id: "id",
  fields: {
    name: "name",
    description: "description",
    domain: "domain",
    logo_url: "logo_url",
    customer_description: "customer_description",
    categories: "categories",
    employee_count: "metrics.employee_count",
    employee_range: "metrics.employee_range",
    founded_on: "metrics.founded_on",
    founded_year: "metrics.founded_year",
    "funding.total_raised_usd": "metrics.funding.total_raised_usd",
    "funding.rounds_count": "metrics.funding.rounds_count",
    "funding.last_round.stage": "metrics.funding.last_round.stage",
    "funding.last_round.announced_on": "metrics.funding.last_round.announced_on",
    "funding.last_round.amount_usd": "metrics.funding.last_round.amount_usd",
    headquarters: "location.headquarters",
    offices: "location.offices",
    website: "contact.website",
    email: "contact.email",
    phone: "contact.phone",
    linkedin: "contact.social.linkedin",
    twitter: "contact.social.twitter",
    github: "contact.social.github",
    profile_vector: "profile_vector",
    customer_vector: "customer_vector",
  },
};

/** One line of the file: the organization, with its vectors beside it. */
export function fileLine(record: OrganizationRecord): string {
  const vectors = { profile_vector: Array.from(record.profileVector), ...(record.customerVector && { customer_vector: Array.from(record.customerVector) }) };
  return JSON.stringify({ ...record.organization, ...vectors });
}

/** Writes the scale's records as the load writes them (the same batches), imports them with the command, and removes the file and the store. */
export async function measureImportCommand(
  repo: string,
  dataset: Dataset,
  scale: number,
  workDir: string,
  log: (line: string) => void,
): Promise<ImportCommandResult> {
  const dir = join(workDir, "import-command");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    const file = join(dir, "organizations.ndjson");
    const fd = openSync(file, "w");
    try {
      for (let start = 0; start < scale; start += LOAD_BATCH) {
        const lines = dataset.batch(start, Math.min(LOAD_BATCH, scale - start)).map(fileLine);
        writeSync(fd, `${lines.join("\n")}\n`);
      }
    } finally {
      closeSync(fd);
    }
    const mapping = join(dir, "mapping.json");
    writeFileSync(mapping, JSON.stringify(API_SHAPE_MAPPING));
    const fileBytes = statSync(file).size;
    log(
      `embedded: orgsim import of a ${(fileBytes / 2 ** 20).toFixed(0)} MiB NDJSON file of the ${scale.toLocaleString("en")} organizations with both vectors (the bundle) ...`,
    );
    const run = await runImport(repo, { backend: "embedded", dataDir: join(dir, "store") }, file, mapping, "bundle");
    const result: ImportCommandResult = {
      through: "orgsim import (bundle)",
      organizations: run.imported,
      failed: run.failed,
      file_bytes: fileBytes,
      records_s: round(run.importerSeconds),
      per_second: Math.round(run.imported / run.importerSeconds),
      after_records_s: round(run.wallSeconds - run.recordsDoneSeconds),
      wall_s: round(run.wallSeconds),
      node_flags: [...ORGSIM_NODE_FLAGS],
    };
    log(
      `  ${result.organizations} imported (${result.failed} failed) in ${result.records_s} s: ${result.per_second} orgs/s; the graphs and shutdown ${result.after_records_s} s after`,
    );
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const round = (x: number) => Math.round(x * 100) / 100;
