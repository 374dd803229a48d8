/*
 * The word search's walks (LexicalIndex in @orgsim/backend-embedded), step for step as they were in
 * JavaScript, so rankings do not change: adding a term's BM25 over its postings, completing the
 * documents still in reach, selecting, counting or picking the best of scored slots, and clearing
 * their scores. The hottest loops of a hybrid search; here about a third faster than in JavaScript
 * at 100k organizations.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "kernels.h"

/* The arguments of a posting walk (accumulatePostings, completePostings): lengths checked once a call, slots as reached. */
typedef struct {
  const int32_t *slots;
  const uint16_t *freqs;
  size_t length;
  double idf;
  const double *normalization;
  const uint8_t *slot_norm;
  size_t slot_count;
  double *scores;
} posting_walk;

/* Whether reading an argument threw (typed() throws on a wrong one; an empty array's data may be null). */
static bool exception_pending(napi_env env) {
  bool pending;
  if (napi_is_exception_pending(env, &pending) == napi_ok) return pending;
  napi_throw_error(env, NULL, "napi: napi_is_exception_pending");
  return true;
}

/* (slots: Int32Array, freqs: Uint16Array, length, idf, normalization: Float64Array(256), slotNorm: Uint8Array, scores: Float64Array) */
static bool read_walk(napi_env env, napi_value *argv, posting_walk *walk) {
  size_t slots_length, freqs_length, norm_length, slot_norm_length, scores_length;
  uint32_t length;
  walk->slots = typed(env, argv[0], napi_int32_array, &slots_length, "slots");
  walk->freqs = typed(env, argv[1], napi_uint16_array, &freqs_length, "freqs");
  if (napi_get_value_uint32(env, argv[2], &length) != napi_ok || napi_get_value_double(env, argv[3], &walk->idf) != napi_ok) {
    napi_throw_type_error(env, NULL, "length and idf must be numbers");
    return false;
  }
  walk->normalization = typed(env, argv[4], napi_float64_array, &norm_length, "normalization");
  walk->slot_norm = typed(env, argv[5], napi_uint8_array, &slot_norm_length, "slotNorm");
  walk->scores = typed(env, argv[6], napi_float64_array, &scores_length, "scores");
  if (exception_pending(env)) return false;
  if (length > slots_length || length > freqs_length || norm_length != 256) {
    napi_throw_range_error(env, NULL, "the postings must hold `length` slots and freqs, and normalization 256 numbers");
    return false;
  }
  walk->length = length;
  walk->slot_count = slot_norm_length < scores_length ? slot_norm_length : scores_length;
  return true;
}

/*
 * Whether `slot` lies outside `count` slots (negative ones too). The walks check each slot as they
 * reach it rather than in a pass of their own: a pass would read every posting twice. A walk that
 * finds one throws, leaving the scores it already added (scratch, not stored).
 */
static inline bool outside(int32_t slot, size_t count) { return (size_t)(uint32_t)slot >= count; }

static napi_value throw_outside(napi_env env, const char *arrays) {
  char message[96];
  snprintf(message, sizeof message, "a slot is outside %s", arrays);
  napi_throw_range_error(env, NULL, message);
  return NULL;
}

/* BM25 of a term in a slot holding it `freq` times, summed as LexicalIndex.termScore does. */
static inline double term_score(const posting_walk *w, int32_t slot, uint16_t freq) {
  return (w->idf * (double)freq) / ((double)freq + w->normalization[w->slot_norm[slot]]);
}

/*
 * accumulatePostings(...walk, allowed: Uint8Array | null, bySlot, slotRow: Int32Array, touched: Int32Array,
 * high: Int32Array, state: Float64Array [touchedCount, highCount, highFloor]) -> the best score it left.
 * LexicalIndex.accumulate, the hot loop of the word search, step for step.
 */
