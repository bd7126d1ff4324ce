/* Shared between the JSON reader and writer. */
#ifndef DELTAC_JSON_JSON_INTERNAL_H
#define DELTAC_JSON_JSON_INTERNAL_H

#include <locale.h>

/* The "C" locale, created once per process: number text must not depend on
 * the embedding program's LC_NUMERIC (a ',' decimal point would break
 * strtod and printf). (locale_t)0 when it cannot be created. */
locale_t json_c_locale(void);

#endif
