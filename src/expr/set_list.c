/* SET lists: "a = 1, b = c || 'x'" split into column names and value
 * expressions (commas inside parentheses, CASE or strings do not split). */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "expr/value_eval.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"


void vexpr_set_free(char **names, vexpr **exprs, int n) {
  for (int i = 0; i < n; i++) {
    if (names) delta_free(names[i]);
    if (exprs) vexpr_free(exprs[i]);
  }
  delta_free(names);
  delta_free(exprs);
}

int vexpr_parse_set(const char *text, char ***names_out, vexpr ***exprs_out, int *n_out) {
  *names_out = NULL;
  *exprs_out = NULL;
  *n_out = 0;
  char **names = NULL;
  vexpr **exprs = NULL;
  int n = 0, rc = 0;
  size_t i = 0, len = strlen(text);
  while (!rc) {
    /* the name */
    while (isspace((unsigned char)text[i])) i++;
    size_t ns = i;
    char *name = NULL;
    if (text[i] == '`') {
      i++;
      ns = i;
      while (text[i] && text[i] != '`') i++;
      name = text[i] ? delta_malloc(i - ns + 1) : NULL;
      if (name) {
        memcpy(name, text + ns, i - ns);
        name[i - ns] = 0;
        i++;
      }
    } else {
      /* a.b stays whole: MERGE takes "t.col" for its target's column */
      while (isalnum((unsigned char)text[i]) || text[i] == '_' ||
             (text[i] == '.' && i > ns && (isalpha((unsigned char)text[i + 1]) || text[i + 1] == '_')))
        i++;
      if (i > ns && (name = delta_malloc(i - ns + 1))) {
        memcpy(name, text + ns, i - ns);
        name[i - ns] = 0;
      }
    }
    while (isspace((unsigned char)text[i])) i++;
    if (!name || text[i] != '=') {
      delta_free(name);
      rc = delta_error_set(DELTA_EINVAL, "expected 'column = expression' at position %zu", i + 1);
      break;
    }
    i++;
    /* the expression: up to a comma at depth 0 outside strings and CASE */
    size_t es = i;
    int depth = 0, cases = 0;
    for (; i < len; i++) {
      char c = text[i];
      if (c == '\'' || c == '`') {
        for (i++; i < len && !(text[i] == c && text[i + 1] != c); i++)
          if (text[i] == c) i++;
        continue;
      }
      bool word_start = i == 0 || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_');
      if (word_start && strncasecmp(text + i, "case", 4) == 0 && !isalnum((unsigned char)text[i + 4]) &&
          text[i + 4] != '_')
        cases++;
      if (word_start && strncasecmp(text + i, "end", 3) == 0 && !isalnum((unsigned char)text[i + 3]) &&
          text[i + 3] != '_' && cases > 0)
        cases--;
      if (c == '(') depth++;
      if (c == ')') depth--;
      if (c == ',' && depth == 0 && cases == 0) break;
    }
    char *et = delta_malloc(i - es + 1);
    vexpr *e = NULL;
    if (!et) rc = DELTA_NOMEM();
    else {
      memcpy(et, text + es, i - es);
      et[i - es] = 0;
      rc = vexpr_parse(et, &e);
      if (rc) delta_error_prefix("%s", name);
      delta_free(et);
    }
    char **nn = rc ? NULL : delta_realloc(names, (size_t)(n + 1) * sizeof *nn);
    if (nn) names = nn;
    vexpr **ne = rc || !nn ? NULL : delta_realloc(exprs, (size_t)(n + 1) * sizeof *ne);
    if (ne) exprs = ne;
    if (!rc && (!nn || !ne)) rc = DELTA_NOMEM();
    if (rc) {
      delta_free(name);
      vexpr_free(e);
      break;
    }
    names[n] = name;
    exprs[n] = e;
    n++;
    if (i >= len) break;
    i++; /* the comma */
  }
  if (rc) {
    vexpr_set_free(names, exprs, n);
    return rc;
  }
  *names_out = names;
  *exprs_out = exprs;
  *n_out = n;
  return 0;
}
