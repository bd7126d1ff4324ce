/* deltac serve: the web page (src/serve/ui/index.html), compiled into the
 * binary by cmake/embed.cmake so that the server needs no files beside it
 * and the page works offline. The page is public like any static asset:
 * it holds no data, and asks for a token itself when the API answers 401. */
#include <stddef.h>

#include "serve/serve.h"

extern const unsigned char serve_ui_index_html[];
extern const size_t serve_ui_index_html_len;

int serve_ui_page(serve_request *r, struct MHD_Connection *c) {
  /* the page only talks to this origin: a strict policy turns any
   * accidental external reference into a visible failure */
  static const char *const headers[] = {
      "Content-Security-Policy",
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
      "img-src 'self' data:",
      NULL};
  return serve_reply_bytes(r, c, 200, "text/html; charset=utf-8", serve_ui_index_html, serve_ui_index_html_len,
                           headers);
}
