#include "lines.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "line_key.h"
#include "msort.h"

enum { MIN_BYTES = 64, FAST_GROWTH = 4096, K_ESCAPE = LINE_K_ESCAPE };

/* ---- streams ---- */

_Static_assert(sizeof(line_store) == 72, "a function's stream header takes 72 bytes");

/* ---- blocks given back to the thread that made them ---- */

struct line_frees {
    alignas(64) _Atomic(void *) head; /* each thread's list on a cache line of its own */
};

line_frees *line_frees_new(size_t threads) {
    line_frees *f = aligned_alloc(alignof(line_frees), threads * sizeof *f);
    if (f)
        for (size_t t = 0; t < threads; t++) atomic_init(&f[t].head, NULL);
    return f;
}

/* A block's first bytes link it to the next one on the list. */
static void frees_push(line_frees *f, void *block) {
    void *head = atomic_load_explicit(&f->head, memory_order_relaxed);
    do {
        memcpy(block, &head, sizeof head);
    } while (!atomic_compare_exchange_weak_explicit(&f->head, &head, block, memory_order_release,
                                                    memory_order_relaxed));
}

size_t line_frees_drain(line_frees *f, unsigned thread) {
    void *block = atomic_exchange_explicit(&f[thread].head, NULL, memory_order_acquire);
    size_t n = 0;
    for (; block; n++) {
        void *next;
        memcpy(&next, block, sizeof next);
        free(block);
        block = next;
    }
    return n;
}

void line_frees_free(line_frees *f, size_t threads) {
    if (!f) return;
    for (size_t t = 0; t < threads; t++) line_frees_drain(f, (unsigned)t);
    free(f);
}

/* Whether the stream's block was made by another thread of a split load than that of `by`. */
static inline int foreign(const line_store *s, const line_scratch *by) {
    return by && by->frees && s->owner != by->self;
}

static inline unsigned char owner_of(const line_scratch *by) {
    return by ? by->self : 0;
}

/* Gives back the stream's block (cap bytes), to the thread that made it when that is not the
 * thread of `by`. */
static void give_block(const line_store *s, const line_scratch *by) {
    /* a block of the regions goes to this thread's heap whoever made it (or is left to the
     * regions when no heap is at hand); one of malloc to its own thread */
    if (s->heaped) {
        if (by && by->heap) block_heap_free(by->heap, s->data, s->cap);
        return;
    }
    if (foreign(s, by) && s->cap >= sizeof(void *))
        frees_push(&by->frees[s->owner], s->data);
    else
        free(s->data);
}

void line_store_free(line_store *s, const line_scratch *by) {
    give_block(s, by);
    memset(s, 0, sizeof *s);
}

size_t line_store_bytes(const line_store *s) {
    return s->cap;
}

void line_scratch_lend(line_scratch *scratch, block_regions *regions) {
#if defined(__SANITIZE_ADDRESS__)
    /* every block from malloc, where the sanitizer sees each one's bounds */
    (void)regions;
    scratch->heap = NULL;
#else
    scratch->heap = regions ? block_heap_take(regions) : NULL;
#endif
}

void line_scratch_free(line_scratch *scratch) {
    free(scratch->mem);
    scratch->mem = NULL;
    scratch->cap = 0;
    block_heap_give(scratch->heap);
    scratch->heap = NULL;
}

/* The stream's bytes moved into a new block of `cap` bytes from this thread's allocator, the old
 * block given back: 0, or -1 when out of memory (the stream as it was). */
static int move_block(line_store *s, size_t cap, const line_scratch *by) {
    int heaped = by && by->heap && cap <= BLOCK_HEAP_MAX;
    unsigned char *data;
    if (heaped) {
        cap = block_heap_size(cap);
        data = block_heap_alloc(by->heap, cap);
    } else {
        data = malloc(cap);
    }
    if (!data) return -1;
    if (s->data) memcpy(data, s->data, s->used);
    give_block(s, by);
    s->data = data;
    s->cap = cap;
    s->owner = owner_of(by);
    s->heaped = (unsigned char)heaped;
    return 0;
}

/* Makes sure `need` more bytes fit, on the thread of `by` (NULL: the only one, or a stream
 * it made). The buffer doubles while small, then grows by half: the spare room goes back when
 * the loader moves on, so growing fast costs memory only briefly. */
