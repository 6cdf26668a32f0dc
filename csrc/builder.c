/* builder.c - adds records to the model under construction, merging records with equal
 * identity: a function is (name, file, object); a line cost (function, file, line, address);
 * a call (caller, callee, call site); a jump (function, source, target, kind). */
#include "builder.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "pages.h"
#include "parts.h"
#include "vec.h"

/* The bytes of a block of the pool of calls and jumps: mapped apart (fnrecs.c) in a huge page
 * where the kernel lends one (512 KiB blocks, in 4 KiB pages, were half the faults of gcc's
 * profile), and small enough that the numbering, which gives each block back once it has
 * copied its lists, does not get far ahead of what it gives back (4 MiB blocks cost single-100
 * 6 MB more peak). */
enum { RECS_BLOCK = 2 << 20 };

/* ---- the builder ---- */

status builder_init(builder *b, const section_choice *choice, size_t max_warnings, int no_cycles) {
    memset(b, 0, sizeof *b);
    b->seed = hash_new_seed(b);
    if (!(b->p = profile_new(b->seed))) return ST_NOMEM;
    b->p->max_warnings = max_warnings ? max_warnings : 1000;
    b->p->no_cycles = no_cycles != 0;
    b->scratch.seed = b->seed;
    line_scratch_lend(&b->scratch, b->p->blocks);
    b->block_fn = NO_INDEX;
    b->held_fn = NO_INDEX;
    b->section = CG_NONE;
    rec_pool_init(&b->pool, RECS_BLOCK);
    if (choice) b->choice = *choice;
    return ST_OK;
}

/* The lookup tables of the functions' lists (theirs alone). */
static void drop_tables(builder *b) {
    for (size_t f = 0; f < b->nrecs; f++) {
        free(b->recs[f].calls.tab);
        free(b->recs[f].jumps.tab);
        b->recs[f].calls.tab = NULL;
        b->recs[f].jumps.tab = NULL;
    }
}

/* The functions' lists, their segments already given back or about to be. */
static void drop_lists(builder *b) {
    drop_tables(b);
    free(b->recs);
    free(b->rec_of);
    b->recs = NULL;
    b->rec_of = NULL;
    b->nrecs = b->recs_cap = b->rec_of_cap = 0;
    b->block_rec = 0;
}

/* The per-record state: the calls and jumps not yet numbered, which functions have blocks,
 * which callees were guessed (resolve.c is done with them), and the index of functions. */
static void free_function_index(builder *b) {
    idxtab_free(&b->fn_index);
    free(b->fn_by_name);
    b->fn_by_name = NULL;
    b->fn_by_name_cap = 0;
}

static void free_record_state(builder *b) {
    free_function_index(b);
    free(b->fn_defined);
    free(b->call_guessed);
    drop_lists(b);
    rec_pool_clear(&b->pool, 0);
    b->fn_defined = b->call_guessed = NULL;
    b->fn_defined_cap = b->call_guessed_cap = 0;
}

void builder_free(builder *b) {
    line_block_free(&b->held);
    line_scratch_free(&b->scratch); /* its heap back to the profile's regions first */
    cg_profile_free(b->p);
    b->p = NULL;
    free_record_state(b);
    free(b->descs);
    free(b->read_ids);
    b->descs = NULL;
    b->read_ids = NULL;
}

cg_profile *builder_take(builder *b) {
    cg_profile *p = b->p;
    line_scratch_free(&b->scratch); /* the heap goes back before the profile is the caller's */
    b->p = NULL;
    return p;
}

status build_string(builder *b, const char *s, size_t len, uint32_t *id) {
    int64_t sid = strtab_intern(&b->p->strings, s, len);
    if (sid < 0) return ST_NOMEM;
    *id = (uint32_t)sid;
    return ST_OK;
}

status build_event_desc(builder *b, const event_desc *d) {
    if (VEC_RESERVE(b->descs, b->descs_cap, b->ndescs + 1)) return ST_NOMEM;
    b->descs[b->ndescs++] = *d;
    return ST_OK;
}

/* Shrinks an array to `n` elements; a failed realloc keeps the larger block, still valid. */
static void shrink(void **data, size_t *cap, size_t n, size_t elsize) {
    if (!*data || *cap <= n) return;
    void *v = realloc(*data, (n ? n : 1) * elsize);
    if (!v) return;
    *data = v;
    *cap = n;
}

