/* Log replay, newest first: the first action seen for a file key, app id or
 * domain is the one that counts, so nothing is built only to be undone.
 * Checkpoint actions are already reconciled among themselves and are only
 * checked against what the newer commits said. */
#include "log/replay.h"

#include <stdio.h>
#include <string.h>

#include "json/json.h"
#include "log/action_json.h"
#include "log/checkpoint_read.h"
#include "log/file_open.h"
#include "storage/path.h"
#include "storage/storage_internal.h"
#include "util/alloc_internal.h"
#include "util/error_internal.h"

/* ---- a set of byte strings (open addressing) ---- */

typedef struct {
  uint64_t hash;
  const char *key; /* in the arena; NULL = empty slot */
  size_t len;
} slot;

typedef struct {
  slot *slots;
  size_t cap, count;
} key_set;

static uint64_t hash_bytes(const void *p, size_t n) {
  /* 8 bytes a step, multiply-xorshift mixed: plenty for paths, and this runs
   * for every checkpoint row when commits touched files. */
  const uint8_t *b = p;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
    b += 8;
    n -= 8;
  }
  uint64_t w = 0;
  memcpy(&w, b, n);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 32;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

static int set_grow(key_set *s) {
  size_t cap = s->cap ? s->cap * 2 : 1024;
  slot *n = mem_calloc(cap, sizeof *n);
  if (!n) return DELTA_NOMEM();
  for (size_t i = 0; i < s->cap; i++) {
    if (!s->slots[i].key) continue;
    size_t j = s->slots[i].hash & (cap - 1);
    while (n[j].key) j = (j + 1) & (cap - 1);
    n[j] = s->slots[i];
  }
  mem_free(s->slots);
  s->slots = n;
  s->cap = cap;
  return 0;
}

/* 1 if newly inserted, 0 if already there, negative on error. The key is
 * copied into the arena only when inserted. */
static int set_insert(key_set *s, delta_arena *a, const char *key, size_t len) {
  if ((s->count + 1) * 2 > s->cap) {
    int rc = set_grow(s);
    if (rc) return rc;
  }
  uint64_t h = hash_bytes(key, len);
  size_t j = h & (s->cap - 1);
  while (s->slots[j].key) {
    if (s->slots[j].hash == h && s->slots[j].len == len && memcmp(s->slots[j].key, key, len) == 0) return 0;
    j = (j + 1) & (s->cap - 1);
  }
  char *k = log_arena_strndup(a, key, len);
  if (!k) return DELTA_NOMEM();
  s->slots[j] = (slot){h, k, len};
  s->count++;
  return 1;
}

static bool set_contains(const key_set *s, const char *key, size_t len, uint64_t h) {
  if (!s->cap) return false;
  size_t j = h & (s->cap - 1);
  while (s->slots[j].key) {
    if (s->slots[j].hash == h && s->slots[j].len == len && memcmp(s->slots[j].key, key, len) == 0) return true;
    j = (j + 1) & (s->cap - 1);
  }
  return false;
}

/* ---- a Bloom filter over a set's keys ----
 * Checkpoint rows are looked up in the set of keys the commits decided; a
 * million lookups that almost all miss, each a cache miss in a table of
 * slots. Two bits per key in a bitmap of ~16 bits per key (tens of KB, in
 * cache) turn away ~99% of them. */

typedef struct {
  uint64_t *bits;
  uint64_t mask; /* bit count - 1 */
} key_filter;

static inline uint64_t filter_bit2(uint64_t h) { return (h >> 32) ^ (h >> 17); }

static int filter_build(key_filter *f, const key_set *s) {
  uint64_t n = 4096;
  while (n < (uint64_t)s->count * 16) n *= 2;
  mem_free(f->bits);
  if (!(f->bits = mem_calloc((size_t)(n / 64), sizeof *f->bits))) return DELTA_NOMEM();
  f->mask = n - 1;
  for (size_t i = 0; i < s->cap; i++) {
    if (!s->slots[i].key) continue;
    uint64_t h = s->slots[i].hash, a = h & f->mask, b = filter_bit2(h) & f->mask;
    f->bits[a / 64] |= (uint64_t)1 << (a % 64);
    f->bits[b / 64] |= (uint64_t)1 << (b % 64);
  }
  return 0;
}

static inline bool filter_may_contain(const key_filter *f, uint64_t h) {
  uint64_t a = h & f->mask, b = filter_bit2(h) & f->mask;
  return ((f->bits[a / 64] >> (a % 64)) & (f->bits[b / 64] >> (b % 64)) & 1) != 0;
}

/* ---- replay state ---- */

