/** The exact score of a hit, computed in float64 from the float32 vector kept in `_source`. */
import { dot } from "@orgsim/core";

const squaredNorm = (v: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] as number) * (v[i] as number);
  return s;
};

/** Unit length within float32 rounding (what every embedding model here produces). */
const UNIT = 1e-4;

/**
 * Cosine similarity. For unit vectors (the norm within 1e-4 of 1) it is the plain dot product,
 * exactly as the embedded backend computes it; otherwise the dot product over both norms, which is
 * what Elasticsearch ranks by for `similarity: cosine`.
 */
export function cosine(q: Float64Array, qSquaredNorm: number, v: ArrayLike<number>): number {
  const product = dot(q, v);
  const vSquaredNorm = squaredNorm(v);
  if (Math.abs(qSquaredNorm - 1) <= UNIT && Math.abs(vSquaredNorm - 1) <= UNIT) return product;
  const denominator = Math.sqrt(qSquaredNorm * vSquaredNorm);
  return denominator === 0 ? 0 : product / denominator;
}

export { squaredNorm };
