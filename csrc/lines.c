#include "lines.h"

#include <stdlib.h>
#include <string.h>

#include "msort.h"

enum { MIN_BYTES = 64, FAST_GROWTH = 4096, K_ESCAPE = 127 };

/* ---- varints ---- */

static inline unsigned char *put_varint(unsigned char *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static inline const unsigned char *get_varint(const unsigned char *p, uint64_t *out) {
    uint64_t v = *p & 0x7f;
    int shift = 7;
    while (*p++ & 0x80) {
        v |= (uint64_t)(*p & 0x7f) << shift;
        shift += 7;
    }
    *out = v;
    return p;
}

/* Signed steps as small unsigned numbers: 0, -1, 1, -2... -> 0, 1, 2, 3... */
static inline uint64_t zigzag(uint64_t v) {
    return (v << 1) ^ (0 - (v >> 63));
}
static inline uint64_t unzigzag(uint64_t v) {
    return (v >> 1) ^ (0 - (v & 1));
}

/* ---- streams ---- */

void line_store_free(line_store *s) {
    free(s->data);
    memset(s, 0, sizeof *s);
}

size_t line_store_bytes(const line_store *s) {
    return s->cap;
}

void line_scratch_free(line_scratch *scratch) {
    free(scratch->mem);
    scratch->mem = NULL;
    scratch->cap = 0;
}

/* Makes sure `need` more bytes fit. The buffer doubles while small, then grows by half: the
 * spare room goes back when the loader moves on, so growing fast costs memory only briefly. */
static status reserve(line_store *s, size_t need) {
    if (s->cap - s->used >= need) return ST_OK;
    if (need > SIZE_MAX / 2 - s->used) return ST_NOMEM;
    size_t cap = s->cap < FAST_GROWTH ? 2 * s->cap : s->cap + s->cap / 2;
    if (cap < MIN_BYTES) cap = MIN_BYTES;
    if (cap < s->used + need) cap = s->used + need;
    unsigned char *data = realloc(s->data, cap);
    if (!data) return ST_NOMEM;
    s->data = data;
    s->cap = cap;
    return ST_OK;
}

/* Gives back the room a stream will not use any more. */
static void trim(line_store *s) {
    if (s->cap == s->used) return;
    if (!s->used) {
        free(s->data);
        s->data = NULL;
        s->cap = 0;
        return;
    }
    unsigned char *data = realloc(s->data, s->used);
    if (!data) return; /* the larger block stays: still valid */
    s->data = data;
    s->cap = s->used;
}

/* Encodes one record after the stream's last one (room reserved by the caller). */
static void encode(line_store *s, uint32_t file, uint64_t line, uint64_t addr, const cg_cost *costs,
                   size_t n) {
    unsigned char *start = s->data + s->used, *p = start;
    int new_file = file != s->last_file;
    *p++ = (unsigned char)(new_file | (n < K_ESCAPE ? n : K_ESCAPE) << 1);
    if (n >= K_ESCAPE) p = put_varint(p, n);
    if (new_file) p = put_varint(p, file);
    p = put_varint(p, zigzag(addr - s->last_addr));
    p = put_varint(p, zigzag(line - s->last_line));
    for (size_t i = 0; i < n; i++) p = put_varint(p, zigzag((uint64_t)costs[i]));
    s->used += (size_t)(p - start);
    s->last_file = file;
    s->last_line = line;
    s->last_addr = addr;
    s->count++;
}

static size_t worst_case(size_t n) {
    return 1 + 10 * (4 + n);
}

void line_reader_init(line_reader *r, const line_store *s) {
    r->data = s->data;
    r->pos = 0;
    r->remaining = s->count;
    r->file = 0;
    r->line = 0;
    r->addr = 0;
}

int line_reader_next(line_reader *r, cg_cost *costs, size_t nraw) {
    if (!r->remaining) return 0;
    const unsigned char *p = r->data + r->pos;
    unsigned header = *p++;
    uint64_t n = header >> 1, v;
    if (n == K_ESCAPE) p = get_varint(p, &n);
    if (header & 1) {
        p = get_varint(p, &v);
        r->file = (uint32_t)v;
    }
    p = get_varint(p, &v);
    r->addr += unzigzag(v);
    p = get_varint(p, &v);
    r->line += unzigzag(v);
    size_t i = 0;
    for (; i < n; i++) {
        p = get_varint(p, &v);
        costs[i] = (cg_cost)unzigzag(v);
    }
    for (; i < nraw; i++) costs[i] = 0;
    r->pos = (size_t)(p - r->data);
    r->remaining--;
    return 1;
}

int line_store_scan(const line_store *s, int (*file_seen)(void *ctx, uint32_t file), void *ctx,
                    line_span *span) {
    const unsigned char *p = s->data;
    uint32_t file = 0, first_file = 0, last_file = 0;
    uint64_t line = 0, first_line = 0, v;
    int one = 1;
    span->count = s->count;
    for (uint32_t k = 0; k < s->count; k++) {
        unsigned header = *p++;
        uint64_t n = header >> 1;
        if (n == K_ESCAPE) p = get_varint(p, &n);
        if (header & 1) {
            p = get_varint(p, &v);
            file = (uint32_t)v;
        }
        while (*p++ & 0x80) {
        } /* the address step */
        p = get_varint(p, &v);
        line += unzigzag(v);
        /* the costs: as many bytes without the high bit */
        for (uint64_t left = n; left; p++) left -= !(*p & 0x80);
        if (k == 0 || file != last_file) {
            if (k == 0) first_file = file;
            last_file = file;
            if (file_seen(ctx, file)) return -1;
        }
        if (k == 0)
            first_line = line;
        else if (file != first_file || line != first_line)
            one = 0;
    }
    span->one_line = one && s->count > 0;
    span->file = first_file;
    span->line = first_line;
    return 0;
}

/* ---- compaction ---- */

typedef struct key {
    uint64_t addr, line;
    uint32_t file;
} key;

typedef struct sorter {
    const key *keys;
    const strtab *strings;
} sorter;

static int key_cmp(const sorter *st, uint32_t a, uint32_t b) {
    const key *x = &st->keys[a], *y = &st->keys[b];
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->file == y->file) return 0;
    if (!st->strings) return x->file < y->file ? -1 : 1;
    return strcmp(strtab_get(st->strings, x->file), strtab_get(st->strings, y->file));
}