napi_value accumulate_postings(napi_env env, napi_callback_info info) {
  napi_value argv[13];
  if (!read_arguments(env, info, 13, argv, "accumulatePostings takes (slots, freqs, length, idf, normalization, slotNorm, scores, allowed, bySlot, slotRow, touched, high, state)")) return NULL;
  posting_walk w;
  if (!read_walk(env, argv, &w)) return NULL;
  napi_valuetype allowed_type;
  CHECK(napi_typeof(env, argv[7], &allowed_type));
  size_t allowed_length = 0, slot_row_length, touched_length, high_length, state_length;
  const uint8_t *allowed = NULL;
  if (allowed_type != napi_null) allowed = typed(env, argv[7], napi_uint8_array, &allowed_length, "allowed");
  bool by_slot;
  if (napi_get_value_bool(env, argv[8], &by_slot) != napi_ok) {
    napi_throw_type_error(env, NULL, "bySlot must be a boolean");
    return NULL;
  }
  const int32_t *slot_row = typed(env, argv[9], napi_int32_array, &slot_row_length, "slotRow");
  int32_t *touched = typed(env, argv[10], napi_int32_array, &touched_length, "touched");
  int32_t *high = typed(env, argv[11], napi_int32_array, &high_length, "high");
  double *state = typed(env, argv[12], napi_float64_array, &state_length, "state");
  if (exception_pending(env)) return NULL;
  if (state_length != 3 || (by_slot && !allowed) || slot_row_length < w.slot_count || state[0] < 0 || state[1] < 0 ||
      touched_length < w.slot_count || high_length < w.slot_count) {
    napi_throw_range_error(env, NULL, "accumulatePostings: slotRow, touched and high must cover every slot, and state hold 3 counts");
    return NULL;
  }
  size_t touched_count = (size_t)state[0], high_count = (size_t)state[1];
  const double high_floor = state[2];
  double top = 0;
  for (size_t j = 0; j < w.length; j++) {
    const int32_t slot = w.slots[j];
    if (outside(slot, w.slot_count)) return throw_outside(env, "slotNorm or scores");
    if (by_slot) {
      if ((size_t)slot >= allowed_length || !allowed[slot]) continue;
    } else {
      const int32_t row = slot_row[slot];
      if (row < 0 || (allowed && ((size_t)row >= allowed_length || !allowed[row]))) continue;
    }
    const double before = w.scores[slot];
    // A slot is touched once (its score was 0), so touched never outgrows the slots.
    if (before == 0 && touched_count < touched_length) touched[touched_count++] = slot;
    const double score = before + term_score(&w, slot, w.freqs[j]);
    w.scores[slot] = score;
    if (score > high_floor && before <= high_floor && high_count < high_length) high[high_count++] = slot;
    if (score > top) top = score;
  }
  state[0] = (double)touched_count;
  state[1] = (double)high_count;
  napi_value result;
  CHECK(napi_create_double(env, top, &result));
  return result;
}

/*
 * completePostings(...walk, left, threshold): LexicalIndex.completeInPlace for one term: adds it to
 * every touched slot (score above 0) that can still reach `threshold` with `left`.
 */
napi_value complete_postings(napi_env env, napi_callback_info info) {
  napi_value argv[9];
  if (!read_arguments(env, info, 9, argv, "completePostings takes (slots, freqs, length, idf, normalization, slotNorm, scores, left, threshold)")) return NULL;
  posting_walk w;
  if (!read_walk(env, argv, &w)) return NULL;
  double left, threshold;
  if (napi_get_value_double(env, argv[7], &left) != napi_ok || napi_get_value_double(env, argv[8], &threshold) != napi_ok) {
    napi_throw_type_error(env, NULL, "left and threshold must be numbers");
    return NULL;
  }
  for (size_t j = 0; j < w.length; j++) {
    const int32_t slot = w.slots[j];
    if (outside(slot, w.slot_count)) return throw_outside(env, "slotNorm or scores");
    const double score = w.scores[slot];
    if (score == 0 || score + left < threshold) continue;
    w.scores[slot] = score + term_score(&w, slot, w.freqs[j]);
  }
  return NULL;
}

/* The slot list and scores a selection walks (slotsReaching, slotsAbove, countAbove, bestSlots), or clearSlots clears: lengths checked once a call, slots as reached. */
typedef struct {
  const int32_t *slots;
  size_t count;
  double *scores;
  size_t score_count;
} slot_list;

/* A call's `argc` arguments into `argv` (`usage` names them when too few), the first three (slots: Int32Array, count, scores: Float64Array) into `list`. */
static bool read_slot_list(napi_env env, napi_callback_info info, size_t argc, napi_value *argv, const char *usage, slot_list *list) {
  if (!read_arguments(env, info, argc, argv, usage)) return false;
  size_t slots_length, scores_length;
  uint32_t count;
  list->slots = typed(env, argv[0], napi_int32_array, &slots_length, "slots");
  if (napi_get_value_uint32(env, argv[1], &count) != napi_ok) {
    napi_throw_type_error(env, NULL, "count must be a number");
    return false;
  }
  list->scores = typed(env, argv[2], napi_float64_array, &scores_length, "scores");
  if (exception_pending(env)) return false;
  if (count > slots_length) {
    napi_throw_range_error(env, NULL, "count is past the end of slots");
    return false;
  }
  list->count = count;
  list->score_count = scores_length;
  return true;
}

