/**
 * A dot product in plain JavaScript: products and sums in float64 over float32 components, four
 * accumulators in a fixed order (four independent sums run faster in V8). The Elasticsearch
 * backend scores vectors read from `_source` with it; the embedded backend's scans use a float32
 * SIMD kernel instead (backend-embedded's vector-matrix.ts, native: packages/native-kernel), within
 * about 1e-6 of it.
 */
export function dot(q: Float64Array, v: ArrayLike<number>, base = 0, d = q.length): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (const tail = d - (d % 4); j < tail; j += 4) {
    s0 += (q[j] as number) * (v[base + j] as number);
    s1 += (q[j + 1] as number) * (v[base + j + 1] as number);
    s2 += (q[j + 2] as number) * (v[base + j + 2] as number);
    s3 += (q[j + 3] as number) * (v[base + j + 3] as number);
  }
  for (; j < d; j++) s0 += (q[j] as number) * (v[base + j] as number);
  return s0 + s1 + (s2 + s3);
}