#define SHRINK(arr, cap, n) shrink((void **)&(arr), &(cap), (n), sizeof *(arr))

static void shrink_costs(cost_array *a, size_t stride) {
    if (!a->v || a->cap <= a->rows) return;
    void *v = realloc(a->v, (a->rows ? a->rows : 1) * (stride ? stride : 1) * sizeof(cg_cost));
    if (!v) return;
    a->v = v;
    a->cap = a->rows;
}

void builder_finish(builder *b) {
    cg_profile *p = b->p;
    free_record_state(b);
    SHRINK(p->fns, p->fns_cap, p->nfns);
    SHRINK(p->line_stores, p->line_stores_cap, p->nfns);
    SHRINK(p->calls, p->calls_cap, p->ncalls);
    SHRINK(p->jumps, p->jumps_cap, p->njumps);
    shrink_costs(&p->fn_self, p->nraw);
    shrink_costs(&p->call_costs, p->nraw);
}

/* ---- functions ---- */

static int fn_eq(const void *ctx, uint32_t index, const void *key) {
    const fn_rec *a = &((const cg_profile *)ctx)->fns[index];
    const fn_rec *b = key;
    return a->name == b->name && a->file == b->file && a->object == b->object;
}

/* The cache entry of a name, the array grown (zeroed) to cover it; NULL when out of memory. */
static fn_by_name_entry *fn_by_name(builder *b, uint32_t name) {
    if (name < b->fn_by_name_cap) return &b->fn_by_name[name];
    size_t cap = b->fn_by_name_cap, want = (size_t)name + 1;
    if (VEC_RESERVE(b->fn_by_name, b->fn_by_name_cap, want)) return NULL;
    memset(b->fn_by_name + cap, 0, (b->fn_by_name_cap - cap) * sizeof *b->fn_by_name);
    return &b->fn_by_name[name];
}

status build_function(builder *b, uint32_t name, uint32_t file, uint32_t object, uint32_t *fn) {
    cg_profile *p = b->p;
    fn_by_name_entry *cached = fn_by_name(b, name);
    if (!cached) return ST_NOMEM;
    if (cached->fn && cached->file == file && cached->object == object) {
        *fn = cached->fn - 1;
        return ST_OK;
    }
    fn_rec key = {name, file, object, NO_INDEX, 0};
    uint32_t tag =
        (uint32_t)hash_mix(hash_combine(hash_combine(hash_combine(b->seed, name), file), object));
    size_t slot;
    int64_t found = idxtab_find(&b->fn_index, tag, fn_eq, p, &key, &slot);
    if (found >= 0) {
        *cached = (fn_by_name_entry){file, object, (uint32_t)found + 1};
        *fn = (uint32_t)found;
        return ST_OK;
    }
    size_t row;
    if (idxtab_grow(&b->fn_index) || VEC_APPEND_RESERVE(p->fns, p->fns_cap, p->nfns) ||
        VEC_APPEND_RESERVE(b->fn_defined, b->fn_defined_cap, p->nfns) ||
        VEC_APPEND_RESERVE(p->line_stores, p->line_stores_cap, p->nfns) ||
        costs_add_row(&p->fn_self, p->nraw, &row))
        return ST_NOMEM;
    (void)idxtab_find(&b->fn_index, tag, fn_eq, p, &key, &slot);
    p->fns[p->nfns] = key;
    b->fn_defined[p->nfns] = 0;
    memset(&p->line_stores[p->nfns], 0, sizeof p->line_stores[p->nfns]);
    idxtab_put(&b->fn_index, slot, tag, (uint32_t)p->nfns);
    *cached = (fn_by_name_entry){file, object, (uint32_t)p->nfns + 1};
    *fn = (uint32_t)p->nfns++;
    return ST_OK;
}

int build_defined(builder *b, uint32_t fn) {
    int again = b->fn_defined[fn];
    b->fn_defined[fn] = 1;
    /* the block of another function begins: the last one's records are most likely complete
     * (held ones not yet: build_release_held gives the room back once they join it) */
    if (b->block_fn != NO_INDEX && b->block_fn != fn && !b->streams_elsewhere &&
        b->block_fn != b->held_fn)
        line_leave(&b->p->line_stores[b->block_fn], &b->scratch);
    b->block_fn = fn;
    b->block_rec = fn < b->rec_of_cap ? b->rec_of[fn] : 0;
    /* a new block of the function: expect its calls and jumps in the order seen before */
    if (b->block_rec) fn_records_again(&b->recs[b->block_rec - 1]);
    /* and where its line records go, likely out of the cache since its last block (not when
     * other threads join streams: the stream is theirs to touch) */
    const line_store *s = &b->p->line_stores[fn];
    if (!b->streams_elsewhere && s->data) __builtin_prefetch(s->data + s->used, 1);
    __builtin_prefetch(costs_row(&b->p->fn_self, b->p->nraw, fn), 1);
    return again;
}

