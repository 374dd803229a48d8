/*
 * The vector kernels:
 * - mapFile: a region of a file as an ArrayBuffer backed by the file's pages (mmap, MAP_PRIVATE),
 *   so that every server process reads one copy of the saved vectors from the page cache instead of
 *   copying them into memory of its own (at 1M organizations, 2.1 GB a process), and a write to it
 *   stays in the process (copy on write) and never reaches the file;
 * - scoreRows: out[i] = dot(query, row rows[i] of a row-major float32 matrix), for any ArrayBuffer,
 *   mapped or not.
 * The dot products sum as the WebAssembly kernel before it did (two 4-lane accumulators a row, 8
 * floats a step, no fused multiply-add, four rows in flight to hide memory latency, then a scalar
 * tail), so scores did not change.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernels.h"

typedef float f32x4 __attribute__((vector_size(16)));

static inline f32x4 load4(const float *p) {
  f32x4 v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline float sum4(f32x4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }

/* One row's dot product, summed as four rows' are below (for the rows left when fewer than four). */
static float dot1(const float *q, const float *r, size_t dim) {
  f32x4 a = {0, 0, 0, 0}, b = {0, 0, 0, 0};
  size_t blocks = dim & ~(size_t)7, j = 0;
  for (; j < blocks; j += 8) {
    a += load4(r + j) * load4(q + j);
    b += load4(r + j + 4) * load4(q + j + 4);
  }
  float tail = 0;
  for (; j < dim; j++) tail += r[j] * q[j];
  return sum4(a + b) + tail;
}

static void dot4(const float *q, const float *r0, const float *r1, const float *r2, const float *r3, size_t dim, float *out) {
  f32x4 a0 = {0, 0, 0, 0}, a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  size_t blocks = dim & ~(size_t)7, j = 0;
  for (; j < blocks; j += 8) {
    f32x4 x = load4(q + j), y = load4(q + j + 4);
    a0 += load4(r0 + j) * x;
    a1 += load4(r1 + j) * x;
    a2 += load4(r2 + j) * x;
    a3 += load4(r3 + j) * x;
    b0 += load4(r0 + j + 4) * y;
    b1 += load4(r1 + j + 4) * y;
    b2 += load4(r2 + j + 4) * y;
    b3 += load4(r3 + j + 4) * y;
  }
  float t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  for (; j < dim; j++) {
    t0 += r0[j] * q[j];
    t1 += r1[j] * q[j];
    t2 += r2[j] * q[j];
    t3 += r3[j] * q[j];
  }
  out[0] = sum4(a0 + b0) + t0;
  out[1] = sum4(a1 + b1) + t1;
  out[2] = sum4(a2 + b2) + t2;
  out[3] = sum4(a3 + b3) + t3;
}

/* scoreRows(matrix: Float32Array, dimension, query: Float32Array, rows: Int32Array, count, out: Float32Array) */
napi_value score_rows(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!read_arguments(env, info, 6, argv, "scoreRows takes (matrix, dimension, query, rows, count, out)")) return NULL;
  size_t matrix_length, query_length, rows_length, out_length;
  uint32_t dim, count;
  const float *matrix = typed(env, argv[0], napi_float32_array, &matrix_length, "matrix");
  if (!matrix && matrix_length) return NULL;
  CHECK(napi_get_value_uint32(env, argv[1], &dim));
  const float *query = typed(env, argv[2], napi_float32_array, &query_length, "query");
  if (!query && query_length) return NULL;
  const int32_t *rows = typed(env, argv[3], napi_int32_array, &rows_length, "rows");
  if (!rows && rows_length) return NULL;
  CHECK(napi_get_value_uint32(env, argv[4], &count));
  float *out = typed(env, argv[5], napi_float32_array, &out_length, "out");
  if (!out && out_length) return NULL;
  bool pending;
  CHECK(napi_is_exception_pending(env, &pending));
  if (pending) return NULL;
  if (dim == 0 || query_length != dim || count > rows_length || count > out_length) {
    napi_throw_range_error(env, NULL, "scoreRows: the query must have `dimension` floats, and rows and out at least `count` elements");
    return NULL;
  }
  size_t matrix_rows = matrix_length / dim;
  for (uint32_t i = 0; i < count; i++) {
    if (rows[i] < 0 || (size_t)rows[i] >= matrix_rows) {
      char message[128];
      snprintf(message, sizeof message, "scoreRows: row %d is outside the matrix's %zu rows", rows[i], matrix_rows);
      napi_throw_range_error(env, NULL, message);
      return NULL;
    }
  }
  uint32_t i = 0;
  for (; i + 4 <= count; i += 4) {
    // The next four rows' first lines, while these four are summed: scattered rows wait on memory.
    for (uint32_t k = i + 4; k < i + 8 && k < count; k++) __builtin_prefetch(matrix + (size_t)rows[k] * dim);
    dot4(query, matrix + (size_t)rows[i] * dim, matrix + (size_t)rows[i + 1] * dim, matrix + (size_t)rows[i + 2] * dim,
         matrix + (size_t)rows[i + 3] * dim, dim, out + i);
  }
  for (; i < count; i++) out[i] = dot1(query, matrix + (size_t)rows[i] * dim, dim);
  return NULL;
}

