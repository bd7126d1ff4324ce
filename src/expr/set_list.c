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
    if (names) mem_free(names[i]);
    if (exprs) vexpr_free(exprs[i]);
  }
  mem_free(names);
  mem_free(exprs);
}

static char *dup_range(const char *s, size_t n) {
  char *d = mem_malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

/* "name =" or "`name` =" at text + *at; *at moves past the '='. */
static int set_name(const char *text, size_t *at, char **out) {
  size_t i = *at;
  char *name = NULL;
  while (isspace((unsigned char)text[i])) i++;
  size_t ns = i;
  if (text[i] == '`') {
    ns = ++i;
    while (text[i] && text[i] != '`') i++;
    if (text[i]) name = dup_range(text + ns, i++ - ns);
  } else {
    /* a.b stays whole: MERGE takes "t.col" for its target's column */
    while (isalnum((unsigned char)text[i]) || text[i] == '_' ||
           (text[i] == '.' && i > ns && (isalpha((unsigned char)text[i + 1]) || text[i + 1] == '_')))
      i++;
    if (i > ns) name = dup_range(text + ns, i - ns);
  }
  while (isspace((unsigned char)text[i])) i++;
  if (!name || text[i] != '=') {
    mem_free(name);
    return err_set(DELTA_EINVAL, "expected 'column = expression' at position %zu", i + 1);
  }
  *out = name;
  *at = i + 1;
  return 0;
}

static bool word_at(const char *text, size_t i, const char *w, size_t n) {
  bool starts = i == 0 || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_');
  return starts && strncasecmp(text + i, w, n) == 0 && !isalnum((unsigned char)text[i + n]) && text[i + n] != '_';
}

/* Where the expression from i ends: a comma at depth 0 outside strings and
 * CASE ... END, or the end of the text. */
static size_t expr_end(const char *text, size_t i, size_t len) {
  int depth = 0, cases = 0;
  for (; i < len; i++) {
    char c = text[i];
    if (c == '\'' || c == '`') {
      for (i++; i < len && !(text[i] == c && text[i + 1] != c); i++)
        if (text[i] == c) i++;
      continue;
    }
    if (word_at(text, i, "case", 4)) cases++;
    if (word_at(text, i, "end", 3) && cases > 0) cases--;
    if (c == '(') depth++;
    if (c == ')') depth--;
    if (c == ',' && depth == 0 && cases == 0) break;
  }
  return i;
}

int vexpr_parse_set(const char *text, char ***names_out, vexpr ***exprs_out, int *n_out) {
  *names_out = NULL;
  *exprs_out = NULL;
  *n_out = 0;
  char **names = NULL, *name = NULL, *et = NULL;
  vexpr **exprs = NULL, *e = NULL;
  int n = 0, rc = 0;
  size_t i = 0, len = strlen(text);
  for (;;) {
    if ((rc = set_name(text, &i, &name)) != 0) goto done;
    size_t end = expr_end(text, i, len);
    if (!(et = dup_range(text + i, end - i))) {
      rc = DELTA_NOMEM();
      goto done;
    }
    if ((rc = vexpr_parse(et, &e)) != 0) {
      err_prefix("%s", name);
      goto done;
    }
    mem_free(et);
    et = NULL;
    char **nn = mem_realloc(names, (size_t)(n + 1) * sizeof *nn);
    if (!nn) {
      rc = DELTA_NOMEM();
      goto done;
    }
    names = nn;
    vexpr **ne = mem_realloc(exprs, (size_t)(n + 1) * sizeof *ne);
    if (!ne) {
      rc = DELTA_NOMEM();
      goto done;
    }
    exprs = ne;
    names[n] = name;
    exprs[n] = e;
    n++;
    name = NULL;
    e = NULL;
    if (end >= len) break;
    i = end + 1; /* past the comma */
  }
done:
  mem_free(name);
  mem_free(et);
  vexpr_free(e);
  if (rc) {
    vexpr_set_free(names, exprs, n);
    return rc;
  }
  *names_out = names;
  *exprs_out = exprs;
  *n_out = n;
  return 0;
}
