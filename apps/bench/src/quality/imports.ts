/**
 * Imports a corpus into an embedded data directory per model, through the product's importer
 * (importFile with the example mapping) and OrganizationService.upsertMany of the services
 * @orgsim/runtime builds (as the server's), which embeds both vectors. A complete earlier import
 * is reused: re-runs skip the embedding.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openEmbeddedBackend } from "@orgsim/backend-embedded";
import { findRepoRoot } from "@orgsim/embeddings";
import { importFile, type Mapping } from "@orgsim/importer";
import { createApp, loadConfig } from "@orgsim/runtime";
import type { DatasetSpec } from "./datasets";

export const benchDataRoot = (root = findRepoRoot()) => join(root, ".orgsim", "bench", "quality");
export const dataDirOf = (modelId: string, dataset: string, root?: string) => join(benchDataRoot(root), modelId, dataset);

export interface ImportRecord {
  model: string;
  dataset: string;
  file: string;
  read: number;
  imported: number;
  failed: number;
  duplicates: number;
  organizations: number;
  /** Wall-clock seconds of the embedding import (or of the earlier one, when reused). */
  seconds: number;
  finishedAt: string;
  /** Organizations with a customer-base vector. */
  withCustomerVector?: number;
}

const MARKER = "import.json";

/** The finished import's record when the directory holds exactly `expected` organizations of this model. */
export async function completeImport(modelId: string, spec: DatasetSpec, expected: number): Promise<ImportRecord | null> {
  const dir = dataDirOf(modelId, spec.id);
  const marker = join(dir, MARKER);
  if (!existsSync(marker)) return null;
  const record = JSON.parse(readFileSync(marker, "utf8")) as ImportRecord;
  const backend = openEmbeddedBackend({ dataDir: dir });
  try {
    const count = await backend.organizations.count();
    const model = await backend.organizations.vectorModel();
    return count === expected && record.organizations === expected && model?.modelId === modelId ? record : null;
  } finally {
    await backend.close();
  }
}

/**
 * Imports `spec` for `modelId` unless a complete import is there. An interrupted import resumes:
 * rows whose id is already stored are not embedded again (the data file does not change).
 */
export async function ensureImport(
  modelId: string,
  spec: DatasetSpec,
  mapping: Mapping,
  expected: number,
  log: (line: string) => void = console.log,
): Promise<{ record: ImportRecord; reused: boolean }> {
  const done = await completeImport(modelId, spec, expected);
  if (done) return { record: done, reused: true };
  const dir = dataDirOf(modelId, spec.id);
  // The services as the server builds them, on this model's data directory.
  const app = await createApp(loadConfig({ ORGSIM_BACKEND: "embedded", ORGSIM_DATA_DIR: dir, ORGSIM_MODEL: modelId, ORGSIM_SAMPLE_SIZE: "0" }));
  try {
    const service = app.services.organizations;
    const store = app.organizationStore;
    const stored = await store.count();
    if (stored > 0) log(`  ${modelId}/${spec.id}: resuming, ${stored} organizations already stored`);
    const started = performance.now();
    let lastLog = 0;
    const report = await importFile({
      file: spec.file,
      mapping,
      // Rows already stored by an interrupted run are skipped; the rest go through the product's upsert.
      upsert: async (rows) => {
        const already = stored > 0 ? new Set((await store.getMany(rows.map((r) => r.id))).map((o) => o.id)) : new Set<number>();
        const fresh = rows.filter((r) => !already.has(r.id));
        if (fresh.length > 0) await service.upsertMany(fresh);
      },
      onProgress: (p) => {
        const now = performance.now();
        if (now - lastLog < 30_000) return;
        lastLog = now;
        const s = (now - started) / 1000;
        log(`  ${modelId}/${spec.id}: ${p.imported}/${expected} organizations, ${s.toFixed(0)} s, ${((p.imported - stored) / s).toFixed(1)} orgs/s`);
      },
    });
    const seconds = (performance.now() - started) / 1000;
    const organizations = await store.count();
    const record: ImportRecord = {
      model: modelId,
      dataset: spec.id,
      file: spec.file,
      read: report.read,
      imported: report.imported,
      failed: report.failedCount,
      duplicates: report.duplicates,
      organizations,
      seconds: Math.round(seconds),
      finishedAt: new Date().toISOString(),
    };
    if (organizations !== expected) throw new Error(`${modelId}/${spec.id}: ${organizations} organizations stored, expected ${expected}`);
    writeFileSync(join(dir, MARKER), `${JSON.stringify(record, null, 2)}\n`);
    log(`  ${modelId}/${spec.id}: imported ${organizations} organizations in ${seconds.toFixed(0)} s`);
    return { record, reused: false };
  } finally {
    await app.close();
  }
}
