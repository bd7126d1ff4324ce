/* LIKE matching without recursion: on a mismatch the last % absorbs one
 * more character, so the time is O(n * m) in the worst case, never
 * exponential. */
#include "expr/like.h"

static size_t utf8_len(unsigned char c) {
  return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

bool like_match(const char *s, size_t n, const char *pat, size_t pn) {
  size_t i = 0, j = 0, star_j = (size_t)-1, star_i = 0;
  while (i < n) {
    if (j < pn && pat[j] == '%') {
      star_j = ++j;
      star_i = i;
      continue;
    }
    if (j < pn && pat[j] == '_') {
      i += utf8_len((unsigned char)s[i]);
      if (i > n) i = n;
      j++;
      continue;
    }
    if (j < pn) {
      size_t pj = j;
      if (pat[pj] == '\\' && pj + 1 < pn) pj++;
      if (pat[pj] == s[i]) {
        i++;
        j = pj + 1;
        continue;
      }
    }
    if (star_j == (size_t)-1) return false;
    star_i += utf8_len((unsigned char)s[star_i]);
    if (star_i > n) return false;
    i = star_i;
    j = star_j;
  }
  while (j < pn && pat[j] == '%') j++;
  return j == pn;
}

size_t like_prefix(const char *pat, size_t pn, char *out) {
  size_t k = 0;
  for (size_t j = 0; j < pn; j++) {
    if (pat[j] == '%' || pat[j] == '_') break;
    if (pat[j] == '\\' && j + 1 < pn) j++;
    out[k++] = pat[j];
  }
  return k;
}