/* ---- line costs ---- */

/* Adds `v` to the rows x and y (distinct) when no sum overflows, and returns 1; else leaves
 * both rows as they were and returns 0. */
static inline int add_to_rows(cg_cost *x, cg_cost *y, const cg_cost *v, size_t n) {
    size_t i = 0;
    for (; i < n; i++) {
        cg_cost sx, sy;
        if (__builtin_add_overflow(x[i], v[i], &sx) || __builtin_add_overflow(y[i], v[i], &sy))
            break;
        x[i] = sx;
        y[i] = sy;
    }
    if (i == n) return 1;
    /* the sums made before the one that overflows are taken back, without overflow */
    while (i--) {
        x[i] -= v[i];
        y[i] -= v[i];
    }
    return 0;
}

/* A record of a held stream (line_block.h), none of its costs negative: held with the records
 * of its block, which join the stream once another function's are held, or once the block is
 * full. */
static status hold_line(builder *b, uint32_t fn, uint32_t file, uint64_t line, uint64_t addr,
                        const cg_cost *costs, size_t n) {
    status rc;
    if ((fn != b->held_fn || line_block_full(&b->held)) && (rc = build_release_held(b))) return rc;
    b->held_fn = fn;
    return line_block_add(&b->held, file, line, addr, costs, n, b->p->nraw, b->seed);
}

status build_line(builder *b, uint32_t fn, uint32_t file, uint64_t line, uint64_t addr,
                  const cg_cost *costs, size_t n) {
    cg_profile *p = b->p;
    cg_cost *self = costs_row(&p->fn_self, p->nraw, fn);
    cg_cost sec_sum, self_sum;
    if (n == 1 && b->section != CG_NONE &&
        !__builtin_add_overflow(costs_row(&p->section_costs, p->nraw, b->section)[0], costs[0],
                                &sec_sum) &&
        !__builtin_add_overflow(self[0], costs[0], &self_sum)) {
        /* one event, and neither sum overflows */
        costs_row(&p->section_costs, p->nraw, b->section)[0] = sec_sum;
        self[0] = self_sum;
    } else if (n == 1 || b->section == CG_NONE ||
               !add_to_rows(costs_row(&p->section_costs, p->nraw, b->section), self, costs, n)) {
        /* a sum overflows (or no section is open): row_add saturates a sum that overflows and
         * reports it, the section's first */
        if (b->section != CG_NONE &&
            row_add(costs_row(&p->section_costs, p->nraw, b->section), costs, n))
            return ST_OVERFLOW;
        if (row_add(self, costs, n)) return ST_OVERFLOW;
    }
    line_store *s = &p->line_stores[fn];
    if (s->held && !b->streams_elsewhere && !b->held_off) {
        if (!any_negative(costs, n)) return hold_line(b, fn, file, line, addr, costs, n);
        /* after a negative cost nothing is held again (sums could then overflow where the
         * stream's would not): this record and the ones after it are appended as they come */
        status rc = build_release_held(b);
        if (rc) return rc;
        b->held_off = 1;
    }
    return line_append(s, file, line, addr, costs, n, b->strings_busy ? NULL : &p->strings, p->nraw,
                       &b->scratch);
}

status build_release_held(builder *b) {
    uint32_t fn = b->held_fn;
    if (fn == NO_INDEX) return ST_OK;
    cg_profile *p = b->p;
    line_store *s = &p->line_stores[fn];
    b->held_fn = NO_INDEX;
    status rc =
        line_block_flush(&b->held, s, b->strings_busy ? NULL : &p->strings, p->nraw, &b->scratch);
    /* its block is over (build_defined left its room for now) */
    if (!rc && fn != b->block_fn) line_leave(s, &b->scratch);
    return rc;
}

/* ---- calls and jumps ---- */