status line_reserve(line_store *s, size_t need, const line_scratch *by) {
    if (s->cap - s->used >= need) return ST_OK;
    if (need > SIZE_MAX / 2 - s->used) return ST_NOMEM;
    size_t cap = s->cap < FAST_GROWTH ? 2 * s->cap : s->cap + s->cap / 2;
    if (cap < MIN_BYTES) cap = MIN_BYTES;
    if (cap < s->used + need) cap = s->used + need;
    /* a new block and a copy, not realloc: realloc holds the lock of the allocator arena that
     * made the block for the whole copy, and a split load's streams are made on one thread and
     * grown on another, which then waited for each other (instr-100 on two threads: 1,160
     * waits in a load, 630 after, 0.308 -> 0.292 s); malloc takes this thread's own arena */
    return move_block(s, cap, by) ? ST_NOMEM : ST_OK;
}

/* Gives back the room a stream will not use any more. */
static void trim(line_store *s, const line_scratch *by) {
    if (s->cap == s->used) return;
    if (!s->used) {
        give_block(s, by);
        s->data = NULL;
        s->cap = 0;
        s->heaped = 0;
        return;
    }
    /* a block of the regions: into a smaller class when there is one and a heap at hand */
    if (s->heaped) {
        if (by && by->heap && block_heap_size(s->used) < s->cap) (void)move_block(s, s->used, by);
        return;
    }
    /* made by another thread: copied, rather than realloc'd under that thread's lock (out of
     * memory either way, the larger block stays: still valid) */
    if (foreign(s, by)) {
        (void)move_block(s, s->used, by);
        return;
    }
    unsigned char *data = realloc(s->data, s->used);
    if (!data) return;
    s->data = data;
    s->cap = s->used;
}

/* The byte after `n` varints from `p` on, not decoded: as many bytes without the high bit. */
static inline const unsigned char *skip_varints(const unsigned char *p, uint64_t n) {
    for (; n; p++) n -= !(*p & 0x80);
    return p;
}

/* The record at `p` up to its costs (lines.h: a short or a long record), against the one before
 * it (file, line and address as that one left them): the number of its costs that follow as
 * varints into *n, and whether instead its one cost is the last record's first cost (*repeat,
 * *n 0). Returns the byte after its head. */
ALWAYS_INLINE const unsigned char *decode_head(const unsigned char *p, uint64_t *n, int *repeat,
                                               uint32_t *file, uint64_t *line, uint64_t *addr) {
    uint64_t v;
    unsigned header = *p++;
    if (!(header & LINE_LONG)) {
        unsigned code = header >> 4 & 3;
        *repeat = (header & LINE_REPEAT) != 0;
        *n = !*repeat;
        *addr += header & (LINE_ADDR_STEPS - 1);
        if (code == LINE_LINE_VARINT) {
            p = get_varint(p, &v);
            *line += unzigzag(v);
        } else {
            *line += code;
        }
        return p;
    }
    *repeat = 0;
    *n = header >> 1 & K_ESCAPE;
    if (*n == K_ESCAPE) p = get_varint(p, n);
    if (header & 1) {
        p = get_varint(p, &v);
        *file = (uint32_t)v;
    }
    p = get_varint(p, &v);
    *addr += unzigzag(v);
    p = get_varint(p, &v);
    *line += unzigzag(v);
    return p;
}

/* A record's costs into `costs`, zero up to `nraw`: its `n` varints from `p`, or with `repeat`
 * the last record's first cost, *first, which becomes this record's. Returns the byte after
 * them. */
ALWAYS_INLINE const unsigned char *decode_costs(const unsigned char *p, uint64_t n, int repeat,
                                                cg_cost *costs, size_t nraw, cg_cost *first) {
    uint64_t v;
    size_t i = 0;
    if (repeat) {
        costs[i++] = *first;
    } else {
        for (; i < n; i++) {
            p = get_varint(p, &v);
            costs[i] = (cg_cost)unzigzag(v);
        }
        *first = n ? costs[0] : 0;
    }
    for (; i < nraw; i++) costs[i] = 0;
    return p;
}

