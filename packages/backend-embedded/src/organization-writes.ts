/**
 * The organization store's writes as steps (write-steps.ts): what an upsert and a delete write,
 * made on the store's thread and run where the store runs writes (write-thread.ts). Each starts
 * with its guard, a read whose rows must be as the store's thread found them, then advances the
 * generation (organization-changes.ts), so a write's results read alike: generationOf.
 */
import { domainKey, nameKey, type OrganizationRecord, type VectorModel } from "@orgsim/core";
import type { FilterColumns } from "./memory-index";
import { MultiRowInsert } from "./multi-row-insert";
import { generationSteps } from "./organization-changes";
import type { WritePlan, WriteStep } from "./write-steps";

const MODEL_ID = "vector_model_id";
const DIMENSION = "vector_dimension";

/** The stored vector model as one row (none stored while no vector is). */
export const STORED_MODEL_SQL = `SELECT EXISTS (SELECT 1 FROM organization_vectors) AS stored,
  (SELECT value FROM meta WHERE key = '${MODEL_ID}') AS modelId, (SELECT value FROM meta WHERE key = '${DIMENSION}') AS dimension`;

/**
 * An upsert's guard: the store still admits the model its rows were checked against (none stored,
 * or that one). So a write made while the store's first write was in flight, which stores that very
 * model, is not made again.
 */
const MODEL_ADMITTED_SQL = `SELECT NOT EXISTS (SELECT 1 FROM organization_vectors)
  OR ((SELECT value FROM meta WHERE key = '${MODEL_ID}') = ? AND (SELECT value FROM meta WHERE key = '${DIMENSION}') = ?) AS admitted`;

export type StoredModelRow = { stored: number; modelId: string | null; dimension: string | null };

export type OrganizationRow = OrganizationRecord & { columns: FilterColumns };

/** Where a write's generation step is: after its guard. */
const GENERATION_STEP = 1;

/** The generation a write's steps made (their results, as runWriteSteps returns them). */
export const generationOf = (results: readonly unknown[]) => Number((results[GENERATION_STEP] as [{ value: string }])[0].value);

/** Takes organizations' names out of the name index, which holds no copy of them (database.ts, migration 6): before their rows go. */
const DELETE_NAMES = "INSERT INTO organization_names (organization_names, rowid, name_key) SELECT 'delete', id, name_key FROM organizations";

const SET_META = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value";

/**
 * Replaces each organization's rows (its vectors go by ON DELETE CASCADE, its name by the names'
 * delete), many rows a statement, then the name index of them all in one statement (FTS5 then
 * flushes its terms once: see migration 5). `modelStored`: whether the store's thread found a
 * model stored (it admitted `model`); if not, the write stores `model` as the store's.
 */
export function upsertPlan(rows: readonly OrganizationRow[], model: VectorModel, modelStored: boolean): WritePlan {
  // Also an organization twice in one write: the later one replaces the earlier.
  const latest = new Map(rows.map((row) => [row.organization.id, row]));
  const ids = JSON.stringify([...latest.keys()]);
  const steps: WriteStep[] = [
    { sql: MODEL_ADMITTED_SQL, params: [model.modelId, String(model.dimension)], expect: JSON.stringify([{ admitted: 1 }]) },
    ...generationSteps(latest.keys()),
    { sql: `${DELETE_NAMES} WHERE id IN (SELECT value FROM json_each(?))`, params: [ids] },
    { sql: "DELETE FROM organizations WHERE id IN (SELECT value FROM json_each(?))", params: [ids] },
  ];
  if (!modelStored) {
    steps.push({ sql: SET_META, params: [MODEL_ID, model.modelId] }, { sql: SET_META, params: [DIMENSION, String(model.dimension)] });
  }
  const { inserts, transfer } = rowInserts([...latest.values()], model.modelId);
  for (const insert of inserts) steps.push(...insert.takeSteps());
  // The names are the rows' own name_key, just written (the name index's content: migration 6).
  steps.push({
    sql: "INSERT INTO organization_names (rowid, name_key) SELECT id, name_key FROM organizations WHERE id IN (SELECT value FROM json_each(?))",
    params: [ids],
  });
  return { steps, transfer };
}

/** Deletes one organization; stale (nothing written) when it does not exist. */
export function deletePlan(id: number): WritePlan {
  const steps: WriteStep[] = [
    { sql: "SELECT EXISTS (SELECT 1 FROM organizations WHERE id = ?) AS present", params: [id], expect: JSON.stringify([{ present: 1 }]) },
    ...generationSteps([id]),
    { sql: `${DELETE_NAMES} WHERE id = ?`, params: [id] },
    { sql: "DELETE FROM organizations WHERE id = ?", params: [id] },
  ];
  return { steps, transfer: [] };
}

/** Each table's rows, an organization's before those that reference it; the vectors' bytes in one buffer, moved rather than copied. */
function rowInserts(rows: readonly OrganizationRow[], modelId: string) {
  const organizations = new MultiRowInsert(
    "organizations (id, doc, hq_country, hq_subdivision, employee_count, employee_range, founded_year, last_round_stage, last_round_date, name_key, domain_key)",
    11,
  );
  // A vector row names its organization's row (database.ts, migration 6), found by the id just written.
  const vectors = new MultiRowInsert("organization_vectors (org_row, kind, model_id, vector)", 4, "((SELECT row FROM organizations WHERE id = ?), ?, ?, ?)");
  const blobs = new VectorBlobs(rows);
  for (const { organization: o, columns: c, profileVector, customerVector } of rows) {
    const name = nameKey(o.name);
    const domain = o.domain ? domainKey(o.domain) : null;
    const row = [c.hqCountry, c.hqSubdivision, c.employeeCount, c.employeeRange, c.foundedYear, c.lastRoundStage, c.lastRoundDate];
    organizations.add(o.id, JSON.stringify(o), ...row, name, domain);
    vectors.add(o.id, "profile", modelId, blobs.add(profileVector));
    if (customerVector) vectors.add(o.id, "customer", modelId, blobs.add(customerVector));
  }
  return { inserts: [organizations, vectors], transfer: [blobs.buffer] };
}

/**
 * The vectors of a write as blobs (raw float32 bytes, as fromBlob reads them), all in one buffer:
 * sent to the write thread, a buffer per vector would be copied one by one, and a vector viewing a
 * larger buffer would copy all of it.
 */
class VectorBlobs {
  readonly buffer: ArrayBuffer;
  private readonly bytes: Uint8Array;
  private used = 0;

  constructor(rows: readonly OrganizationRecord[]) {
    let size = 0;
    for (const { profileVector, customerVector } of rows) size += profileVector.byteLength + (customerVector?.byteLength ?? 0);
    this.buffer = new ArrayBuffer(size);
    this.bytes = new Uint8Array(this.buffer);
  }

  add(vector: Float32Array): Uint8Array {
    const start = this.used;
    this.bytes.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), start);
    this.used += vector.byteLength;
    return this.bytes.subarray(start, this.used);
  }
}
