/* SQL LIKE patterns: % any run of characters, _ one character (a UTF-8
 * code point), \ escapes the next pattern character. */
#ifndef DELTAC_EXPR_LIKE_H
#define DELTAC_EXPR_LIKE_H

#include <stdbool.h>
#include <stddef.h>

bool like_match(const char *s, size_t n, const char *pat, size_t pn);

/* The literal text every match starts with (up to the first wildcard),
 * unescaped into out (at least pn bytes); its length. */
size_t like_prefix(const char *pat, size_t pn, char *out);

#endif
