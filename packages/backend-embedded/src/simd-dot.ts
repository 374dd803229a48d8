/**
 * The embedded backend's one dot product: `query` against the vector at offset `at` of `matrix`,
 * by simsimd's SIMD kernels (float32 products and sums; within about 1e-6 of a float64 sum for unit
 * vectors). An exact scan of a restrictive filter's rows at 1M (26,000 scattered rows of 384
 * floats) spends its time here: 13-14 ms against 20-22 ms for the core's four-accumulator float64
 * loop, measured in one process.
 */
import { inner } from "simsimd";

export function dotAt(query: Float32Array, matrix: Float32Array, at: number, dimension: number): number {
  return inner(query, matrix.subarray(at, at + dimension));
}
