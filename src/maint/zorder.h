/*
 * The Z-order curve: each column's values mapped to unsigned integers in
 * the same order, normalised to ranks so that every column weighs the
 * same, and the ranks' bits interleaved (most significant first) into one
 * 128-bit key. Sorting rows by the key keeps rows close in every column
 * close on the curve.
 */
#ifndef DELTAC_MAINT_ZORDER_H
#define DELTAC_MAINT_ZORDER_H

#include <stdint.h>

#include "expr/value.h"

/* Order-preserving: a < b (SQL order, nulls first) gives key(a) <= key(b).
 * Integers, dates and timestamps flip the sign bit; floats and doubles
 * use their IEEE bits (negatives inverted); decimals saturate to 64 bits;
 * strings and binaries use their first 8 bytes, big-endian (ties beyond
 * the prefix map to one key). Nulls are 0, as is every non-null value
 * whose class has no order (structs, lists). */
uint64_t zorder_value_key(const expr_value *v);

/* Replace keys[0..n) by their ranks scaled to `bits` bits (1..64): equal
 * keys get equal ranks, and the smallest key 0, the largest near 2^bits. */
int zorder_rank(uint64_t *keys, int64_t n, int bits);

typedef struct {
  uint64_t hi, lo;
} zorder_key;

/* Interleave the low `bits` bits of each of the n_cols values (n_cols *
 * bits <= 128), most significant bit first, column 0 first. */
zorder_key zorder_interleave(const uint64_t *values, int n_cols, int bits);

int zorder_key_cmp(const zorder_key *a, const zorder_key *b);

#endif
