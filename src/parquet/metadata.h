/*
 * Parquet file metadata (the footer's FileMetaData) and page headers, decoded
 * from the Thrift compact protocol into plain C structs.
 *
 * Byte strings (statistics, key/value metadata, created_by) are pq_bytes that
 * point into the buffer that was parsed: that buffer must outlive the structs.
 * Names in the schema and paths are NUL-terminated copies.
 *
 * Every count, size and enum read from the file is validated against what the
 * buffer can hold; a malformed footer or header gives DELTA_ECORRUPT with a
 * one-line message saying what was wrong (the caller adds the file name).
 */
#ifndef DELTAC_PARQUET_METADATA_H
#define DELTAC_PARQUET_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/codec.h"

/* parquet.thrift enum values (pinned by the format). */
enum {
  PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_INT96 = 3,
  PQ_FLOAT = 4, PQ_DOUBLE = 5, PQ_BYTE_ARRAY = 6, PQ_FIXED_LEN_BYTE_ARRAY = 7
};

enum { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };

enum {
  PQ_CT_NONE = -1, PQ_CT_UTF8 = 0, PQ_CT_MAP = 1, PQ_CT_MAP_KEY_VALUE = 2, PQ_CT_LIST = 3,
  PQ_CT_ENUM = 4, PQ_CT_DECIMAL = 5, PQ_CT_DATE = 6, PQ_CT_TIME_MILLIS = 7,
  PQ_CT_TIME_MICROS = 8, PQ_CT_TIMESTAMP_MILLIS = 9, PQ_CT_TIMESTAMP_MICROS = 10,
  PQ_CT_UINT_8 = 11, PQ_CT_UINT_16 = 12, PQ_CT_UINT_32 = 13, PQ_CT_UINT_64 = 14,
  PQ_CT_INT_8 = 15, PQ_CT_INT_16 = 16, PQ_CT_INT_32 = 17, PQ_CT_INT_64 = 18,
  PQ_CT_JSON = 19, PQ_CT_BSON = 20, PQ_CT_INTERVAL = 21
};

/* LogicalType union member ids as in parquet.thrift. */
enum {
  PQ_LT_NONE = 0, PQ_LT_STRING = 1, PQ_LT_MAP = 2, PQ_LT_LIST = 3, PQ_LT_ENUM = 4,
  PQ_LT_DECIMAL = 5, PQ_LT_DATE = 6, PQ_LT_TIME = 7, PQ_LT_TIMESTAMP = 8,
  PQ_LT_INTEGER = 10, PQ_LT_UNKNOWN = 11, PQ_LT_JSON = 12, PQ_LT_BSON = 13, PQ_LT_UUID = 14,
  PQ_LT_FLOAT16 = 15, PQ_LT_VARIANT = 16, PQ_LT_GEOMETRY = 17, PQ_LT_GEOGRAPHY = 18
};

enum { PQ_UNIT_MILLIS = 1, PQ_UNIT_MICROS = 2, PQ_UNIT_NANOS = 3 };

enum {
  PQ_ENC_PLAIN = 0, PQ_ENC_PLAIN_DICTIONARY = 2, PQ_ENC_RLE = 3, PQ_ENC_BIT_PACKED = 4,
  PQ_ENC_DELTA_BINARY_PACKED = 5, PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
  PQ_ENC_DELTA_BYTE_ARRAY = 7, PQ_ENC_RLE_DICTIONARY = 8, PQ_ENC_BYTE_STREAM_SPLIT = 9
};

enum {
  PQ_PAGE_DATA = 0, PQ_PAGE_INDEX = 1, PQ_PAGE_DICTIONARY = 2, PQ_PAGE_DATA_V2 = 3
};

typedef struct {
  const uint8_t *ptr; /* into the parsed buffer; NULL when absent */
  uint32_t len;
} pq_bytes;

typedef struct {
  int kind;            /* PQ_LT_*; PQ_LT_NONE when the element has no logicalType */
  int32_t scale;       /* DECIMAL */
  int32_t precision;   /* DECIMAL */
  bool utc;            /* TIME / TIMESTAMP isAdjustedToUTC */
  int unit;            /* TIME / TIMESTAMP: PQ_UNIT_* */
  int bit_width;       /* INTEGER: 8, 16, 32 or 64 */
  bool is_signed;      /* INTEGER */
} pq_logical_type;

typedef struct {
  char *name;               /* NUL-terminated copy ("" if absent) */
  int type;                 /* PQ_BOOLEAN..; -1 for a group */
  int32_t type_length;      /* FIXED_LEN_BYTE_ARRAY width; 0 when absent */
  int repetition;           /* PQ_REQUIRED/OPTIONAL/REPEATED; -1 when absent (the root) */
  int32_t num_children;     /* 0 for a leaf */
  int converted_type;       /* PQ_CT_*; PQ_CT_NONE when absent */
  int32_t scale;            /* legacy DECIMAL scale; 0 when absent */
  int32_t precision;        /* legacy DECIMAL precision; 0 when absent */
  bool has_field_id;
  int32_t field_id;
  pq_logical_type logical;
} pq_schema_element;

