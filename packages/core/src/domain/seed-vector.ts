/**
 * Several examples as one query vector, after Rocchio's relevance feedback (Rocchio, 1971): the
 * mean of the examples to resemble, moved away from the mean of the counter-examples, normalized.
 */

/**
 * How far the counter-examples push the query away, against the examples' weight of 1. Measured on
 * bench:quality (yc, a near-neighbour counter-example): 0.25 pushes its kind out of the top 10
 * (−39% on sub-industry) and keeps P@10; 0.5 pushed more but cost 26% of P@10 (docs/benchmarks.md).
 */
export const UNLIKE_WEIGHT = 0.25;

export function seedVector(like: readonly Float32Array[], unlike: readonly Float32Array[]): Float32Array {
  const toward = mean(like);
  const query = toward.slice();
  if (unlike.length > 0) {
    const away = mean(unlike);
    for (let i = 0; i < query.length; i++) query[i] = (query[i] as number) - UNLIKE_WEIGHT * (away[i] as number);
  }
  // Counter-examples equal to the examples cancel them out: the examples alone are then the query.
  return unit(norm(query) < 1e-6 ? toward : query);
}

function mean(vectors: readonly Float32Array[]): Float64Array {
  const out = new Float64Array((vectors[0] as Float32Array).length);
  for (const v of vectors) for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) + (v[i] as number) / vectors.length;
  return out;
}

const norm = (v: Float64Array) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

function unit(v: Float64Array): Float32Array {
  const length = norm(v);
  return Float32Array.from(v, (x) => (length > 0 ? x / length : x));
}
