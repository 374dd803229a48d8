/*
 * Filtered searches of a saved usearch graph (HNSW), with the filter tested inside the walk.
 *
 * usearch's JavaScript binding searches without a predicate, so a filtered ranking searched wider and
 * dropped the nodes that failed afterwards (candidate-plan.ts). index_dense_gt::filtered_search, from
 * the same headers, keeps walking through nodes that fail but only keeps those that pass. Measured on
 * the bench's 100k profile graph, the broad filter (47 % of the rows), the 101 nearest that pass:
 * 1.3 ms a query against 1.8 searching wider and filtering after (docs/benchmarks.md, "The filter
 * inside the graph's walk"), where the wider search must often be made twice.
 *
 * The graph is a view of its file (mmap): every process maps the same pages, as the binding's view
 * does. Distances are cosine distances of f16 vectors, computed here with F16C and FMA (usearch's own
 * SIMD kernels come from NumKong, which adds about 80 s of compiling to an install).
 */
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include <usearch/index_dense.hpp>

extern "C" {
#include "kernels.h"
}

using unum::usearch::index_dense_t;
using unum::usearch::metric_kind_t;
using unum::usearch::metric_punned_signature_t;
using unum::usearch::metric_punned_t;
using unum::usearch::scalar_kind_t;

namespace {

/* 1 - cos(a, b) of two f16 vectors of n components (usearch's cos metric), summed in f32. */
__attribute__((target("avx2,fma,f16c"))) float cosine_distance_f16_avx2(std::size_t pa, std::size_t pb, std::size_t n) {
  auto a = reinterpret_cast<const std::uint16_t *>(pa);
  auto b = reinterpret_cast<const std::uint16_t *>(pb);
  __m256 ab = _mm256_setzero_ps(), aa = _mm256_setzero_ps(), bb = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(a + i)));
    __m256 y = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(b + i)));
    ab = _mm256_fmadd_ps(x, y, ab);
    aa = _mm256_fmadd_ps(x, x, aa);
    bb = _mm256_fmadd_ps(y, y, bb);
  }
  float sums[3][8];
  _mm256_storeu_ps(sums[0], ab);
  _mm256_storeu_ps(sums[1], aa);
  _mm256_storeu_ps(sums[2], bb);
  float xy = 0, xx = 0, yy = 0;
  for (int j = 0; j < 8; j++) xy += sums[0][j], xx += sums[1][j], yy += sums[2][j];
  for (; i < n; i++) {
    float x = _cvtsh_ss(a[i]), y = _cvtsh_ss(b[i]);
    xy += x * y, xx += x * x, yy += y * y;
  }
  if (xx == 0 && yy == 0) return 0;
  if (xy == 0) return 1;
  return 1 - xy / std::sqrt(xx * yy);
}

/*
 * The row of organization `id` in IdRows' table (packages/backend-embedded/src/id-rows.ts), or -1:
 * the same hash and linear probing, over the same arrays. EMPTY (-1) ends a probe, DELETED (-2) does not.
 */
struct IdRowsTable {
  const double *ids;
  const std::int32_t *rows;
  std::size_t slots; /* a power of two */
  unsigned bits;

  /*
   * The key's 32-bit halves by integer operations, as JavaScript's `id >>> 0` and `id / 2^32` give
   * them for ids below 2^53. Taken from the double by std::fmod and std::floor, the walks took 5 to
   * 6 % longer (the bench's 100k profile graph, 141 nodes, both builds in one process, median of 9
   * rounds of 600 queries: 486 against 513 µs without a filter, 1,205 against 1,278 µs under the
   * broad one).
   */
  std::int32_t row_of(std::uint64_t key) const {
    double id = static_cast<double>(key);
    std::uint32_t low = static_cast<std::uint32_t>(key);
    std::uint32_t high = static_cast<std::uint32_t>(key >> 32);
    std::uint32_t mixed = (low ^ (high * 0x85ebca6bu)) * 0x9e3779b1u;
    std::size_t mask = slots - 1;
    std::size_t slot = bits == 0 ? 0 : mixed >> (32 - bits);
    // IdRows keeps half its slots or more EMPTY; the bound only guards against a table that is not its.
    for (std::size_t probes = 0; probes < slots; probes++, slot = (slot + 1) & mask) {
      std::int32_t row = rows[slot];
      if (row == -1) return -1;
      if (row >= 0 && ids[slot] == id) return row;
    }
    return -1;
  }
};

struct GraphView {
  index_dense_t index;
};

void finalize_view(napi_env, void *data, void *) { delete static_cast<GraphView *>(data); }

bool throw_error(napi_env env, const std::string &message) {
  napi_throw_error(env, nullptr, message.c_str());
  return false;
}

}  // namespace