/* Writes to `out` the listed slots whose score passes (reaching: score + a >= b; above: score > a), in order; returns how many. */
static napi_value select_slots(napi_env env, napi_callback_info info, bool reaching) {
  napi_value argv[6];
  slot_list list;
  if (!read_slot_list(env, info, reaching ? 6 : 5, argv,
                      reaching ? "slotsReaching takes (slots, count, scores, left, threshold, out)" : "slotsAbove takes (slots, count, scores, floor, out)", &list))
    return NULL;
  double a, b = 0;
  size_t out_length;
  if (napi_get_value_double(env, argv[3], &a) != napi_ok || (reaching && napi_get_value_double(env, argv[4], &b) != napi_ok)) {
    napi_throw_type_error(env, NULL, "the bounds must be numbers");
    return NULL;
  }
  int32_t *out = typed(env, argv[reaching ? 5 : 4], napi_int32_array, &out_length, "out");
  if (exception_pending(env)) return NULL;
  if (out_length < list.count) {
    napi_throw_range_error(env, NULL, "out must hold `count` slots");
    return NULL;
  }
  uint32_t n = 0;
  for (size_t i = 0; i < list.count; i++) {
    const int32_t slot = list.slots[i];
    if (outside(slot, list.score_count)) return throw_outside(env, "scores");
    const double score = list.scores[slot];
    if (reaching ? score + a >= b : score > a) out[n++] = slot;
  }
  napi_value result;
  CHECK(napi_create_uint32(env, n, &result));
  return result;
}

/* slotsReaching(slots: Int32Array, count, scores: Float64Array, left, threshold, out: Int32Array): LexicalIndex.reachable. */
napi_value slots_reaching(napi_env env, napi_callback_info info) { return select_slots(env, info, true); }

/* slotsAbove(slots: Int32Array, count, scores: Float64Array, floor, out: Int32Array): LexicalIndex.collectHigh. */
napi_value slots_above(napi_env env, napi_callback_info info) { return select_slots(env, info, false); }

/* countAbove(slots: Int32Array, count, scores: Float64Array, bound, enough): how many listed slots score above `bound`, counted up to `enough`. */
napi_value count_above(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  slot_list list;
  if (!read_slot_list(env, info, 5, argv, "countAbove takes (slots, count, scores, bound, enough)", &list)) return NULL;
  double bound;
  uint32_t enough;
  if (napi_get_value_double(env, argv[3], &bound) != napi_ok || napi_get_value_uint32(env, argv[4], &enough) != napi_ok) {
    napi_throw_type_error(env, NULL, "bound and enough must be numbers");
    return NULL;
  }
  uint32_t n = 0;
  for (size_t i = 0; i < list.count && n < enough; i++) {
    const int32_t slot = list.slots[i];
    if (outside(slot, list.score_count)) return throw_outside(env, "scores");
    if (list.scores[slot] > bound) n++;
  }
  napi_value result;
  CHECK(napi_create_uint32(env, n, &result));
  return result;
}

/* clearSlots(slots: Int32Array, count, scores: Float64Array): sets the listed slots' scores back to 0 (LexicalIndex.searchAmong's last step). */
napi_value clear_slots(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  slot_list list;
  if (!read_slot_list(env, info, 3, argv, "clearSlots takes (slots, count, scores)", &list)) return NULL;
  for (size_t i = 0; i < list.count; i++) {
    const int32_t slot = list.slots[i];
    if (outside(slot, list.score_count)) return throw_outside(env, "scores");
    list.scores[slot] = 0;
  }
  return NULL;
}

/*
 * bestSlots(slots: Int32Array, count, scores: Float64Array, best: Int32Array): the best.length listed
 * slots with the highest scores, into `best` (highest first; of equal scores the one listed first):
 * LexicalIndex.bestCandidates, step for step. Slots of `best` past the listed ones are left as they were.
 */
napi_value best_slots(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  slot_list list;
  if (!read_slot_list(env, info, 4, argv, "bestSlots takes (slots, count, scores, best)", &list)) return NULL;
  size_t k;
  int32_t *best = typed(env, argv[3], napi_int32_array, &k, "best");
  if (exception_pending(env)) return NULL;
  // The kept slots' scores, highest first.
  double *top = k > 0 ? malloc(k * sizeof *top) : NULL;
  if (top == NULL) {
    napi_throw_range_error(env, NULL, k > 0 ? "bestSlots: no memory for its scores" : "best must hold at least 1 slot");
    return NULL;
  }
  for (size_t i = 0; i < k; i++) top[i] = -INFINITY;
  for (size_t t = 0; t < list.count; t++) {
    const int32_t slot = list.slots[t];
    if (outside(slot, list.score_count)) {
      free(top);
      return throw_outside(env, "scores");
    }
    const double score = list.scores[slot];
    if (score <= top[k - 1]) continue;
    size_t i = k - 1;
    for (; i > 0 && top[i - 1] < score; i--) {
      top[i] = top[i - 1];
      best[i] = best[i - 1];
    }
    top[i] = score;
    best[i] = slot;
  }
  free(top);
  return NULL;
}