typedef struct {
  delta_snapshot *s;
  key_set files;        /* file keys decided by commits */
  key_filter files_filter; /* over `files`, built before checkpoint rows are looked up */
  key_set names;        /* "t<appId>" and "d<domain>" */
  bool have_protocol, have_metadata;
  bool in_checkpoint;   /* actions come from the checkpoint */
  bool first_commit;    /* the newest commit: its commitInfo is the snapshot's */
  delta_buf keybuf;
  delta_bigbuf adds;    /* live files (structs): the snapshot takes this buffer */
  delta_buf removes, txns, domains; /* arrays of structs */
  delta_buf sidecars;   /* sidecar_ref: the sidecars a V2 checkpoint names */
} replay;

/* A sidecar a V2 checkpoint names: its path and sizeInBytes. */
typedef struct {
  const char *path;
  int64_t size;
} sidecar_ref;

/* The logical file key: resolved path + NUL + deletion vector id. */
static int file_key(replay *r, const char *path, const delta_dv *dv) {
  r->keybuf.len = 0;
  size_t len = strlen(path);
  int rc;
  if (storage_path_is_plain_key(path, len)) {
    rc = buf_append(&r->keybuf, path, len); /* what resolving would give */
  } else {
    delta_path_kind kind;
    rc = storage_path_resolve(&kind, &r->keybuf, path, len, delta_storage_location(r->s->table->storage));
  }
  if (rc == DELTA_ECORRUPT) {
    /* A path that cannot name a file here (e.g. one climbing above the root)
     * still identifies its file in the log; the error comes when it is read. */
    r->keybuf.len = 0;
    rc = buf_puts(&r->keybuf, path);
  }
  if (rc) return rc;
  if ((rc = buf_putc(&r->keybuf, '\0')) != 0) return rc;
  return dv->present ? buf_puts(&r->keybuf, dv->unique_id) : 0;
}

/* Whether the commits decided the file key in keybuf (checkpoint rows only:
 * the filter is built when the commits are done). */
static bool seen_by_commits(const replay *r) {
  const char *key = (const char *)r->keybuf.data;
  size_t len = r->keybuf.len;
  uint64_t h = hash_bytes(key, len);
  return filter_may_contain(&r->files_filter, h) && set_contains(&r->files, key, len, h);
}

static int on_action(const delta_action *a, void *payload) {
  replay *r = payload;
  int rc = 0;
  switch (a->kind) {
  case DELTA_ACTION_ADD:
  case DELTA_ACTION_REMOVE: {
    bool is_add = a->kind == DELTA_ACTION_ADD;
    const char *path = is_add ? a->u.add.path : a->u.remove.path;
    const delta_dv *dv = is_add ? &a->u.add.dv : &a->u.remove.dv;
    int fresh;
    if (r->in_checkpoint) {
      /* Only a lookup, and none at all when no commit touched a file. */
      if (r->files.count == 0) fresh = 1;
      else if ((rc = file_key(r, path, dv)) != 0) return rc;
      else fresh = !seen_by_commits(r);
    } else {
      if ((rc = file_key(r, path, dv)) != 0) return rc;
      fresh = set_insert(&r->files, &r->s->arena, (const char *)r->keybuf.data, r->keybuf.len);
      if (fresh < 0) return fresh;
    }
    if (!fresh) return 0;
    return is_add ? log_bigbuf_append(&r->adds, &a->u.add, sizeof a->u.add)
                  : buf_append(&r->removes, &a->u.remove, sizeof a->u.remove);
  }
  case DELTA_ACTION_PROTOCOL:
    if (!r->have_protocol) {
      r->s->protocol = a->u.protocol;
      r->have_protocol = true;
    }
    return 0;
  case DELTA_ACTION_METADATA:
    if (!r->have_metadata) {
      r->s->metadata = a->u.metadata;
      r->have_metadata = true;
    }
    return 0;
  case DELTA_ACTION_TXN: {
    r->keybuf.len = 0;
    if ((rc = buf_putc(&r->keybuf, 't')) || (rc = buf_puts(&r->keybuf, a->u.txn.app_id))) return rc;
    int fresh = set_insert(&r->names, &r->s->arena, (const char *)r->keybuf.data, r->keybuf.len);
    if (fresh <= 0) return fresh;
    return buf_append(&r->txns, &a->u.txn, sizeof a->u.txn);
  }
  case DELTA_ACTION_DOMAIN_METADATA: {
    r->keybuf.len = 0;
    if ((rc = buf_putc(&r->keybuf, 'd')) || (rc = buf_puts(&r->keybuf, a->u.domain.domain))) return rc;
    int fresh = set_insert(&r->names, &r->s->arena, (const char *)r->keybuf.data, r->keybuf.len);
    if (fresh <= 0 || a->u.domain.removed) return fresh < 0 ? fresh : 0;
    return buf_append(&r->domains, &a->u.domain, sizeof a->u.domain);
  }
  case DELTA_ACTION_COMMIT_INFO:
    if (r->first_commit && !r->s->commit_info) r->s->commit_info = a->u.commit_info;
    return 0;
  case DELTA_ACTION_SIDECAR:
    if (!r->in_checkpoint) return err_set(DELTA_ECORRUPT, "a sidecar action outside a checkpoint");
    return buf_append(&r->sidecars, &(sidecar_ref){a->u.sidecar.path, a->u.sidecar.size_in_bytes},
                      sizeof(sidecar_ref));
  default:
    return 0; /* cdc and checkpointMetadata do not take part in replay */
  }
}

