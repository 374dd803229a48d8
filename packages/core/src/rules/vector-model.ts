/**
 * One store holds vectors of one model: vectors of different models (or dimensions) are not
 * comparable. Both organization stores apply these checks before they write or rank.
 */
import { OrgsimError } from "../errors";
import type { OrganizationRecord, VectorModel } from "../ports/organization-store";

/**
 * Each record's vectors have `model`'s dimension; `check` (a backend's own condition on a vector)
 * runs on each vector after its dimension passed.
 */
export function assertRecordVectors(records: readonly OrganizationRecord[], model: VectorModel, check?: (id: number, vector: Float32Array) => void): void {
  for (const { organization: o, profileVector, customerVector } of records) {
    for (const v of [profileVector, customerVector]) {
      if (!v) continue;
      if (v.length !== model.dimension) {
        throw new OrgsimError("CONFLICT", `Organization ${o.id} has a ${v.length}-d vector but model ${model.modelId} is ${model.dimension}-d`);
      }
      check?.(o.id, v);
    }
  }
}

/** A store that holds vectors of `stored` takes vectors of `model` only when both are the same model and dimension. */
export function assertModelAdmitted(stored: VectorModel | null, model: VectorModel): void {
  if (!stored || (stored.modelId === model.modelId && stored.dimension === model.dimension)) return;
  throw new OrgsimError(
    "CONFLICT",
    `This store holds vectors of model ${stored.modelId} (${stored.dimension}-d); refusing vectors of ${model.modelId} (${model.dimension}-d). ` +
      "Use the store's model, or re-import into an empty store",
    { stored_model: stored.modelId, stored_dimension: stored.dimension, model: model.modelId, dimension: model.dimension },
  );
}

/** A query vector is compared only with stored vectors of its dimension. */
export function assertQueryDimension(queryDimension: number, storedDimension: number): void {
  if (queryDimension !== storedDimension) {
    throw new OrgsimError("CONFLICT", `The query vector has ${queryDimension} dimensions; the stored vectors have ${storedDimension}`);
  }
}
