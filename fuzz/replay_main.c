/* Standalone driver for the fuzz targets: feeds every file named on the
 * command line (directories are walked one level deep) to
 * LLVMFuzzerTestOneInput, so CI can replay the corpus without libFuzzer.
 * A bug shows up as a crash or sanitizer report; otherwise it prints
 * "N passed, 0 failed". */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      uint8_t *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "replay: out of memory reading %s\n", path);
    return -1;
  }
  /* Copy into an exact-size allocation so ASan catches reads past the end. */
  uint8_t *exact = malloc(n ? n : 1);
  if (!exact) {
    free(buf);
    return -1;
  }
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  int passed = 0, failed = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: cannot stat %s\n", argv[i]);
      failed++;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (run_file(argv[i]) == 0) passed++;
      else failed++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) {
      fprintf(stderr, "replay: cannot open directory %s\n", argv[i]);
      failed++;
      continue;
    }
    /* Sorted, so a crash is reproducible in the same order. */
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      if (count == cap) {
        cap = cap ? cap * 2 : 64;
        char **nn = realloc(names, cap * sizeof *names);
        if (!nn) break;
        names = nn;
      }
      size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
      names[count] = malloc(len);
      if (!names[count]) break;
      snprintf(names[count], len, "%s/%s", argv[i], e->d_name);
      count++;
    }
    closedir(d);
    if (count) qsort(names, count, sizeof *names, cmp_str);
    for (size_t k = 0; k < count; k++) {
      struct stat fst;
      if (stat(names[k], &fst) == 0 && S_ISREG(fst.st_mode)) {
        if (run_file(names[k]) == 0) passed++;
        else failed++;
      }
      free(names[k]);
    }
    free(names);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
