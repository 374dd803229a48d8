/* What the native kernels share: argument checks, and the functions addon.c exports. */
#ifndef ORGSIM_KERNELS_H
#define ORGSIM_KERNELS_H

#include <node_api.h>
#include <stdbool.h>
#include <stddef.h>

#define CHECK(call)                                   \
  do {                                                \
    if ((call) != napi_ok) {                          \
      napi_throw_error(env, NULL, "napi: " #call);    \
      return NULL;                                    \
    }                                                 \
  } while (0)


/* Reads exactly `count` arguments into argv; otherwise throws a TypeError saying `usage` and returns false. */
bool read_arguments(napi_env env, napi_callback_info info, size_t count, napi_value *argv, const char *usage);

/* The data of a typed array of element type `want`; on anything else a TypeError naming `name` is thrown and NULL returned. */
void *typed(napi_env env, napi_value value, napi_typedarray_type want, size_t *length, const char *name);

/* vectors.c */
napi_value score_rows(napi_env env, napi_callback_info info);
napi_value map_file(napi_env env, napi_callback_info info);

/* postings.c */
napi_value accumulate_postings(napi_env env, napi_callback_info info);
napi_value complete_postings(napi_env env, napi_callback_info info);
napi_value slots_reaching(napi_env env, napi_callback_info info);
napi_value slots_above(napi_env env, napi_callback_info info);
napi_value count_above(napi_env env, napi_callback_info info);
napi_value clear_slots(napi_env env, napi_callback_info info);
napi_value best_slots(napi_env env, napi_callback_info info);

/* graph_view.cpp */
napi_value open_graph_view(napi_env env, napi_callback_info info);
napi_value filtered_graph_search(napi_env env, napi_callback_info info);

#endif
