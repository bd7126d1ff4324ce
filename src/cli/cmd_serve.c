/* deltac serve: the command-line entry of the HTTP server (src/serve/). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/table_open.h"
#include "serve/serve.h"

int cmd_serve(int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs("usage: deltac serve [--host 127.0.0.1] [--port 8080] [--table NAME=URI ...] [--config FILE]\n"
            "                    [--access-log FILE] [--option KEY=VALUE ...]\n"
            "Serves the tables read-only over HTTP: JSON API, change feeds, SSE, Delta Sharing (docs/server.md).\n",
            stdout);
      return 0;
    }
  serve_config cfg;
  int rc;
  if ((rc = serve_config_load(&cfg, argc, argv)) != 0) goto done;
  const char *const *keys, *const *values;
  size_t n = cli_storage_options(&keys, &values);
  if ((rc = serve_config_default_options(&cfg, keys, values, n)) != 0) goto done;
  rc = serve_run(&cfg);
done:
  serve_config_free(&cfg);
  return rc;
}