/* Records in (address, line, file name) order; a stable sort keeps equal keys in input order. */
#define KEY_BEFORE(st, a, b) (key_cmp((st), *(a), *(b)) < 0)
DEFINE_MERGE_SORT(sort_order, uint32_t, const sorter *, KEY_BEFORE)

static inline uint32_t key_hash(const key *k, uint64_t seed) {
    uint64_t h =
        ((k->addr ^ seed) * 0x9e3779b97f4a7c15ULL) ^ (k->line * 0xc2b2ae3d27d4eb4fULL) ^ k->file;
    return (uint32_t)((h ^ (h >> 29)) * 0x165667b19e3779f9ULL >> 32);
}

static inline int key_same(const key *a, const key *b) {
    return a->addr == b->addr && a->line == b->line && a->file == b->file;
}

/* Rewrites a stream with each position once, in (address, line, file name) order. Equal
 * positions are summed through a hash table first, so only the distinct ones are sorted. */
static status compact(line_store *s, const strtab *strings, size_t nraw, line_scratch *scratch) {
    size_t n = s->count, width = nraw ? nraw : 1;
    size_t slots = 16;
    while (slots < 2 * n) slots *= 2;
    size_t per = sizeof(key) + 3 * sizeof(uint32_t) + width * sizeof(cg_cost);
    if (n > (SIZE_MAX - (slots + 1) * sizeof(uint32_t)) / per) return ST_NOMEM;
    size_t bytes = n * per + (slots + 1) * sizeof(uint32_t); /* bounds takes n + 1 entries */
    if (scratch->cap < bytes) {
        void *mem = realloc(scratch->mem, bytes);
        if (!mem) return ST_NOMEM;
        scratch->mem = mem;
        scratch->cap = bytes;
    }
    key *keys = scratch->mem;
    cg_cost *costs = (cg_cost *)(keys + n);
    uint32_t *order = (uint32_t *)(costs + n * width), *tmp = order + n, *bounds = tmp + n;
    uint32_t *table = bounds + n + 1; /* record index + 1 per slot, 0 = free */
    memset(table, 0, slots * sizeof *table);
    size_t distinct = 0;
    line_reader r;
    line_reader_init(&r, s);
    for (size_t i = 0; i < n; i++) {
        cg_cost *row = costs + distinct * width;
        line_reader_next(&r, row, nraw);
        key *k = &keys[distinct];
        k->addr = r.addr;
        k->line = r.line;
        k->file = r.file;
        size_t slot = key_hash(k, scratch->seed) & (slots - 1);
        while (table[slot] && !key_same(&keys[table[slot] - 1], k)) slot = (slot + 1) & (slots - 1);
        if (!table[slot]) {
            table[slot] = (uint32_t)distinct + 1;
            order[distinct] = (uint32_t)distinct;
            distinct++;
            continue;
        }
        cg_cost *sum = costs + (size_t)(table[slot] - 1) * width;
        for (size_t e = 0; e < nraw; e++)
            if (__builtin_add_overflow(sum[e], row[e], &sum[e])) return ST_OVERFLOW;
    }
    sorter st = {keys, strings};
    sort_order(&st, order, tmp, bounds, distinct);
    line_store out;
    memset(&out, 0, sizeof out);
    for (size_t i = 0; i < distinct; i++) {
        uint32_t d = order[i];
        const cg_cost *row = costs + (size_t)d * width;
        size_t k = nraw;
        while (k && row[k - 1] == 0) k--;
        if (reserve(&out, worst_case(k))) {
            line_store_free(&out);
            return ST_NOMEM;
        }
        encode(&out, keys[d].file, keys[d].line, keys[d].addr, row, k);
    }
    line_store_free(s);
    *s = out;
    s->distinct = s->count;
    s->sorted = 1;
    s->ties_by_id = strings == NULL;
    return ST_OK;
}