/* New lists for function `fn`, which has none; NULL when out of memory. */
static __attribute__((noinline)) fn_records *records_new(builder *b, uint32_t fn) {
    if (fn >= b->rec_of_cap) {
        size_t cap = b->rec_of_cap, n = b->p->nfns > (size_t)fn + 1 ? b->p->nfns : (size_t)fn + 1;
        if (VEC_RESERVE(b->rec_of, b->rec_of_cap, n)) return NULL;
        memset(b->rec_of + cap, 0, (b->rec_of_cap - cap) * sizeof *b->rec_of);
    }
    /* the first record of the function: lists of its own */
    if (b->nrecs >= UINT32_MAX || VEC_APPEND_RESERVE(b->recs, b->recs_cap, b->nrecs)) return NULL;
    memset(&b->recs[b->nrecs], 0, sizeof *b->recs);
    b->rec_of[fn] = (uint32_t)++b->nrecs;
    if (fn == b->block_fn) b->block_rec = b->rec_of[fn];
    return &b->recs[b->nrecs - 1];
}

/* The lists of function `fn`. Inline, apart from making new ones: the builder asks at every
 * call and jump of the input. */
static inline fn_records *records_of(builder *b, uint32_t fn) {
    uint32_t slot;
    if (fn == b->block_fn && b->block_rec) return &b->recs[b->block_rec - 1];
    if (fn < b->rec_of_cap && (slot = b->rec_of[fn])) return &b->recs[slot - 1];
    return records_new(b, fn);
}

status build_call(builder *b, const call_rec *key, int guessed, cg_cost **row_out) {
    fn_records *r = records_of(b, key->caller);
    if (!r) return ST_NOMEM;
    return call_list_add(&r->calls, &b->pool, b->seed, b->p->nraw, key, guessed, row_out);
}

status build_jump(builder *b, const jump_rec *key) {
    fn_records *r = records_of(b, key->fn);
    if (!r) return ST_NOMEM;
    return jump_list_add(&r->jumps, &b->pool, b->seed, key);
}

status build_take_records(builder *b, uint32_t fn, fn_records *from, rec_pool *from_pool,
                          int distinct) {
    /* nothing to take: no lists made for the function */
    if (!from->calls.n && !from->jumps.n) return ST_OK;
    fn_records *r = records_of(b, fn);
    if (!r) return ST_NOMEM;
    status c =
        call_list_take(&r->calls, &b->pool, &from->calls, from_pool, b->seed, b->p->nraw, distinct);
    if (c == ST_NOMEM) return c;
    status j = jump_list_take(&r->jumps, &b->pool, &from->jumps, from_pool, b->seed, distinct);
    return j ? j : c;
}

/* Where build_number puts what the walk of the pool finds. */
typedef struct numbering {
    builder *b;
    uint32_t *call_at, *jump_at; /* per slot of b->recs: where its first call (jump) goes */
} numbering;

/* Copies list `slot` (REC_CALLS or REC_JUMPS) to its place. */
static void number_copy(numbering *nb, int kind, uint32_t slot) {
    builder *b = nb->b;
    cg_profile *p = b->p;
    size_t w = p->nraw;
    const fn_records *r = &b->recs[slot];
    if (kind == REC_CALLS) {
        const call_list *c = &r->calls;
        size_t at = nb->call_at[slot];
        memcpy(p->calls + at, c->v, c->n * sizeof *c->v);
        memcpy(b->call_guessed + at, c->guessed, c->n);
        if (w) memcpy(costs_row(&p->call_costs, w, at), c->costs, c->n * w * sizeof(cg_cost));
    } else {
        memcpy(p->jumps + nb->jump_at[slot], r->jumps.v, r->jumps.n * sizeof *r->jumps.v);
    }
}

/* The lists of a segment the walk finds, slot + 1 in b->recs, or 0: only a list's own
 * segment (not one it left when it grew) is copied. */
static uint32_t live(const numbering *nb, int kind, uint32_t owner, const void *records) {
    const builder *b = nb->b;
    if (owner >= b->rec_of_cap || !b->rec_of[owner]) return 0;
    uint32_t slot = b->rec_of[owner];
    const fn_records *r = &b->recs[slot - 1];
    return (kind == REC_CALLS ? r->calls.v == records : kind == REC_JUMPS && r->jumps.v == records)
               ? slot
               : 0;
}

static void number_list(void *ctx, int kind, uint32_t owner, const void *records) {
    numbering *nb = ctx;
    uint32_t slot = live(nb, kind, owner, records);
    if (slot) number_copy(nb, kind, slot - 1);
}

