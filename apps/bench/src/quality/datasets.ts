/**
 * The two evaluation corpora (../shared/datasets, see its README): where they are, which
 * mapping imports them, and the ground-truth labels the product never sees (the example
 * mappings leave every label field unmapped).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { categoryName, customerTextOf, profileTextOf } from "@orgsim/core";
import { findRepoRoot } from "@orgsim/embeddings";
import { loadMapping, type Mapping, mapRecord } from "@orgsim/importer";
import { sample } from "./metrics";

export type DatasetId = "yc" | "equities";

export interface LabelSpec {
  /** Field of the source row. */
  field: string;
  /** Whether a value is a real label (bare "B2B" sub-industries and "Unspecified" are not). */
  isLabel(value: string): boolean;
}

export interface DatasetSpec {
  /** The corpus name, or `<corpus>-sample<n>` for a seeded subset (also the data directory's name). */
  id: string;
  /** The whole source file. */
  source: string;
  /** The file imported: the source, or a seeded subset of its lines. */
  file: string;
  mappingPath: string;
  /** Labels judged by P@10, finer first. */
  labels: LabelSpec[];
  /** Source field holding the known-item query (a one-line pitch), if the corpus has one. */
  knownItemField: string | null;
}

const present = (v: string) => v.trim().length > 0;

export function datasetSpecs(root = findRepoRoot()): Record<DatasetId, DatasetSpec> {
  const shared = join(root, "..", "shared", "datasets");
  return {
    yc: {
      id: "yc",
      source: join(shared, "yc", "companies.ndjson"),
      file: join(shared, "yc", "companies.ndjson"),
      mappingPath: join(root, "examples", "mappings", "yc.json"),
      labels: [
        // "Industry -> Sub" only: a bare industry in the subindustry field is no sub-industry.
        { field: "subindustry", isLabel: (v) => v.includes("->") },
        { field: "industry", isLabel: (v) => present(v) && v !== "Unspecified" },
      ],
      knownItemField: "one_liner",
    },
    equities: {
      id: "equities",
      source: join(shared, "equities", "companies.ndjson"),
      file: join(shared, "equities", "companies.ndjson"),
      mappingPath: join(root, "examples", "mappings", "equities.json"),
      labels: [
        { field: "industry", isLabel: present },
        { field: "sector", isLabel: present },
      ],
      knownItemField: null,
    },
  };
}

/**
 * A seeded random subset of `size` source lines (in file order), written once under `dir`, for
 * machines where embedding the whole corpus for every model does not fit the time at hand.
 */
export function subsetSpec(spec: DatasetSpec, size: number, seed: number, dir: string): DatasetSpec {
  const lines = readFileSync(spec.source, "utf8")
    .split("\n")
    .filter((l) => l.trim());
  if (size >= lines.length) return spec;
  const id = `${spec.id}-sample${size}`;
  const file = join(dir, `${id}-seed${seed}.ndjson`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `${sample(lines, size, seed).join("\n")}\n`);
  }
  return { ...spec, id, file };
}

/** One source row as the importer would store it: its id, labels, known-item text and the texts the product embeds. */
export interface LabelledRow {
  id: number;
  labels: Record<string, string | null>;
  knownItem: string | null;
  /** The business-profile text (what the profile vector embeds, and what BM25 indexes). */
  profileText: string;
  /** The customer-base text, or null when the organization has no customer vector. */
  customerText: string | null;
}

/**
 * Reads the source file and maps each row with the same mapping the import uses, so ids match
 * the stored organizations (equities ids are hashed from symbol + exchange). Rows the mapping
 * refuses are skipped, as the import skips them; a repeated id keeps its later row, as the
 * import does.
 */
export async function readLabelledRows(spec: DatasetSpec): Promise<{ rows: LabelledRow[]; mapping: Mapping; read: number; refused: number }> {
  const mapping = await loadMapping(spec.mappingPath);
  const byId = new Map<number, LabelledRow>();
  let read = 0;
  let refused = 0;
  for (const line of readFileSync(spec.file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    read++;
    const record = JSON.parse(line) as Record<string, unknown>;
    const mapped = mapRecord(record, mapping);
    if (!mapped.ok) {
      refused++;
      continue;
    }
    const labels: Record<string, string | null> = {};
    for (const label of spec.labels) {
      const value = record[label.field];
      labels[label.field] = typeof value === "string" && label.isLabel(value) ? value : null;
    }
    const known = spec.knownItemField ? record[spec.knownItemField] : null;
    byId.delete(mapped.row.id);
    byId.set(mapped.row.id, {
      id: mapped.row.id,
      labels,
      knownItem: typeof known === "string" && known.trim() ? known.trim() : null,
      profileText: profileTextOf(mapped.organization, categoryName),
      customerText: customerTextOf(mapped.organization),
    });
  }
  return { rows: [...byId.values()], mapping, read, refused };
}
