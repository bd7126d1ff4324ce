/*
 * Placing dense values at their slots, for flat columns read straight into
 * Arrow layout (see column_reader.h).
 *
 * A run of n slots holds nv (<= n) values: slot i has one when bit vpos + i
 * of the validity bitmap `valid` is set (bits.h), and gets zero bytes (an
 * empty string, a false boolean) when not. valid NULL means every slot has
 * a value (n == nv).
 */
#ifndef DELTAC_PARQUET_SLOTS_H
#define DELTAC_PARQUET_SLOTS_H

#include <stddef.h>
#include <stdint.h>

/* dst[i] = the next value of src (values of w bytes) or zero. src holds nv
 * values and is read only inside them. */
void pq_slots_scatter(uint8_t *dst, const uint8_t *src, int w, const uint8_t *valid, size_t vpos,
                      size_t n, size_t nv);

/* dst[i] = dict[the next of idx] or zero. idx holds nv indices, each
 * already checked against the dictionary. */
void pq_slots_gather(uint8_t *dst, const uint8_t *dict, const uint32_t *idx, int w,
                     const uint8_t *valid, size_t vpos, size_t n, size_t nv);

/* In place: data holds nv dense values of w bytes at its start; spread them
 * over the n slots (data has room for n). */
void pq_slots_expand(uint8_t *data, int w, const uint8_t *valid, size_t vpos, size_t n, size_t nv);

/* In place, for string offsets: off[0] is where the run starts, off[1..nv]
 * the ends of its nv values; make off[1..n] the ends of the n slots. */
void pq_slots_expand_offsets(int32_t *off, const uint8_t *valid, size_t vpos, size_t n, size_t nv);

/* Booleans: vals holds nv bytes (0/1) and is readable 64 bytes past them;
 * OR slot i's value into bit pos + i of the zeroed bitmap `bits`. */
void pq_slots_pack_bools(uint8_t *bits, size_t pos, const uint8_t *vals, const uint8_t *valid,
                         size_t vpos, size_t n);

#endif