/* The pool's blocks cut into ranges, one per thread of the numbering. */
typedef struct drain {
    rec_pool *pool;
    size_t parts;
    numbering *nb;
} drain;

static void drain_part(void *ctx, size_t k) {
    drain *d = ctx;
    size_t n = d->pool->nblocks;
    rec_pool_drain_blocks(d->pool, n * k / d->parts, n * (k + 1) / d->parts, number_list, d->nb);
}

/* Room for `need` records of `size` bytes in an array build_number fills, by `exact` rows or
 * growing as vec.h grows, written at once in huge pages where the kernel lends them. -1 when out
 * of memory. */
static int numbered_reserve(void **data, size_t *cap, size_t need, size_t size, int exact) {
    if (need <= *cap) return 0;
    if (need > SIZE_MAX / size) return -1;
    if (!exact) return vec_reserve(data, cap, need, size);
    void *v = realloc(*data, need * size);
    if (!v) return -1;
    *data = v;
    *cap = need;
    pages_hint(v, need * size);
    return 0;
}

status build_number(builder *b, int threads) {
    enum { MIN_BLOCKS_EACH = 4 };
    cg_profile *p = b->p;
    size_t calls = p->ncalls, jumps = p->njumps, w = p->nraw;
    numbering nb;
    memset(&nb, 0, sizeof nb);
    nb.b = b;
    size_t n = b->nrecs ? b->nrecs : 1;
    nb.call_at = malloc(n * sizeof *nb.call_at);
    nb.jump_at = malloc(n * sizeof *nb.jump_at);
    status rc = ST_NOMEM;
    if (!nb.call_at || !nb.jump_at) goto done;
    /* function by function: calls by caller, jumps by function, after any numbered before */
    for (size_t f = 0; f < b->rec_of_cap; f++) {
        if (!b->rec_of[f]) continue;
        uint32_t slot = b->rec_of[f] - 1;
        /* past IDXTAB_MAX_RECORDS (below) these are never read */
        nb.call_at[slot] = (uint32_t)calls;
        nb.jump_at[slot] = (uint32_t)jumps;
        calls += b->recs[slot].calls.n;
        jumps += b->recs[slot].jumps.n;
    }
    if (calls > IDXTAB_MAX_RECORDS || jumps > IDXTAB_MAX_RECORDS) goto done;
    /* no function is added any more: its index and the lists' lookup tables go before the
     * arrays fill */
    free_function_index(b);
    drop_tables(b);
    drain d = {&b->pool, parts_for(threads, b->pool.nblocks, MIN_BLOCKS_EACH), &nb};
    if (numbered_reserve((void **)&p->calls, &p->calls_cap, calls, sizeof *p->calls, 0) ||
        VEC_RESERVE(b->call_guessed, b->call_guessed_cap, calls) ||
        numbered_reserve((void **)&p->call_costs.v, &p->call_costs.cap, calls,
                         (w ? w : 1) * sizeof(cg_cost), 1) ||
        numbered_reserve((void **)&p->jumps, &p->jumps_cap, jumps, sizeof *p->jumps, 0))
        goto done;
    /* the pool's blocks in order, each given back once its lists are copied, so that the
     * records are not held twice for long; the lists go to places known ahead, so threads copy
     * disjoint ranges of blocks at once */
    parts_run(d.parts, drain_part, &d);
    rec_pool_clear(&b->pool, 0);
    drop_lists(b);
    p->ncalls = calls;
    p->njumps = jumps;
    p->call_costs.rows = calls;
    rc = ST_OK;
done:
    free(nb.call_at);
    free(nb.jump_at);
    return rc;
}

/* ---- events ---- */

status build_event(builder *b, const char *name, size_t len, uint32_t *ev) {
    cg_profile *p = b->p;
    uint32_t sid;
    if (build_string(b, name, len, &sid)) return ST_NOMEM;
    for (size_t i = 0; i < p->nraw; i++) {
        if (p->events[i].name == sid) {
            *ev = (uint32_t)i;
            return ST_OK;
        }
    }
    if (p->nraw >= MAX_RAW_EVENTS) return ST_LIMIT;
    if (VEC_RESERVE(p->events, p->events_cap, p->nraw + 1)) return ST_NOMEM;
    size_t old = p->nraw, wide = p->nraw + 1;
    cost_array *arrays[] = {&p->fn_self, &p->call_costs, &p->section_costs, &p->section_summary,
                            &p->section_totals};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        if (costs_restride(arrays[i], old, wide)) return ST_NOMEM;
    /* the calls kept per function widen with them */
    for (size_t f = 0; f < b->nrecs; f++)
        if (call_list_restride(&b->recs[f].calls, &b->pool, old, wide)) return ST_NOMEM;
    memset(&p->events[old], 0, sizeof p->events[old]);
    p->events[old].name = sid;
    p->nraw = p->nevents = wide;
    *ev = (uint32_t)old;
    return ST_OK;
}