typedef struct {
  pq_bytes max;        /* deprecated field 1 (signed-order min/max of old writers) */
  pq_bytes min;        /* deprecated field 2 */
  bool has_null_count;
  int64_t null_count;
  bool has_distinct_count;
  int64_t distinct_count;
  pq_bytes max_value;  /* field 5 */
  pq_bytes min_value;  /* field 6 */
  bool has_is_max_value_exact, is_max_value_exact;
  bool has_is_min_value_exact, is_min_value_exact;
} pq_statistics;

typedef struct {
  int type;                    /* physical type */
  int *encodings;              /* PQ_ENC_* as listed in the footer (may be incomplete) */
  int32_t num_encodings;
  char **path_in_schema;       /* NUL-terminated copies */
  int32_t path_len;
  int codec;                   /* CODEC_* */
  int64_t num_values;
  int64_t total_uncompressed_size;
  int64_t total_compressed_size;
  int64_t data_page_offset;
  bool has_index_page_offset;
  int64_t index_page_offset;
  bool has_dictionary_page_offset;
  int64_t dictionary_page_offset;
  bool has_statistics;
  pq_statistics statistics;
} pq_column_meta;

typedef struct {
  pq_bytes file_path;          /* set only for chunks stored in another file */
  int64_t file_offset;
  bool has_meta_data;
  pq_column_meta meta_data;
} pq_column_chunk;

typedef struct {
  pq_column_chunk *columns;
  int32_t num_columns;
  int64_t total_byte_size;
  int64_t num_rows;
  bool has_file_offset;
  int64_t file_offset;
  bool has_total_compressed_size;
  int64_t total_compressed_size;
  bool has_ordinal;
  int16_t ordinal;
} pq_row_group;

typedef struct {
  pq_bytes key;
  pq_bytes value;              /* ptr NULL when the value is absent */
} pq_key_value;

typedef struct {
  int32_t version;
  pq_schema_element *schema;   /* depth-first, schema[0] is the root */
  int32_t num_schema;
  int64_t num_rows;
  pq_row_group *row_groups;
  int32_t num_row_groups;
  pq_key_value *kv;
  int32_t num_kv;
  pq_bytes created_by;
  /* column_orders: one per leaf column; true when TypeDefinedOrder is given.
   * NULL when the file has no column_orders (then min/max are the deprecated
   * signed-order fields only). */
  bool *column_orders;
  int32_t num_column_orders;
} pq_file_metadata;

typedef struct {
  int32_t num_values;
  int encoding;
  int definition_level_encoding;
  int repetition_level_encoding;
  bool has_statistics;
  pq_statistics statistics;
} pq_data_page_header;

typedef struct {
  int32_t num_values;
  int encoding;
  bool has_is_sorted, is_sorted;
} pq_dictionary_page_header;

typedef struct {
  int32_t num_values;
  int32_t num_nulls;
  int32_t num_rows;
  int encoding;
  int32_t definition_levels_byte_length;
  int32_t repetition_levels_byte_length;
  bool is_compressed;          /* defaults to true when absent */
  bool has_statistics;
  pq_statistics statistics;
} pq_data_page_header_v2;

typedef struct {
  int type;                    /* PQ_PAGE_* */
  int32_t uncompressed_page_size;
  int32_t compressed_page_size;
  bool has_crc;
  int32_t crc;
  bool has_data_page_header;
  pq_data_page_header data_page_header;
  bool has_dictionary_page_header;
  pq_dictionary_page_header dictionary_page_header;
  bool has_data_page_header_v2;
  pq_data_page_header_v2 data_page_header_v2;
} pq_page_header;

/* Decode a FileMetaData from buf[0..len) (the footer without its length and
 * magic). On success *out belongs to the caller; free it with
 * pq_metadata_free. Checks: required fields present, counts non-negative and
 * bounded by the buffer, schema tree consistent (num_children sums up, leaves
 * have a physical type, groups do not), enum values in range or kept as-is
 * when unknown (unknown encodings/codecs are refused later, where used). */
int pq_metadata_parse(const uint8_t *buf, size_t len, pq_file_metadata **out);
void pq_metadata_free(pq_file_metadata *md);

/* Decode one PageHeader from buf[0..len). *consumed receives the header's
 * size in bytes. No allocation: statistics point into buf. Sizes must be
 * non-negative; the matching sub-header for `type` must be present. */
int pq_page_header_parse(const uint8_t *buf, size_t len, pq_page_header *out, size_t *consumed);

/* Names for enum values ("SNAPPY", "RLE_DICTIONARY", "INT64", ...), for
 * messages and `deltac parquet meta`. Unknown values give "UNKNOWN(n)" in a
 * static thread-local buffer. */
const char *pq_codec_name(int codec);
const char *pq_encoding_name(int enc);
const char *pq_type_name(int type);
const char *pq_converted_type_name(int ct);
const char *pq_page_type_name(int type);

#endif