/* openGraphView(path): the saved graph at `path`, mapped; an External the searches below take. */
extern "C" napi_value open_graph_view(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!read_arguments(env, info, 1, argv, "openGraphView(path)")) return nullptr;
  char path[4096];
  std::size_t length = 0;
  if (napi_get_value_string_utf8(env, argv[0], path, sizeof path, &length) != napi_ok || length == 0 || length >= sizeof path - 1) {
    napi_throw_type_error(env, nullptr, "openGraphView: path must be a non-empty string of at most 4,094 bytes");
    return nullptr;
  }
  auto made = index_dense_t::make(path, true);
  if (!made) {
    throw_error(env, std::string("openGraphView: cannot map ") + path + ": " + made.error.release());
    return nullptr;
  }
  auto view = std::make_unique<GraphView>();
  view->index = std::move(made.index);
  if (view->index.scalar_kind() != scalar_kind_t::f16_k || view->index.metric().metric_kind() != metric_kind_t::cos_k) {
    throw_error(env, std::string("openGraphView: ") + path + " is not a graph of f16 vectors by cosine");
    return nullptr;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c"))
    view->index.change_metric(metric_punned_t::stateless(view->index.dimensions(), reinterpret_cast<std::uintptr_t>(&cosine_distance_f16_avx2),
                                                         metric_punned_signature_t::array_array_size_k, metric_kind_t::cos_k, scalar_kind_t::f16_k));
  // As usearch's own binding does after a view: search contexts sized for every node (without it a
  // search grows its sets of visited nodes as it goes, and took 1.7 times as long at 100k).
  if (!view->index.try_reserve(unum::usearch::ceil2(view->index.size()))) {
    throw_error(env, std::string("openGraphView: no memory for searching ") + path);
    return nullptr;
  }
  napi_value external;
  CHECK(napi_create_external(env, view.get(), finalize_view, nullptr, &external));
  view.release();
  return external;
}

/*
 * filteredGraphSearch(view, query, wanted, breadth, idTable, rowTable, allowed, alwaysKeys, keys, distances):
 * the `wanted` nearest nodes (searched at least `breadth` wide) whose organization's row is flagged in
 * `allowed` (rows found through IdRows' table, `idTable` and `rowTable`), or whose key is in
 * `alwaysKeys` (sorted ascending); written to `keys` and `distances`, nearest first. Returns how many.
 */
extern "C" napi_value filtered_graph_search(napi_env env, napi_callback_info info) {
  napi_value argv[10];
  if (!read_arguments(env, info, 10, argv, "filteredGraphSearch(view, query, wanted, breadth, idTable, rowTable, allowed, alwaysKeys, keys, distances)"))
    return nullptr;
  GraphView *view = nullptr;
  if (napi_get_value_external(env, argv[0], reinterpret_cast<void **>(&view)) != napi_ok || view == nullptr) {
    napi_throw_type_error(env, nullptr, "filteredGraphSearch: view must come from openGraphView");
    return nullptr;
  }
  std::size_t dimension, ids_length, rows_length, allowed_length, always_length, keys_length, distances_length;
  auto query = static_cast<const float *>(typed(env, argv[1], napi_float32_array, &dimension, "query"));
  std::uint32_t wanted = 0, breadth = 0;
  if (napi_get_value_uint32(env, argv[2], &wanted) != napi_ok || napi_get_value_uint32(env, argv[3], &breadth) != napi_ok)
    napi_throw_type_error(env, nullptr, "filteredGraphSearch: wanted and breadth must be counts");
  // typed() throws on a wrong argument (an empty array's data may be null): a pending exception tells.
  auto ids = static_cast<const double *>(typed(env, argv[4], napi_float64_array, &ids_length, "idTable"));
  auto rows = static_cast<const std::int32_t *>(typed(env, argv[5], napi_int32_array, &rows_length, "rowTable"));
  auto allowed = static_cast<const std::uint8_t *>(typed(env, argv[6], napi_uint8_array, &allowed_length, "allowed"));
  auto always = static_cast<const double *>(typed(env, argv[7], napi_float64_array, &always_length, "alwaysKeys"));
  auto keys = static_cast<double *>(typed(env, argv[8], napi_float64_array, &keys_length, "keys"));
  auto distances = static_cast<float *>(typed(env, argv[9], napi_float32_array, &distances_length, "distances"));
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) != napi_ok || pending) return nullptr;
  if (dimension != view->index.dimensions() || ids_length != rows_length || (ids_length & (ids_length - 1)) != 0 || ids_length == 0 ||
      keys_length < wanted || distances_length < wanted) {
    napi_throw_range_error(env, nullptr, "filteredGraphSearch: the query's dimension, the table's lengths or the outputs' lengths do not fit");
    return nullptr;
  }
  IdRowsTable table{ids, rows, ids_length, static_cast<unsigned>(__builtin_ctzll(ids_length))};
  auto passes = [&](index_dense_t::vector_key_t key) {
    std::int32_t row = table.row_of(key);
    if (row >= 0 && static_cast<std::size_t>(row) < allowed_length && allowed[row]) return true;
    return std::binary_search(always, always + always_length, static_cast<double>(key));
  };
  view->index.change_expansion_search(breadth);
  auto result = view->index.filtered_search(query, wanted, passes);
  if (!result) {
    throw_error(env, std::string("filteredGraphSearch: ") + result.error.release());
    return nullptr;
  }
  std::unique_ptr<index_dense_t::vector_key_t[]> found_keys(new index_dense_t::vector_key_t[wanted > 0 ? wanted : 1]);
  std::size_t found = result.dump_to(found_keys.get(), distances);
  for (std::size_t i = 0; i < found; i++) keys[i] = static_cast<double>(found_keys[i]);
  napi_value count;
  CHECK(napi_create_uint32(env, static_cast<std::uint32_t>(found), &count));
  return count;
}
