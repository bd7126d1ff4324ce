/* deltac serve: making expiring signed links to a table's data files. */
#ifndef DELTAC_SERVE_SIGNED_URL_H
#define DELTAC_SERVE_SIGNED_URL_H

#include <stdint.h>

#include "serve/serve.h"

/* Append base + "/files/..." for `path` (as the log writes it) of table,
 * valid until expires_ms. */
int signed_url_make(delta_buf *out, const serve_config *cfg, const char *base, const char *table, const char *path,
                    int64_t expires_ms);

#endif
