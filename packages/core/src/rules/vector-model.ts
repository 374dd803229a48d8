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

/** Vectors computed elsewhere for one organization (bring your own embeddings); either may be absent. */
export interface GivenVectors {
  profile?: ArrayLike<number>;
  customer?: ArrayLike<number>;
}

/**
 * A given vector as the stores keep it: of the store model's dimension, finite, not zero, scaled to
 * unit length (both stores rank by the dot product of unit vectors; cosine ignores length, so the
 * rankings and cosines are those of the vector given). Returns the problem instead when there is one,
 * worded to follow the field's name (`profile_vector: has 3 dimensions; …`).
 */
export function givenVector(vector: ArrayLike<number>, model: VectorModel): Float32Array | string {
  if (vector.length !== model.dimension)
    return `has ${vector.length} dimensions; expected ${model.dimension}, the dimension of the store's model ${model.modelId}`;
  // Indexed loops, not iterators, and one pass where it can: an import checks a million vectors of hundreds of numbers.
  let sumOfSquares = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i];
    if (typeof x !== "number" || !Number.isFinite(x)) return `item ${i} is ${typeof x === "number" ? String(x) : JSON.stringify(x)}, not a finite number`;
    sumOfSquares += x * x;
  }
  const scale = squaresInRange(sumOfSquares) ? 1 / Math.sqrt(sumOfSquares) : scaleByLargest(vector);
  if (scale === null) return "is all zeros: a zero vector has no direction to compare";
  const unit = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) unit[i] = (vector[i] as number) * scale;
  return unit;
}

/**
 * Whether squaring lost nothing that matters: no overflow (1e200), and a sum of at least 2^-600,
 * beside which any square that lost digits to underflow (below 2^-1022, e.g. of 1e-160) weighs less than 2^-400.
 */
const squaresInRange = (sumOfSquares: number) => sumOfSquares < Number.POSITIVE_INFINITY && sumOfSquares >= 2 ** -600;

/** 1 / length of a finite vector, scaled by its largest item first so squaring neither overflows nor underflows; null for a zero vector. */
function scaleByLargest(vector: ArrayLike<number>): number | null {
  let largest = 0;
  for (let i = 0; i < vector.length; i++) largest = Math.max(largest, Math.abs(vector[i] as number));
  if (largest === 0) return null;
  let sumOfSquares = 0;
  for (let i = 0; i < vector.length; i++) {
    const scaled = (vector[i] as number) / largest;
    sumOfSquares += scaled * scaled;
  }
  return 1 / (largest * Math.sqrt(sumOfSquares));
}
