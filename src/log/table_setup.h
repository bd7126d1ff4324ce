/*
 * What a write needs to know about a table's protocol and properties:
 * checking the properties of a new table, the smallest protocol covering
 * what the table uses, and whether deltac may write to an existing table
 * (every writer feature it declares must be one deltac honours).
 */
#ifndef DELTAC_LOG_TABLE_SETUP_H
#define DELTAC_LOG_TABLE_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "log/actions.h"
#include "log/table_schema.h"

typedef enum { CM_NONE, CM_NAME, CM_ID } cm_mode;

/* Properties of a new table, validated (DELTA_EINVAL naming a bad value or
 * an unknown delta.* key; DELTA_EUNSUPPORTED for features deltac cannot
 * write, e.g. type widening). */
int table_check_properties(const char *const *keys, const char *const *values, int n);

/* Whether a properties list turns a boolean property on. */
bool table_prop_true(const delta_kv *kv, int n, const char *key);
const char *table_prop(const delta_kv *kv, int n, const char *key);
cm_mode table_cm_mode(const delta_kv *kv, int n);
/* A duration property ("interval 1 week", "interval 36 hours", "30 days")
 * in ms; default_ms when v is NULL or not understood. */
int64_t table_interval_ms(const char *v, int64_t default_ms);

/* The protocol a new table needs, in `arena`. */
int table_derive_protocol(const delta_type *schema, const delta_kv *config, int n_config, delta_arena *arena,
                          delta_protocol *out);
/* The same for a table that may be clustered (--cluster-by). */
int table_derive_protocol_ex(const delta_type *schema, const delta_kv *config, int n_config, bool clustered,
                             delta_arena *arena, delta_protocol *out);

/* DELTA_EUNSUPPORTED naming what deltac cannot honour when writing. */
int table_check_writable(const delta_protocol *p, const delta_metadata *m, const delta_type *schema);

#endif