static int read_commit(replay *r, const log_entry *e, delta_json_doc *doc, delta_buf *text) {
  char key[64];
  snprintf(key, sizeof key, "_delta_log/%s", e->name);
  text->len = 0;
  int rc = storage_read_all(r->s->table->storage, key, text);
  if (rc) return rc;
  return log_actions_parse_json(e->name, (const char *)text->data, text->len, &r->s->arena, doc, on_action, r);
}

static int read_checkpoint_file(replay *r, const char *key, const char *display, bool is_json, int64_t size,
                                delta_json_doc *doc, delta_buf *text) {
  int rc;
  if (is_json) {
    text->len = 0;
    if ((rc = storage_read_all(r->s->table->storage, key, text)) != 0) return rc;
    return log_actions_parse_json(display, (const char *)text->data, text->len, &r->s->arena, doc,
                                    on_action, r);
  }
  delta_parquet_file *f = NULL;
  if ((rc = log_parquet_open(r->s->table->storage, key, size, &f)) != 0) return err_prefix("checkpoint");
  rc = log_checkpoint_read_file(f, key, &r->s->arena,
                                r->s->stats_records_only ? DELTA_CKPT_STATS_RECORDS : DELTA_CKPT_STATS_FULL,
                                on_action, r);
  delta_parquet_free(f);
  return rc;
}

static int read_checkpoint(replay *r, const log_segment *seg, delta_json_doc *doc, delta_buf *text) {
  r->in_checkpoint = true;
  if (r->files.count > 0) {
    int rc = filter_build(&r->files_filter, &r->files);
    if (rc) return rc;
  }
  for (int i = 0; i < seg->n_cp; i++) {
    const log_entry *e = seg->cp_files[i];
    char key[128];
    snprintf(key, sizeof key, "_delta_log/%s", e->name);
    int rc = read_checkpoint_file(r, key, e->name, e->info.kind == LOG_CHECKPOINT_V2_JSON, (int64_t)e->size, doc,
                                  text);
    if (rc) return rc;
  }
  /* V2 checkpoints keep their file actions in sidecars. */
  const sidecar_ref *refs = (const sidecar_ref *)(void *)r->sidecars.data;
  size_t n = r->sidecars.len / sizeof(sidecar_ref);
  delta_buf key = DELTA_BUF_INIT, name = DELTA_BUF_INIT;
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    const char *sc = refs[i].path;
    key.len = name.len = 0;
    /* Sidecar paths are URI-encoded and relative to _delta_log/_sidecars. */
    if (strchr(sc, '/') && strstr(sc, "://")) {
      rc = err_set(DELTA_EUNSUPPORTED, "sidecar %s: absolute sidecar paths are not supported", sc);
      goto done;
    }
    const char *base = strrchr(sc, '/') ? strrchr(sc, '/') + 1 : sc;
    if ((rc = buf_puts(&key, "_delta_log/_sidecars/")) != 0) goto done;
    if ((rc = storage_path_decode(&name, base, strlen(base))) != 0) goto done;
    if ((rc = buf_append(&key, name.data, name.len)) != 0) goto done;
    if ((rc = buf_putc(&key, '\0')) != 0) goto done;
    /* sizeInBytes saves asking the store (a wrong one costs a HEAD) */
    if ((rc = read_checkpoint_file(r, (const char *)key.data, base, false,
                                   refs[i].size > 0 ? refs[i].size : -1, doc, text)) != 0)
      goto done;
  }
done:
  buf_dispose(&key);
  buf_dispose(&name);
  r->in_checkpoint = false;
  return rc;
}

static void *finish_array(delta_snapshot *s, delta_buf *b, size_t elem, int64_t *n) {
  *n = (int64_t)(b->len / elem);
  void *p = log_arena_alloc(&s->arena, b->len ? b->len : 1);
  if (p && b->len) memcpy(p, b->data, b->len);
  return p;
}

