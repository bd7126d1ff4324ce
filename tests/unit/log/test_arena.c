/* The snapshot arena: aligned allocations next to packed strings, chunks
 * from small to the full (mapped, huge-page) size, oversized requests; and
 * the big growable buffer the live files live in. */
#include <stdint.h>
#include <string.h>

#include "log/arena.h"
#include "test.h"

static void test_arena(void) {
  delta_arena a = DELTA_ARENA_INIT;
  const char *strs[20000];
  uint64_t *nums[20000];
  char text[64];
  for (int i = 0; i < 20000; i++) {
    int n = snprintf(text, sizeof text, "s%d%.*s", i, i % 13, "abcdefghijklm");
    strs[i] = log_arena_strndup(&a, text, (size_t)n);
    nums[i] = log_arena_alloc(&a, (size_t)(i % 3 + 1) * 8);
    CHECK(strs[i] != NULL && nums[i] != NULL);
    CHECK(((uintptr_t)nums[i] & 7) == 0);
    *nums[i] = (uint64_t)i;
  }
  /* A request bigger than any chunk gets its own. */
  char *big = log_arena_alloc(&a, (size_t)20 << 20);
  CHECK(big != NULL && ((uintptr_t)big & 7) == 0);
  memset(big, 'x', (size_t)20 << 20);
  /* Enough to reach full-size chunks. */
  for (int i = 0; i < 300000; i++) CHECK(log_arena_strndup(&a, "0123456789012345678901234567890123456789", 40) != NULL);
  for (int i = 0; i < 20000; i++) {
    int n = snprintf(text, sizeof text, "s%d%.*s", i, i % 13, "abcdefghijklm");
    CHECK(strlen(strs[i]) == (size_t)n && memcmp(strs[i], text, (size_t)n) == 0);
    CHECK(*nums[i] == (uint64_t)i);
  }
  CHECK(a.total >= ((size_t)32 << 20));
  log_arena_dispose(&a);
  CHECK(a.head == NULL && a.total == 0);
}

static void test_bigbuf(void) {
  delta_bigbuf b = DELTA_BIGBUF_INIT;
  for (uint64_t i = 0; i < 1000000; i++) CHECK_EQ_INT(log_bigbuf_append(&b, &i, sizeof i), 0);
  CHECK(b.len == 1000000 * sizeof(uint64_t) && b.cap >= b.len);
  const uint64_t *v = (const uint64_t *)(const void *)b.data;
  int bad = 0;
  for (uint64_t i = 0; i < 1000000; i++) bad += v[i] != i;
  CHECK_EQ_INT(bad, 0);
  log_bigbuf_dispose(&b);
  CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
  log_bigbuf_dispose(&b); /* twice is fine */
}

int main(void) {
  test_arena();
  test_bigbuf();
  TEST_MAIN_END();
}
