/* Per-command help cut from the usage text; see help.h. An entry is a line
 * "  CMD ..." (two spaces, the command word) and the lines after it indented
 * deeper; a section heading or another entry ends it. */
#include "cli/help.h"

#include <string.h>

#include "cli/args.h"

/* Length of the line at p, without its newline. */
static size_t line_len(const char *p) {
  const char *nl = strchr(p, '\n');
  return nl ? (size_t)(nl - p) : strlen(p);
}

/* Does the entry line `p` ("  word rest") name `word`? */
static int names(const char *p, size_t n, const char *word) {
  size_t w = strlen(word);
  return n >= 2 + w && strncmp(p, "  ", 2) == 0 && p[2] != ' ' && strncmp(p + 2, word, w) == 0 &&
         (n == 2 + w || p[2 + w] == ' ');
}

int cli_help_command(FILE *out, const char *usage, const char *cmd, const char *sub) {
  int found = 0, in_entry = 0, mentions_format = 0;
  for (const char *p = usage; *p;) {
    size_t n = line_len(p);
    int entry = n > 2 && strncmp(p, "  ", 2) == 0 && p[2] != ' ';
    int continuation = n > 2 && strncmp(p, "   ", 3) == 0;
    if (entry) {
      in_entry = names(p, n, cmd);
      /* "parquet cat": the sub-command is the entry's second word */
      if (in_entry && sub) {
        size_t w = strlen(cmd), ws = strlen(sub);
        in_entry = n >= 3 + w + ws && strncmp(p + 3 + w, sub, ws) == 0 && (n == 3 + w + ws || p[3 + w + ws] == ' ');
      }
    } else if (!continuation) {
      in_entry = 0;
    }
    if (in_entry) {
      found = 1;
      if (entry) fprintf(out, "usage: deltac %.*s\n", (int)n - 2, p + 2);
      else fprintf(out, "%.*s\n", (int)n, p);
      if (memmem(p, n, "[--format ...]", 14)) mentions_format = 1;
    }
    p += n + (p[n] == '\n');
  }
  if (!found) return cli_usage_error(sub ? sub : cmd, "no such command");
  /* "[--format ...]": the formats are listed once, after the table
   * commands; repeat them. */
  const char *fmt = strstr(usage, "\n--format:");
  if (mentions_format && fmt) fprintf(out, "\n%.*s\n", (int)line_len(fmt + 1), fmt + 1);
  return 0;
}

int cli_wants_help(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  }
  return 0;
}