/* decode_costs stepping over all but the first cost, which goes to *first. */
ALWAYS_INLINE const unsigned char *skip_costs(const unsigned char *p, uint64_t n, int repeat,
                                              cg_cost *first) {
    uint64_t v;
    if (repeat) return p;
    if (!n) {
        *first = 0;
        return p;
    }
    p = get_varint(p, &v);
    *first = (cg_cost)unzigzag(v);
    return skip_varints(p, n - 1);
}

/* Decodes the record at `p` (decode_head, then its costs into `nraw` values; *first the last
 * record's first cost, then this one's). Returns the byte after it. Always inline: the reader
 * and the compactions decode every record this way, and a call would keep the position in
 * memory, where the next wide read of it waits for the narrow writes (store forwarding). */
ALWAYS_INLINE const unsigned char *decode_next(const unsigned char *p, uint32_t *file,
                                               uint64_t *line, uint64_t *addr, cg_cost *costs,
                                               size_t nraw, cg_cost *first) {
    uint64_t n;
    int repeat;
    p = decode_head(p, &n, &repeat, file, line, addr);
    return decode_costs(p, n, repeat, costs, nraw, first);
}

void line_reader_init(line_reader *r, const line_store *s) {
    r->data = s->data;
    r->pos = 0;
    r->remaining = s->count;
    r->file = 0;
    r->line = 0;
    r->addr = 0;
    r->first = 0;
}

int line_reader_next(line_reader *r, cg_cost *costs, size_t nraw) {
    if (!r->remaining) return 0;
    const unsigned char *p =
        decode_next(r->data + r->pos, &r->file, &r->line, &r->addr, costs, nraw, &r->first);
    r->pos = (size_t)(p - r->data);
    r->remaining--;
    return 1;
}

/* One record's costs added to `sum`, checked: decode_costs' reading, without a row between. */
ALWAYS_INLINE int add_costs(const unsigned char **at, uint64_t n, int repeat, cg_cost *sum,
                            cg_cost *first) {
    const unsigned char *p = *at;
    uint64_t v;
    int bad = 0;
    if (repeat) {
        bad = __builtin_add_overflow(sum[0], *first, &sum[0]);
    } else {
        for (uint64_t i = 0; i < n; i++) {
            p = get_varint(p, &v);
            cg_cost c = (cg_cost)unzigzag(v);
            if (i == 0) *first = c;
            bad |= __builtin_add_overflow(sum[i], c, &sum[i]);
        }
        if (!n) *first = 0;
    }
    *at = p;
    return bad;
}

int line_reader_run(line_reader *r, cg_cost *sum, size_t nraw, int by_line, uint32_t *records) {
    if (!r->remaining) return 0;
    memset(sum, 0, nraw * sizeof *sum);
    const unsigned char *p = r->data + r->pos;
    uint32_t file = r->file, count = 0;
    uint64_t line = r->line, addr = r->addr;
    int bad = 0;
    while (r->remaining) {
        /* the record's head read ahead: a record of another run is left for the next call */
        uint32_t next_file = file;
        uint64_t next_line = line, n;
        int repeat;
        const unsigned char *q = decode_head(p, &n, &repeat, &next_file, &next_line, &addr);
        if (count && (next_file != file || (by_line && next_line != line))) break;
        file = next_file;
        line = next_line;
        bad |= add_costs(&q, n, repeat, sum, &r->first);
        p = q;
        r->addr = addr;
        r->remaining--;
        count++;
    }
    r->pos = (size_t)(p - r->data);
    r->file = file;
    r->line = line;
    *records = count;
    return bad ? -1 : 1;
}