/* The base snapshot's reconciled state stands where a checkpoint would. */
static int read_base(replay *r, const delta_snapshot *base) {
  r->in_checkpoint = true;
  delta_action a;
  int rc;
  if (r->files.count > 0 && (rc = filter_build(&r->files_filter, &r->files)) != 0) return rc;
  a.kind = DELTA_ACTION_PROTOCOL;
  a.u.protocol = base->protocol;
  if ((rc = on_action(&a, r)) != 0) goto done;
  a.kind = DELTA_ACTION_METADATA;
  a.u.metadata = base->metadata;
  if ((rc = on_action(&a, r)) != 0) goto done;
  for (int64_t i = 0; i < base->n_files; i++) {
    a.kind = DELTA_ACTION_ADD;
    a.u.add = base->files[i];
    if ((rc = on_action(&a, r)) != 0) goto done;
  }
  for (int64_t i = 0; i < base->n_tombstones; i++) {
    a.kind = DELTA_ACTION_REMOVE;
    a.u.remove = base->tombstones[i];
    if ((rc = on_action(&a, r)) != 0) goto done;
  }
  for (int i = 0; i < base->n_txns; i++) {
    a.kind = DELTA_ACTION_TXN;
    a.u.txn = base->txns[i];
    if ((rc = on_action(&a, r)) != 0) goto done;
  }
  for (int i = 0; i < base->n_domains; i++) {
    a.kind = DELTA_ACTION_DOMAIN_METADATA;
    a.u.domain = base->domains[i];
    if ((rc = on_action(&a, r)) != 0) goto done;
  }
done:
  r->in_checkpoint = false;
  return rc;
}

static int replay_run(delta_snapshot *s, const log_segment *seg, const delta_snapshot *base, int *failed_checkpoint) {
  *failed_checkpoint = 0;
  replay r;
  memset(&r, 0, sizeof r);
  r.s = s;
  delta_json_doc *doc = NULL;
  delta_buf text = DELTA_BUF_INIT;
  int rc;
  if ((rc = json_doc_new(&doc)) != 0) goto done;
  for (int i = seg->n_commits - 1; i >= 0; i--) {
    r.first_commit = i == seg->n_commits - 1;
    if ((rc = read_commit(&r, seg->commits[i], doc, &text)) != 0) goto done;
  }
  if (base) {
    if (seg->n_commits == 0) s->commit_info = base->commit_info;
    if ((rc = read_base(&r, base)) != 0) goto done;
  } else if (seg->n_cp > 0) {
    if ((rc = read_checkpoint(&r, seg, doc, &text)) != 0) {
      *failed_checkpoint = 1;
      err_prefix("checkpoint %lld", (long long)seg->cp_version);
      goto done;
    }
  }
  if (!r.have_protocol) {
    rc = err_set(DELTA_ECORRUPT, "the log has no protocol action up to version %lld", (long long)seg->version);
    goto done;
  }
  if (!r.have_metadata) {
    rc = err_set(DELTA_ECORRUPT, "the log has no metaData action up to version %lld", (long long)seg->version);
    goto done;
  }
  {
    int64_t n;
    /* The live files can be a million structs: the snapshot takes the
     * buffer rather than a copy in the arena. */
    s->n_files = (int64_t)(r.adds.len / sizeof(delta_add));
    if (r.adds.len) {
      s->files_mem = r.adds;
      r.adds = (delta_bigbuf)DELTA_BIGBUF_INIT;
      s->files = (delta_add *)(void *)s->files_mem.data;
    } else {
      s->files = log_arena_alloc(&s->arena, 1);
    }
    s->tombstones = finish_array(s, &r.removes, sizeof(delta_remove), &s->n_tombstones);
    s->txns = finish_array(s, &r.txns, sizeof(delta_txn), &n);
    s->n_txns = (int)n;
    s->domains = finish_array(s, &r.domains, sizeof(delta_domain_metadata), &n);
    s->n_domains = (int)n;
    if (!s->files || !s->tombstones || !s->txns || !s->domains) rc = DELTA_NOMEM();
  }
done:
  mem_free(r.files.slots);
  mem_free(r.files_filter.bits);
  mem_free(r.names.slots);
  buf_dispose(&r.keybuf);
  log_bigbuf_dispose(&r.adds);
  buf_dispose(&r.removes);
  buf_dispose(&r.txns);
  buf_dispose(&r.domains);
  buf_dispose(&r.sidecars);
  buf_dispose(&text);
  json_doc_free(doc);
  return rc;
}

int log_replay(delta_snapshot *s, const log_segment *seg, int *failed_checkpoint) {
  return replay_run(s, seg, NULL, failed_checkpoint);
}

int log_replay_incremental(delta_snapshot *s, const delta_snapshot *base, const log_segment *seg) {
  int failed;
  return replay_run(s, seg, base, &failed);
}
