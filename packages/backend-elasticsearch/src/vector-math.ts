/** The exact score of a hit, computed in float64 from the float32 vector kept in `_source`. */

/**
 * q · v with products and sums in float64, four accumulators: the same arithmetic, in the same
 * order, as the embedded backend's MemoryIndex, so both backends report the same numbers.
 */
export function dot(q: Float64Array, v: ArrayLike<number>): number {
  const d = q.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (const tail = d - (d % 4); j < tail; j += 4) {
    s0 += (q[j] as number) * (v[j] as number);
    s1 += (q[j + 1] as number) * (v[j + 1] as number);
    s2 += (q[j + 2] as number) * (v[j + 2] as number);
    s3 += (q[j + 3] as number) * (v[j + 3] as number);
  }
  for (; j < d; j++) s0 += (q[j] as number) * (v[j] as number);
  return s0 + s1 + (s2 + s3);
}

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