status line_append(line_store *s, uint32_t file, uint64_t line, uint64_t addr, const cg_cost *costs,
                   size_t n, const strtab *strings, size_t nraw, line_scratch *scratch) {
    while (n && costs[n - 1] == 0) n--;
    if (reserve(s, worst_case(n))) return ST_NOMEM;
    if (!s->count) {
        s->sorted = 1;
    } else if (s->sorted &&
               !(addr > s->last_addr || (addr == s->last_addr && line > s->last_line))) {
        s->sorted = 0;
    }
    if (s->count == UINT32_MAX) return ST_NOMEM;
    encode(s, file, line, addr, costs, n);
    /* out of order: duplicates may pile up (Xdebug repeats a function for every call) */
    if (!s->sorted && s->count >= 4 * (uint64_t)s->distinct + 256)
        return compact(s, strings, nraw, scratch);
    return ST_OK;
}

void line_give_back(line_store *s) {
    trim(s);
    s->trimmed = s->used;
}

status line_finish(line_store *s, const strtab *strings, size_t nraw, line_scratch *scratch) {
    if ((s->sorted && !s->ties_by_id) || !s->count) {
        s->distinct = s->count;
        trim(s);
        return ST_OK;
    }
    status rc = compact(s, strings, nraw, scratch);
    if (rc == ST_OK) trim(s);
    return rc;
}

/* ---- streams made elsewhere ---- */

status line_append_stream(line_store *s, line_store *from, const strtab *strings, size_t nraw,
                          line_scratch *scratch, cg_cost *row) {
    if (!from->count) {
        line_store_free(from);
        return ST_OK;
    }
    if (!s->count) {
        /* the same records from the same start: the same stream (a compaction ordered ties by
         * file id at most, which ties_by_id makes line_finish put right) */
        free(s->data);
        *s = *from;
        s->trimmed = 0;
        memset(from, 0, sizeof *from);
        return ST_OK;
    }
    /* the first record against this stream's last, the rest as they are (each is encoded
     * against the one before it) */
    line_reader r;
    line_reader_init(&r, from);
    line_reader_next(&r, row, nraw);
    int in_order = s->sorted && from->sorted &&
                   (r.addr > s->last_addr || (r.addr == s->last_addr && r.line > s->last_line));
    size_t k = nraw;
    while (k && row[k - 1] == 0) k--;
    size_t rest = from->used - r.pos;
    if (reserve(s, worst_case(k) + rest)) return ST_NOMEM;
    if ((uint64_t)s->count + from->count > UINT32_MAX) return ST_NOMEM;
    uint32_t count = s->count;
    encode(s, r.file, r.line, r.addr, row, k);
    memcpy(s->data + s->used, from->data + r.pos, rest);
    s->used += rest;
    s->count = count + from->count;
    if (in_order) {
        s->distinct += from->distinct;
        s->ties_by_id |= from->ties_by_id;
    }
    s->sorted = in_order;
    s->last_file = from->last_file;
    s->last_line = from->last_line;
    s->last_addr = from->last_addr;
    line_store_free(from);
    /* out of order: compacted as line_append compacts, when the duplicates may have piled up */
    if (!s->sorted && s->count >= 4 * (uint64_t)s->distinct + 256)
        return compact(s, strings, nraw, scratch);
    return ST_OK;
}
