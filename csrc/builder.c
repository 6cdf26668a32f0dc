/* builder.c - adds records to the model under construction, merging records with equal
 * identity: a function is (name, file, object); a line cost (function, file, line, address);
 * a call (caller, callee, call site); a jump (function, source, target, kind). */
#include <string.h>

#include "hash.h"
#include "loader.h"
#include "vec.h"

/* ---- cost arrays ---- */

int costs_add_row(cost_array *a, size_t stride, size_t *row_out) {
    size_t need = a->rows + 1;
    if (need > a->cap) {
        size_t ncap = a->cap < 16 ? 16 : a->cap + a->cap / 2;
        size_t width = stride ? stride : 1;
        if (ncap > SIZE_MAX / sizeof(cg_cost) / width) return -1;
        cg_cost *v = realloc(a->v, ncap * width * sizeof(cg_cost));
        if (!v) return -1;
        a->v = v;
        a->cap = ncap;
    }
    memset(a->v + a->rows * stride, 0, stride * sizeof(cg_cost));
    *row_out = a->rows++;
    return 0;
}

int costs_restride(cost_array *a, size_t old_stride, size_t new_stride) {
    if (!a->cap) return 0;
    if (a->cap > SIZE_MAX / sizeof(cg_cost) / new_stride) return -1;
    cg_cost *v = realloc(a->v, a->cap * new_stride * sizeof(cg_cost));
    if (!v) return -1;
    a->v = v;
    /* widen in place from the last row down, so no row is overwritten before it moves */
    for (size_t r = a->rows; r-- > 0;) {
        memmove(v + r * new_stride, v + r * old_stride, old_stride * sizeof(cg_cost));
        memset(v + r * new_stride + old_stride, 0, (new_stride - old_stride) * sizeof(cg_cost));
    }
    return 0;
}