/* ---- sections ---- */

status build_section_open(builder *b, uint32_t source, uint64_t first_line) {
    cg_profile *p = b->p;
    size_t row;
    if (VEC_RESERVE(p->sections, p->sections_cap, p->nsections + 1) ||
        costs_add_row(&p->section_costs, p->nraw, &row) ||
        costs_add_row(&p->section_summary, p->nraw, &row) ||
        costs_add_row(&p->section_totals, p->nraw, &row))
        return ST_NOMEM;
    section_rec *s = &p->sections[p->nsections];
    memset(s, 0, sizeof *s);
    s->source = source;
    s->first_line = first_line;
    s->header_begin = s->header_end = (uint32_t)p->nheaders;
    s->events_begin = s->events_end = (uint32_t)p->nsection_events;
    b->section = p->nsections++;
    b->sections_read++;
    return ST_OK;
}

status build_header(builder *b, uint32_t key, uint32_t value) {
    cg_profile *p = b->p;
    if (VEC_RESERVE(p->headers, p->headers_cap, p->nheaders + 1)) return ST_NOMEM;
    p->headers[p->nheaders].key = key;
    p->headers[p->nheaders].value = value;
    p->nheaders++;
    p->sections[b->section].header_end = (uint32_t)p->nheaders;
    return ST_OK;
}

status build_section_events(builder *b, const uint32_t *events, size_t n) {
    cg_profile *p = b->p;
    section_rec *sec = &p->sections[b->section];
    p->nsection_events = sec->events_begin; /* the open section's list is always last */
    if (VEC_RESERVE(p->section_events, p->section_events_cap, p->nsection_events + n))
        return ST_NOMEM;
    if (n) memcpy(p->section_events + p->nsection_events, events, n * sizeof *events);
    p->nsection_events += n;
    sec->events_end = (uint32_t)p->nsection_events;
    return ST_OK;
}

void build_section_positions(builder *b, unsigned mask) {
    b->p->sections[b->section].positions = mask;
}

cg_cost *build_section_row(builder *b, int which) {
    cg_profile *p = b->p;
    cost_array *rows = which == SEC_SUMMARY  ? &p->section_summary
                       : which == SEC_TOTALS ? &p->section_totals
                                             : &p->section_costs;
    return costs_row(rows, p->nraw, b->section);
}

void build_section_mark(builder *b, int which, uint64_t line) {
    section_rec *sec = &b->p->sections[b->section];
    if (which == SEC_SUMMARY) {
        sec->has_summary = 1;
        sec->summary_line = line;
    } else if (which == SEC_TOTALS) {
        sec->has_totals = 1;
        sec->totals_line = line;
    }
}

int build_section_has_header(const builder *b, const char *key, size_t klen) {
    const cg_profile *p = b->p;
    const section_rec *sec = &p->sections[b->section];
    for (uint32_t h = sec->header_begin; h < sec->header_end; h++) {
        uint32_t id = p->headers[h].key;
        if (strtab_len(&p->strings, id) == klen && !memcmp(strtab_get(&p->strings, id), key, klen))
            return 1;
    }
    return 0;
}

int build_section_has_totals(const builder *b) {
    return b->p->sections[b->section].has_totals;
}

/* A numeric header of the open section (part:, thread:), 1 when absent. */
static uint64_t header_number(const builder *b, const char *key) {
    const cg_profile *p = b->p;
    const section_rec *sec = &p->sections[b->section];
    for (uint32_t h = sec->header_begin; h < sec->header_end; h++) {
        if (strcmp(strtab_get(&p->strings, p->headers[h].key), key) == 0)
            return strtoull(strtab_get(&p->strings, p->headers[h].value), NULL, 10);
    }
    return 1;
}

