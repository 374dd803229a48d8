/*
 * The embedded store's native kernels, as one Node-API addon (see kernels.h):
 * - vectors.c: files mapped into memory, and dot products of a query with rows of a float32 matrix;
 * - postings.c: the word search's walks over posting lists and scores;
 * - graph_view.cpp: searches of a saved vector graph with a filter tested inside the walk.
 */
#include <stdio.h>
#include "kernels.h"

void *typed(napi_env env, napi_value value, napi_typedarray_type want, size_t *length, const char *name) {
  bool is;
  if (napi_is_typedarray(env, value, &is) != napi_ok || !is) {
    char message[96];
    snprintf(message, sizeof message, "%s must be a typed array", name);
    napi_throw_type_error(env, NULL, message);
    return NULL;
  }
  napi_typedarray_type type;
  void *data;
  if (napi_get_typedarray_info(env, value, &type, length, &data, NULL, NULL) != napi_ok || type != want) {
    char message[96];
    snprintf(message, sizeof message, "%s has the wrong element type", name);
    napi_throw_type_error(env, NULL, message);
    return NULL;
  }
  return data;
}


bool read_arguments(napi_env env, napi_callback_info info, size_t count, napi_value *argv, const char *usage) {
  size_t argc = count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != count) {
    napi_throw_type_error(env, NULL, usage);
    return false;
  }
  return true;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"scoreRows", NULL, score_rows, NULL, NULL, NULL, napi_default, NULL},
      {"mapFile", NULL, map_file, NULL, NULL, NULL, napi_default, NULL},
      {"accumulatePostings", NULL, accumulate_postings, NULL, NULL, NULL, napi_default, NULL},
      {"completePostings", NULL, complete_postings, NULL, NULL, NULL, napi_default, NULL},
      {"slotsReaching", NULL, slots_reaching, NULL, NULL, NULL, napi_default, NULL},
      {"slotsAbove", NULL, slots_above, NULL, NULL, NULL, napi_default, NULL},
      {"countAbove", NULL, count_above, NULL, NULL, NULL, napi_default, NULL},
      {"clearSlots", NULL, clear_slots, NULL, NULL, NULL, napi_default, NULL},
      {"bestSlots", NULL, best_slots, NULL, NULL, NULL, napi_default, NULL},
      {"openGraphView", NULL, open_graph_view, NULL, NULL, NULL, napi_default, NULL},
      {"filteredGraphSearch", NULL, filtered_graph_search, NULL, NULL, NULL, napi_default, NULL},
  };
  if (napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