void costs_free(cost_array *a) {
    free(a->v);
    memset(a, 0, sizeof *a);
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

void build_shrink(cg_loader *ld) {
    cg_profile *p = ld->p;
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

int64_t build_function(cg_loader *ld, uint32_t name, uint32_t file, uint32_t object) {
    cg_profile *p = ld->p;
    /* most calls go to a few callees: a small direct-mapped cache spares the hash probe */
    fn_cache_entry *cached = &ld->fn_cache[((name * 0x9e3779b1u) ^ (file * 0x85ebca6bu) ^ object) >>
                                           (32 - FN_CACHE_BITS)];
    if (cached->fn && cached->name == name && cached->file == file && cached->object == object)
        return cached->fn - 1;
    fn_rec key = {name, file, object, NO_INDEX, 0};
    uint32_t tag =
        (uint32_t)hash_mix(hash_combine(hash_combine(hash_combine(ld->seed, name), file), object));
    size_t slot;
    int64_t found = idxtab_find(&ld->fn_index, tag, fn_eq, p, &key, &slot);
    if (found >= 0) {
        *cached = (fn_cache_entry){name, file, object, (uint32_t)found + 1};
        return found;
    }
    size_t row;
    if (idxtab_grow(&ld->fn_index) || VEC_RESERVE(p->fns, p->fns_cap, p->nfns + 1) ||
        VEC_RESERVE(ld->fn_defined, ld->fn_defined_cap, p->nfns + 1) ||
        VEC_RESERVE(p->line_stores, p->line_stores_cap, p->nfns + 1) ||
        VEC_RESERVE(ld->cursors, ld->cursors_cap, p->nfns + 1) ||
        costs_add_row(&p->fn_self, p->nraw, &row))
        return -1;
    fn_cursor *cur = &ld->cursors[p->nfns];
    cur->first_call = cur->last_call = cur->next_call = NO_INDEX;
    cur->first_jump = cur->last_jump = cur->next_jump = NO_INDEX;
    (void)idxtab_find(&ld->fn_index, tag, fn_eq, p, &key, &slot);
    p->fns[p->nfns] = key;
    ld->fn_defined[p->nfns] = 0;
    memset(&p->line_stores[p->nfns], 0, sizeof p->line_stores[p->nfns]);
    idxtab_put(&ld->fn_index, slot, tag, (uint32_t)p->nfns);
    *cached = (fn_cache_entry){name, file, object, (uint32_t)p->nfns + 1};
    return (int64_t)p->nfns++;
}

int build_defined(cg_loader *ld, uint32_t fn) {
    ld->fn_defined[fn] = 1;
    /* the block of another function begins: the last one's records are most likely complete */
    if (ld->block_fn != NO_INDEX && ld->block_fn != fn)
        line_leave(&ld->p->line_stores[ld->block_fn]);
    ld->block_fn = fn;
    /* a new block of the function: expect its calls and jumps in the order seen before */
    fn_cursor *cur = &ld->cursors[fn];
    cur->next_call = cur->first_call;
    cur->next_jump = cur->first_jump;
    return 0;
}

/* ---- line costs ---- */

int build_line(cg_loader *ld, uint32_t fn, uint32_t file, uint64_t line, uint64_t addr,
               const cg_cost *costs, size_t n) {
    cg_profile *p = ld->p;
    if (row_add(costs_row(&p->fn_self, p->nraw, fn), costs, n)) return -2;
    int rc = line_append(&p->line_stores[fn], file, line, addr, costs, n, &p->strings, p->nraw,
                         &ld->scratch);
    return rc == LINES_OK ? 0 : rc == LINES_OVERFLOW ? -2 : -1;
}

/* ---- calls ---- */

static int call_eq(const void *ctx, uint32_t index, const void *key) {
    const call_rec *a = &((const cg_profile *)ctx)->calls[index];
    const call_rec *b = key;
    return a->line == b->line && a->addr == b->addr && a->caller == b->caller &&
           a->callee == b->callee && a->file == b->file;
}

int build_call(cg_loader *ld, const call_rec *key, int guessed, cg_cost **row_out) {
    cg_profile *p = ld->p;
    fn_cursor *cur = &ld->cursors[key->caller];
    int64_t found = -1;
    size_t slot = 0;
    uint32_t tag = 0;
    if (cur->next_call != NO_INDEX && call_eq(p, cur->next_call, key)) {
        found = cur->next_call;
    } else {
        uint64_t h =
            hash_combine(hash_combine(hash_combine(ld->seed, key->caller), key->callee), key->file);
        tag = (uint32_t)hash_mix(hash_combine(hash_combine(h, key->line), key->addr));
        found = idxtab_find(&ld->call_index, tag, call_eq, p, key, &slot);
    }
    if (found >= 0) {
        cur->next_call = ld->call_next[found];
        *row_out = costs_row(&p->call_costs, p->nraw, (size_t)found);
        /* one occurrence that names the callee's file settles it */
        ld->call_guessed[found] &= (unsigned char)guessed;
        return count_add(&p->calls[found].count, key->count);
    }
    size_t row;
    if (idxtab_grow(&ld->call_index) || VEC_RESERVE(p->calls, p->calls_cap, p->ncalls + 1) ||
        VEC_RESERVE(ld->call_guessed, ld->call_guessed_cap, p->ncalls + 1) ||
        VEC_RESERVE(ld->call_next, ld->call_next_cap, p->ncalls + 1) ||
        costs_add_row(&p->call_costs, p->nraw, &row))
        return -2;
    uint32_t c = (uint32_t)p->ncalls;
    ld->call_guessed[c] = (unsigned char)guessed;
    ld->call_next[c] = NO_INDEX;
    if (cur->last_call != NO_INDEX)
        ld->call_next[cur->last_call] = c;
    else
        cur->first_call = c;
    cur->last_call = c;
    cur->next_call = NO_INDEX;
    (void)idxtab_find(&ld->call_index, tag, call_eq, p, key, &slot);
    p->calls[c] = *key;
    idxtab_put(&ld->call_index, slot, tag, c);
    p->ncalls++;
    *row_out = costs_row(&p->call_costs, p->nraw, row);
    return 0;
}

/* ---- jumps ---- */

static int jump_eq(const void *ctx, uint32_t index, const void *key) {
    const jump_rec *a = &((const cg_profile *)ctx)->jumps[index];
    const jump_rec *b = key;
    return a->fn == b->fn && a->from_file == b->from_file && a->from_line == b->from_line &&
           a->from_addr == b->from_addr && a->to_fn == b->to_fn && a->to_file == b->to_file &&
           a->to_line == b->to_line && a->to_addr == b->to_addr && a->conditional == b->conditional;
}

int build_jump(cg_loader *ld, const jump_rec *key) {
    cg_profile *p = ld->p;
    fn_cursor *cur = &ld->cursors[key->fn];
    int64_t found = -1;
    size_t slot = 0;
    uint32_t tag = 0;
    if (cur->next_jump != NO_INDEX && jump_eq(p, cur->next_jump, key)) {
        found = cur->next_jump;
    } else {
        uint64_t h = hash_combine(hash_combine(hash_combine(ld->seed, key->fn), key->from_file),
                                  key->from_line);
        h = hash_combine(hash_combine(h, key->from_addr), key->to_fn);
        h = hash_combine(hash_combine(h, key->to_file), key->to_line);
        h = hash_combine(hash_combine(h, key->to_addr), (uint64_t)key->conditional);
        tag = (uint32_t)hash_mix(h);
        found = idxtab_find(&ld->jump_index, tag, jump_eq, p, key, &slot);
    }
    if (found >= 0) {
        cur->next_jump = ld->jump_next[found];
        jump_rec *j = &p->jumps[found];
        return count_add(&j->executed, key->executed) | count_add(&j->taken, key->taken);
    }
    if (idxtab_grow(&ld->jump_index) || VEC_RESERVE(p->jumps, p->jumps_cap, p->njumps + 1) ||
        VEC_RESERVE(ld->jump_next, ld->jump_next_cap, p->njumps + 1))
        return -2;
    uint32_t j = (uint32_t)p->njumps;
    ld->jump_next[j] = NO_INDEX;
    if (cur->last_jump != NO_INDEX)
        ld->jump_next[cur->last_jump] = j;
    else
        cur->first_jump = j;
    cur->last_jump = j;
    cur->next_jump = NO_INDEX;
    (void)idxtab_find(&ld->jump_index, tag, jump_eq, p, key, &slot);
    p->jumps[j] = *key;
    idxtab_put(&ld->jump_index, slot, tag, j);
    p->njumps++;
    return 0;
}

/* ---- events and sections ---- */

int64_t build_event(cg_loader *ld, const char *name, size_t len) {
    cg_profile *p = ld->p;
    int64_t sid = strtab_intern(&p->strings, name, len);
    if (sid < 0) return -1;
    for (size_t i = 0; i < p->nraw; i++)
        if (p->events[i].name == (uint32_t)sid) return (int64_t)i;
    if (p->nraw >= MAX_RAW_EVENTS) return -2;
    if (VEC_RESERVE(p->events, p->events_cap, p->nraw + 1)) return -1;
    size_t old = p->nraw, wide = p->nraw + 1;
    cost_array *arrays[] = {&p->fn_self, &p->call_costs, &p->section_costs, &p->section_summary,
                            &p->section_totals};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        if (costs_restride(arrays[i], old, wide)) return -1;
    memset(&p->events[old], 0, sizeof p->events[old]);
    p->events[old].name = (uint32_t)sid;
    p->nraw = p->nevents = wide;
    return (int64_t)old;
}

int build_section(cg_loader *ld, uint32_t source, uint64_t first_line) {
    cg_profile *p = ld->p;
    size_t row;
    if (VEC_RESERVE(p->sections, p->sections_cap, p->nsections + 1) ||
        costs_add_row(&p->section_costs, p->nraw, &row) ||
        costs_add_row(&p->section_summary, p->nraw, &row) ||
        costs_add_row(&p->section_totals, p->nraw, &row))
        return -1;
    section_rec *s = &p->sections[p->nsections++];
    memset(s, 0, sizeof *s);
    s->source = source;
    s->first_line = first_line;
    s->header_begin = s->header_end = (uint32_t)p->nheaders;
    s->events_begin = s->events_end = (uint32_t)p->nsection_events;
    return 0;
}

int build_header(cg_loader *ld, uint32_t key, uint32_t value) {
    cg_profile *p = ld->p;
    if (VEC_RESERVE(p->headers, p->headers_cap, p->nheaders + 1)) return -1;
    p->headers[p->nheaders].key = key;
    p->headers[p->nheaders].value = value;
    p->nheaders++;
    p->sections[p->nsections - 1].header_end = (uint32_t)p->nheaders;
    return 0;
}