int line_store_scan(const line_store *s, int (*file_seen)(void *ctx, uint32_t file), void *ctx,
                    line_span *span) {
    const unsigned char *p = s->data;
    uint32_t file = 0, first_file = 0, last_file = 0;
    uint64_t line = 0, first_line = 0, addr = 0;
    int one = 1;
    span->count = s->count;
    for (uint32_t k = 0; k < s->count; k++) {
        uint64_t n;
        int repeat;
        p = decode_head(p, &n, &repeat, &file, &line, &addr);
        p = skip_varints(p, n);
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

/* A stream to compact is a sorted prefix (what the last compaction wrote) followed by the
 * records appended since, which come in a few ascending runs (callgrind writes a function's
 * instructions in address order within each basic block; the stream counts its runs as they
 * come). Compaction decodes the records' positions once, and the costs of only those it sums
 * or writes again (most records are copied as bytes); up to 16 runs, it merges them as record
 * numbers, each run in turn into the merge of those before it, and copies what it can of the
 * stream's bytes (put_merged); beyond, it sums equal positions through a hash table and sorts the
 * distinct ones. Either way equal positions are summed in the order they were read. */

/* Grows the scratch space to `bytes`. */
static status scratch_reserve(line_scratch *scratch, size_t bytes) {
    if (scratch->cap >= bytes) return ST_OK;
    void *mem = realloc(scratch->mem, bytes);
    if (!mem) return ST_NOMEM;
    scratch->mem = mem;
    scratch->cap = bytes;
    return ST_OK;
}

/* Appends the record of key `k` and costs `row` (nraw of them) to `out`. */
ALWAYS_INLINE status put_record(line_store *out, const line_key *k, const cg_cost *row, size_t nraw,
                                const line_scratch *by) {
    size_t n = nraw;
    while (n && row[n - 1] == 0) n--;
    if (out->cap - out->used < line_worst_case(n) && line_reserve(out, line_worst_case(n), by))
        return ST_NOMEM;
    line_encode(out, k->file, k->line, k->addr, row, n);
    return ST_OK;
}

/* Room for `records` records of the stream being compacted, at its bytes per record so far
 * (sums may take a byte more: the buffer grows then), so that the output is not grown from
 * nothing by doubling. */
static status put_room(line_store *out, size_t used, size_t count, size_t records,
                       const line_scratch *by) {
    size_t per = count ? used / count + 1 : 1;
    if (records > SIZE_MAX / 2 / per) return ST_NOMEM;
    return line_reserve(out, records * per, by);
}

/* sum += row, checked */
static inline status add_row(cg_cost *sum, const cg_cost *row, size_t nraw) {
    for (size_t e = 0; e < nraw; e++)
        if (__builtin_add_overflow(sum[e], row[e], &sum[e])) return ST_OVERFLOW;
    return ST_OK;
}

/* The records of a stream to compact decoded: their positions, costs and bytes, where each run
 * starts, and room for the merge. */
typedef struct decoded {
    const unsigned char *data; /* the stream's bytes */
    line_key *keys;
    cg_cost *costs;        /* `width` per record, filled when `summed` is not 0 */
    cg_cost *first;        /* each record's first cost, as read (0 when it has none) */
    size_t *offsets;       /* of each record in the stream, and the end of the last */
    uint32_t *starts;      /* of the runs, and n after the last */
    uint32_t *a, *b;       /* record numbers: the merge so far and the next one, or the hashed
                            * positions and the sort's room */
    unsigned char *summed; /* per record: 0 costs not decoded yet, COSTS_READ decoded, COSTS_SUMMED
                            * another record was added to them */
    size_t n, width, runs;
    const line_scratch *by; /* the thread's, whose heap the output's block comes from */
} decoded;

enum { COSTS_READ = 1, COSTS_SUMMED = 2 };

/* The record at `p` as decode_next reads it, its costs stepped over but the first. */
ALWAYS_INLINE const unsigned char *decode_position(const unsigned char *p, uint32_t *file,
                                                   uint64_t *line, uint64_t *addr, cg_cost *first) {
    uint64_t n;
    int repeat;
    p = decode_head(p, &n, &repeat, file, line, addr);
    return skip_costs(p, n, repeat, first);
}

/* Every record of the stream into `d`: keys, offsets, where the runs start, and the costs
 * unless `lazy` (costs_of decodes them when needed). */
ALWAYS_INLINE void decode_records(const line_store *s, decoded *d, size_t nraw, int lazy) {
    size_t n = d->n, width = nraw ? nraw : 1, runs = 0;
    const unsigned char *p = s->data;
    uint32_t file = 0;
    uint64_t line = 0, addr = 0;
    cg_cost first = 0;
    for (size_t i = 0; i < n; i++) {
        d->offsets[i] = (size_t)(p - s->data);
        d->summed[i] = lazy ? 0 : COSTS_READ;
        p = lazy ? decode_position(p, &file, &line, &addr, &first)
                 : decode_next(p, &file, &line, &addr, d->costs + i * width, nraw, &first);
        d->first[i] = first;
        line_key k = {addr, line, file};
        if (i == 0 || !line_key_follows(&d->keys[i - 1], &k)) d->starts[runs++] = (uint32_t)i;
        d->keys[i] = k;
    }
    d->offsets[n] = (size_t)(p - s->data);
    d->starts[runs] = (uint32_t)n;
    d->runs = runs;
}

/* Record i's bytes from its first cost on; as decode_head, its number of costs there into *n
 * and whether its cost repeats the last record's first into *repeat. */
ALWAYS_INLINE const unsigned char *costs_bytes(const decoded *d, size_t i, uint64_t *n,
                                               int *repeat) {
    uint32_t file = 0; /* the position is d->keys[i]'s */
    uint64_t line = 0, addr = 0;
    return decode_head(d->data + d->offsets[i], n, repeat, &file, &line, &addr);
}

/* Record i's costs (`nraw` of them), decoded into its row when they are not yet (`lazy`: the
 * costs were stepped over). */
ALWAYS_INLINE cg_cost *costs_of(decoded *d, size_t i, size_t nraw, int lazy) {
    cg_cost *row = d->costs + i * (nraw ? nraw : 1); /* d->width, a constant in the copies */
    if (!lazy || d->summed[i]) return row;
    uint64_t n;
    int repeat;
    cg_cost first = d->first[i]; /* a repeated cost */
    const unsigned char *p = costs_bytes(d, i, &n, &repeat);
    decode_costs(p, n, repeat, row, nraw, &first);
    d->summed[i] = COSTS_READ;
    return row;
}

/* Record j's costs added to record i's (j was read after i at the same position). */
ALWAYS_INLINE status sum_into(decoded *d, size_t i, size_t j, size_t nraw, int lazy) {
    cg_cost *sum = costs_of(d, i, nraw, lazy);
    if (lazy && !d->summed[j]) {
        /* j's costs added as they are decoded: its row is never needed (a record summed into
         * another is not written), and the costs after its last nonzero one add nothing */
        uint64_t n, v;
        int repeat;
        const unsigned char *p = costs_bytes(d, j, &n, &repeat);
        if (repeat && __builtin_add_overflow(sum[0], d->first[j], &sum[0])) return ST_OVERFLOW;
        for (uint64_t k = 0; k < n; k++) {
            p = get_varint(p, &v);
            if (__builtin_add_overflow(sum[k], (cg_cost)unzigzag(v), &sum[k])) return ST_OVERFLOW;
        }
    } else if (add_row(sum, costs_of(d, j, nraw, lazy), nraw)) {
        return ST_OVERFLOW;
    }
    d->summed[i] = COSTS_SUMMED;
    return ST_OK;
}

/* `extra` bytes more are left at the start of the scratch space, for a hash table. `lazy`: the
 * costs are left for costs_of. */
ALWAYS_INLINE status decode_all(const line_store *s, size_t nraw, line_scratch *scratch,
                                size_t extra, int lazy, decoded *d) {
    size_t n = s->count, width = nraw ? nraw : 1;
    /* per record: its key, costs, first cost and offset, at worst a run of its own, two record
     * numbers and whether it was summed */
    size_t per = sizeof(line_key) + (width + 1) * sizeof(cg_cost) + sizeof(size_t) +
                 3 * sizeof(uint32_t) + 1;
    if (n >= (SIZE_MAX - extra) / per - 1) return ST_NOMEM;
    if (scratch_reserve(scratch, extra + n * per + sizeof(size_t) + sizeof(uint32_t)))
        return ST_NOMEM;
    d->keys = (line_key *)((char *)scratch->mem + extra);
    d->costs = (cg_cost *)(d->keys + n);
    d->first = d->costs + n * width;
    d->offsets = (size_t *)(d->first + n);
    d->starts = (uint32_t *)(d->offsets + n + 1);
    d->a = d->starts + n + 1;
    d->b = d->a + n;
    d->summed = (unsigned char *)(d->b + n);
    d->data = s->data;
    d->by = scratch;
    d->n = n;
    d->width = width;
    /* one event (valgrind's default Ir) decoded by a copy of the loop made for it */
    if (lazy)
        decode_records(s, d, nraw, 1);
    else if (nraw == 1)
        decode_records(s, d, 1, 0);
    else
        decode_records(s, d, nraw, 0);
    return ST_OK;
}

/* Up to 16 runs (callgrind's blocks): each merged in turn into the merge of those before it,
 * as record numbers; a position met again is added to the row of its first record (in reading
 * order), which is marked as summed. Each run costs the records merged so far once more. The
 * number of records the merge keeps goes to *len, their order to d->a. */
ALWAYS_INLINE status merge_in_turn(decoded *d, const strtab *strings, size_t nraw, int lazy,
                                   size_t *len_out) {
    const line_key *keys = d->keys;
    uint32_t *acc = d->a, *next = d->b;
    size_t len = d->starts[1];
    for (size_t i = 0; i < len; i++) acc[i] = (uint32_t)i;
    for (size_t r = 1; r < d->runs; r++) {
        size_t ai = 0, m = 0;
        for (uint32_t j = d->starts[r]; j < d->starts[r + 1]; j++) {
            int c = -1;
            while (ai < len && (c = line_key_cmp(strings, &keys[acc[ai]], &keys[j])) < 0)
                next[m++] = acc[ai++];
            if (ai < len && c == 0) {
                if (sum_into(d, acc[ai], j, nraw, lazy)) return ST_OVERFLOW;
                next[m++] = acc[ai++];
            } else {
                next[m++] = j;
            }
        }
        while (ai < len) next[m++] = acc[ai++];
        uint32_t *t = acc;
        acc = next;
        next = t;
        len = m;
    }
    if (acc != d->a) memcpy(d->a, acc, len * sizeof *acc);
    *len_out = len;
    return ST_OK;
}

/* The merge written out. Callgrind writes a function's basic blocks in no particular order,
 * each block's instructions in address order, and blocks meet at a position or two: most
 * records of the merge follow the record they followed in the stream and have nothing added to
 * them, so their bytes are still right and are copied with their like neighbours. The others
 * (a run's first record, a position read more than once) are encoded again. */
ALWAYS_INLINE status put_merged(const line_store *s, decoded *d, size_t len, size_t nraw, int lazy,
                                line_store *out) {
    const uint32_t *order = d->a;
    if (put_room(out, s->used, d->n, len, d->by)) return ST_NOMEM;
    size_t i = 0;
    while (i < len) {
        uint32_t j = order[i];
        /* records from j on whose bytes are right as they are: j follows what it followed in
         * the stream, with the same costs (a short record may repeat its first), and each next
         * one follows it there too */
        size_t m = 0;
        if (i ? order[i - 1] + 1 == j && d->summed[j - 1] != COSTS_SUMMED : j == 0)
            while (i + m < len && order[i + m] == j + m && d->summed[j + m] != COSTS_SUMMED) m++;
        if (m) {
            size_t bytes = d->offsets[j + m] - d->offsets[j];
            if (line_reserve(out, bytes, d->by)) return ST_NOMEM;
            memcpy(out->data + out->used, s->data + d->offsets[j], bytes);
            out->used += bytes;
            out->count += (uint32_t)m;
            const line_key *last = &d->keys[j + m - 1];
            out->last_file = last->file;
            out->last_line = last->line;
            out->last_addr = last->addr;
            out->last_cost = d->first[j + m - 1];
            i += m;
            continue;
        }
        status rc = put_record(out, &d->keys[j], costs_of(d, j, nraw, lazy), nraw, d->by);
        if (rc) return rc;
        i++;
    }
    return ST_OK;
}

/* Many runs (Xdebug writes a block per call, a few records each): equal positions are summed
 * through a hash table into the row of their first record, in reading order, and only the
 * distinct positions are sorted. */
typedef struct sorter {
    const line_key *keys;
    const strtab *strings;
} sorter;

#define KEY_BEFORE(st, a, b) (line_key_cmp((st)->strings, &(st)->keys[*(a)], &(st)->keys[*(b)]) < 0)
DEFINE_MERGE_SORT(sort_order, uint32_t, const sorter *, KEY_BEFORE)

static size_t hash_slots(size_t n) {
    size_t slots = 16;
    while (slots < 2 * n) slots *= 2;
    return slots;
}

static status merge_hashed(decoded *d, const strtab *strings, size_t nraw, int lazy, size_t used,
                           uint32_t *table, size_t slots, uint64_t seed, size_t *len_out,
                           line_store *out) {
    const line_key *keys = d->keys;
    uint32_t *order = d->a, *tmp = d->b, *bounds = d->starts; /* the runs are not needed */
    memset(table, 0, slots * sizeof *table);                  /* record number + 1, 0 = free */
    size_t distinct = 0;
    for (size_t i = 0; i < d->n; i++) {
        const line_key *k = &keys[i];
        size_t slot = line_key_hash(k, seed) & (slots - 1);
        while (table[slot] && !line_key_same(&keys[table[slot] - 1], k))
            slot = (slot + 1) & (slots - 1);
        if (!table[slot]) {
            table[slot] = (uint32_t)i + 1;
            order[distinct++] = (uint32_t)i;
        } else if (sum_into(d, table[slot] - 1, i, nraw, lazy)) {
            return ST_OVERFLOW;
        }
    }
    sorter st = {keys, strings};
    sort_order(&st, order, tmp, bounds, distinct);
    *len_out = distinct;
    if (put_room(out, used, d->n, distinct, d->by)) return ST_NOMEM;
    for (size_t i = 0; i < distinct; i++) {
        status rc =
            put_record(out, &keys[order[i]], costs_of(d, order[i], nraw, lazy), nraw, d->by);
        if (rc) return rc;
    }
    return ST_OK;
}

/* Whether the merge (d->a, `len` records) holds two records of one address and line, whose
 * order by file id may not be that by name: without them the order is final whatever the
 * names. */
static int has_ties(const decoded *d, size_t len) {
    for (size_t i = 1; i < len; i++) {
        const line_key *x = &d->keys[d->a[i - 1]], *y = &d->keys[d->a[i]];
        if (x->addr == y->addr && x->line == y->line) return 1;
    }
    return 0;
}

/* The merge in turn, written out. */
ALWAYS_INLINE status merge_events(decoded *d, const strtab *strings, const line_store *s,
                                  line_store *out, size_t nraw, int lazy, size_t *len) {
    status rc = merge_in_turn(d, strings, nraw, lazy, len);
    return rc ? rc : put_merged(s, d, *len, nraw, lazy, out);
}

/* Rewrites a stream with each position once, in (address, line, file name) order. */
static status compact(line_store *s, const strtab *strings, size_t nraw, line_scratch *scratch) {
    /* merging in turn costs about runs * distinct steps, hashing n probes and a sort of the
     * distinct positions: in turn is the cheaper at the few runs of callgrind's blocks */
    enum { IN_TURN_RUNS = 16 };
    /* Costs decoded only for the records summed or written again, when they are many: most
     * records are then copied as bytes (callgrind's blocks meet at a few positions), unless
     * the stream's last compaction summed most of its records (a function that comes back
     * block after block), whose costs are better decoded in one pass; a stream compacted the
     * first time goes by the last compaction on this thread. */
    enum { LAZY_EVENTS = 4 };
    int most = s->sums ? s->sums == LINE_SUMS_MOST : scratch->sums_most;
    int lazy = nraw >= LAZY_EVENTS && !most;
    line_store out;
    memset(&out, 0, sizeof out);
    size_t slots = hash_slots(s->count);
    if (slots > SIZE_MAX / 4 / sizeof(uint32_t)) return ST_NOMEM;
    decoded d;
    status rc = decode_all(s, nraw, scratch, slots * sizeof(uint32_t), lazy, &d);
    if (rc) return rc;
    /* the runs as decoded: records of one address and line in several files, which the last
     * compaction ordered by name, may break the stream's own count of them */
    size_t len;
    if (d.runs <= IN_TURN_RUNS) {
        /* one event (valgrind's default Ir) by a copy made for it */
        if (lazy)
            rc = merge_events(&d, strings, s, &out, nraw, 1, &len);
        else if (nraw == 1)
            rc = merge_events(&d, strings, s, &out, 1, 0, &len);
        else
            rc = merge_events(&d, strings, s, &out, nraw, 0, &len);
    } else {
        rc = merge_hashed(&d, strings, nraw, lazy, s->used, scratch->mem, slots, scratch->seed,
                          &len, &out);
    }
    if (rc) {
        line_store_free(&out, scratch);
        return rc;
    }
    /* held from a compaction of many runs on, until a held block gains nothing (line_block.h):
     * the compactions of its held blocks, one run each, merge them in turn */
    unsigned char held = s->held || d.runs > IN_TURN_RUNS;
    give_block(s, scratch);
    *s = out;
    s->held = held;
    s->owner = owner_of(scratch);
    s->distinct = s->count;
    s->runs = s->count ? 1 : 0; /* sorted, ties included */
    s->ties_by_id = !strings && has_ties(&d, len);
    scratch->sums_most = 2 * (d.n - len) > d.n;
    s->sums = scratch->sums_most ? LINE_SUMS_MOST : LINE_SUMS_FEW;
    return ST_OK;
}

status line_compact(line_store *s, const strtab *strings, size_t nraw, line_scratch *scratch) {
    return compact(s, strings, nraw, scratch);
}

void line_give_back(line_store *s, const line_scratch *by) {
    trim(s, by);
    s->trimmed = s->used < UINT32_MAX ? (uint32_t)s->used : UINT32_MAX;
}

status line_finish(line_store *s, const strtab *strings, size_t nraw, line_scratch *scratch) {
    if ((s->runs <= 1 && !s->ties_by_id) || !s->count) {
        s->distinct = s->count;
        trim(s, scratch);
        return ST_OK;
    }
    status rc = compact(s, strings, nraw, scratch);
    if (rc == ST_OK) trim(s, scratch);
    return rc;
}

/* ---- streams made elsewhere ---- */

status line_append_stream(line_store *s, line_store *from, const strtab *strings, size_t nraw,
                          line_scratch *scratch, cg_cost *row) {
    if (!from->count) {
        line_store_free(from, scratch);
        return ST_OK;
    }
    from->owner = owner_of(scratch); /* made on this thread */
    if (!s->count) {
        /* out of order, compacted now, while its records are in this thread's cache (callgrind
         * writes most functions in one block); a later stream is joined as it is and compacted
         * with this one's records, not once more on its own */
        if (from->runs > 1) {
            /* one piece's records of the function, most often one block: what they sum says
             * little of the blocks to come, so neither this thread's guess for the streams it
             * compacts the first time nor the stream's own record keeps it (on one thread a
             * function's first block is compacted with the blocks after it; line13 on two
             * threads, whose later compactions then decoded lazily what sums most: 0.313 ->
             * 0.303 s) */
            int guess = scratch->sums_most;
            status rc = line_finish(from, strings, nraw, scratch);
            if (rc) return rc;
            scratch->sums_most = guess;
            from->sums = LINE_SUMS_UNKNOWN;
        }
        /* the same records from the same start: the same stream (a compaction ordered ties by
         * file id at most, which ties_by_id makes line_finish put right) */
        give_block(s, scratch);
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
    /* the first record goes on this stream's last run */
    int joins = s->runs == 1 &&
                (r.addr > s->last_addr || (r.addr == s->last_addr && r.line > s->last_line));
    size_t k = nraw;
    while (k && row[k - 1] == 0) k--;
    size_t rest = from->used - r.pos;
    if (line_reserve(s, line_worst_case(k) + rest, scratch)) return ST_NOMEM;
    if ((uint64_t)s->count + from->count > UINT32_MAX) return ST_NOMEM;
    uint32_t count = s->count;
    line_encode(s, r.file, r.line, r.addr, row, k); /* counts the run the first record opens */
    memcpy(s->data + s->used, from->data + r.pos, rest);
    s->used += rest;
    s->count = count + from->count;
    s->runs += from->runs - 1; /* the runs after the first record's, as they were in `from` */
    if (joins) {
        /* known distinct, as line_encode counts them: this stream's records and those `from`
         * knew (its first run, or what its last compaction wrote) */
        s->distinct = count + from->distinct;
        s->ties_by_id |= from->ties_by_id;
    }
    s->last_file = from->last_file;
    s->last_line = from->last_line;
    s->last_addr = from->last_addr;
    s->last_cost = from->last_cost;
    line_store_free(from, scratch);
    /* compacted as line_append compacts */
    if (line_compaction_due(s)) return line_compact(s, strings, nraw, scratch);
    return ST_OK;
}