int build_section_chosen(const builder *b) {
    const section_choice *c = &b->choice;
    if (c->section && c->section != b->sections_read) return 0;
    if (c->part && header_number(b, "part") != c->part) return 0;
    if (c->thread && header_number(b, "thread") != c->thread) return 0;
    return 1;
}

/* The part and thread of every section read, for the error when the options keep none. */
static status remember_section_ids(builder *b) {
    const section_choice *c = &b->choice;
    if (!c->section && !c->part && !c->thread) return ST_OK;
    size_t i = b->sections_read - 1;
    if (VEC_RESERVE(b->read_ids, b->read_ids_cap, i + 1)) return ST_NOMEM;
    b->read_ids[i][0] = header_number(b, "part");
    b->read_ids[i][1] = header_number(b, "thread");
    return ST_OK;
}

status build_section_close(builder *b, int keep) {
    cg_profile *p = b->p;
    if (b->section == CG_NONE) return ST_OK;
    if (remember_section_ids(b)) return ST_NOMEM;
    const section_rec *sec = &p->sections[b->section];
    if (keep) {
        p->positions |= sec->positions; /* the final positions of every section */
    } else {
        p->nheaders = sec->header_begin;
        p->nsection_events = sec->events_begin;
        p->section_costs.rows--;
        p->section_summary.rows--;
        p->section_totals.rows--;
        p->nsections--;
    }
    b->section = CG_NONE;
    return ST_OK;
}

/* The first event whose two cost rows differ, and how many do, among the section's events. */
static size_t first_difference(const cg_profile *p, const section_rec *sec, const cg_cost *a,
                               const cg_cost *x, size_t *count) {
    size_t first = CG_NONE;
    *count = 0;
    for (uint32_t i = sec->events_begin; i < sec->events_end; i++) {
        uint32_t ev = p->section_events[i];
        if (a[ev] == x[ev]) continue;
        if (first == CG_NONE) first = ev;
        ++*count;
    }
    return first;
}

/* totals: or summary: against the costs read: a doubt, never a stop (some writers round). */
static int check_row(const cg_profile *p, const section_rec *sec, const cg_cost *given,
                     const cg_cost *sum, const char *label, uint64_t line, const fault_site *site) {
    for (uint32_t i = sec->events_begin; i < sec->events_end; i++) {
        uint32_t ev = p->section_events[i];
        if (given[ev] != sum[ev] &&
            fault_warn(site, line, "%s %s is %lld but the section's costs sum to %lld", label,
                       strtab_get(&p->strings, p->events[ev].name), (long long)given[ev],
                       (long long)sum[ev]))
            return -1;
    }
    return 0;
}

/* A section without totals: at the end of an input callgrind wrote: callgrind ends every part
 * with that line, so the input was cut short, and the costs read are only part of the run. A
 * fault (strict loads stop), not a doubt: every share computed from them would be wrong. */
static int truncated(const cg_profile *p, const section_rec *sec, size_t s, uint64_t line,
                     const fault_site *site) {
    const char *what = "the input ends before the totals: line that callgrind writes last, so it "
                       "looks truncated";
    size_t count;
    const cg_cost *summary = costs_row(&p->section_summary, p->nraw, s);
    const cg_cost *sum = costs_row(&p->section_costs, p->nraw, s);
    size_t ev = sec->has_summary ? first_difference(p, sec, summary, sum, &count) : CG_NONE;
    if (ev == CG_NONE) return fault(site, CG_ERR_FORMAT, line, "%s", what);
    return fault(site, CG_ERR_FORMAT, line, "%s (summary: %s is %lld, the costs read sum to %lld)",
                 what, strtab_get(&p->strings, p->events[ev].name), (long long)summary[ev],
                 (long long)sum[ev]);
}

int build_section_check(const builder *b, size_t s, int cut, uint64_t line,
                        const fault_site *site) {
    const cg_profile *p = b->p;
    const section_rec *sec = &p->sections[s];
    const cg_cost *sum = costs_row(&p->section_costs, p->nraw, s);
    if (sec->has_totals)
        return check_row(p, sec, costs_row(&p->section_totals, p->nraw, s), sum,
                         "totals:", sec->totals_line, site);
    if (cut) return truncated(p, sec, s, line, site);
    /* callgrind's summary: counts the thread's events and may exceed the costs it writes, so
     * totals: is the one compared when both are there */
    if (sec->has_summary)
        return check_row(p, sec, costs_row(&p->section_summary, p->nraw, s), sum,
                         "summary:", sec->summary_line, site);
    return 0;
}