typedef struct {
  void *base;
  size_t length;
} mapping;

static void unmap(napi_env env, void *data, void *hint) {
  (void)env;
  (void)data;
  mapping *m = hint;
  munmap(m->base, m->length);
  free(m);
}

/* mapFile(path, offset, length): bytes offset..offset+length of the file, mapped copy-on-write. */
napi_value map_file(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char path[4096];
  size_t path_length;
  double offset_value, length_value;
  if (argc != 3 || napi_get_value_string_utf8(env, argv[0], path, sizeof path, &path_length) != napi_ok ||
      napi_get_value_double(env, argv[1], &offset_value) != napi_ok || napi_get_value_double(env, argv[2], &length_value) != napi_ok ||
      offset_value < 0 || length_value < 0 || offset_value != (double)(uint64_t)offset_value || length_value != (double)(uint64_t)length_value) {
    napi_throw_type_error(env, NULL, "mapFile takes (path, offset, length): a path and two whole numbers of bytes");
    return NULL;
  }
  uint64_t offset = (uint64_t)offset_value, length = (uint64_t)length_value;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    char message[4200];
    snprintf(message, sizeof message, "mapFile: cannot open %s: %s", path, strerror(errno));
    napi_throw_error(env, NULL, message);
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < offset + length) {
    close(fd);
    char message[4200];
    snprintf(message, sizeof message, "mapFile: %s holds no bytes %llu to %llu", path, (unsigned long long)offset,
             (unsigned long long)(offset + length));
    napi_throw_range_error(env, NULL, message);
    return NULL;
  }
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t start = offset - offset % page;
  size_t span = (size_t)(offset - start + length);
  void *base = span ? mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, (off_t)start) : NULL;
  int mmap_errno = errno;
  close(fd);
  if (span && base == MAP_FAILED) {
    char message[4200];
    snprintf(message, sizeof message, "mapFile: cannot map %s: %s", path, strerror(mmap_errno));
    napi_throw_error(env, NULL, message);
    return NULL;
  }
  mapping *m = malloc(sizeof *m);
  if (!m) {
    if (span) munmap(base, span);
    napi_throw_error(env, NULL, "mapFile: out of memory");
    return NULL;
  }
  m->base = base;
  m->length = span;
  napi_value buffer;
  napi_status status =
      span ? napi_create_external_arraybuffer(env, (char *)base + (offset - start), (size_t)length, unmap, m, &buffer) : napi_create_arraybuffer(env, 0, NULL, &buffer);
  if (status != napi_ok) {
    if (span) munmap(base, span);
    free(m);
    napi_throw_error(env, NULL, "mapFile: this Node.js does not take memory from outside its heap (napi_create_external_arraybuffer)");
    return NULL;
  }
  if (!span) free(m);
  return buffer;
}

