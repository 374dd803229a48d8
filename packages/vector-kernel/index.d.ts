/**
 * `out[i]` = dot(`query`, row `rows[i]` of `matrix`) for i < `count`, where `matrix` holds rows of
 * `dimension` float32s one after another. Throws a RangeError for a row outside the matrix.
 */
export function scoreRows(matrix: Float32Array, dimension: number, query: Float32Array, rows: Int32Array, count: number, out: Float32Array): void;

/**
 * Bytes `offset` to `offset + length` of the file at `path`, as an ArrayBuffer backed by the file's
 * pages (shared with every process that maps them), copy on write: writes to it stay in this process
 * and never reach the file. The file must not shrink while mapped (orgsim replaces its files whole,
 * by a rename, which leaves a mapped file as it was).
 */
export function mapFile(path: string, offset: number, length: number): ArrayBuffer;
