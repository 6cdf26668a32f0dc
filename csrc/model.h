/* model.h - the in-memory model behind cg_profile: flat record arrays that refer to each other
 * by index, costs in separate arrays `raw event count` values wide. Shared by the builder
 * (which fills it while parsing), the analysis (which completes it) and the accessors. */
#ifndef CG_MODEL_H
#define CG_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "callgrind.h"
#include "hash.h"
#include "idxtab.h"
#include "lines.h"
#include "strtab.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

#define NO_INDEX UINT32_MAX
/* Raw events per profile: far above any real writer (KCachegrind allows 200), low enough that
 * a hostile `events:` line cannot make every cost row huge. */
#define MAX_RAW_EVENTS CG_MAX_EVENTS

typedef struct fn_rec {
    uint32_t name, file, object; /* string ids: the identity of a function */
    uint32_t cycle;              /* cycle index or NO_INDEX */
    uint64_t called;
} fn_rec;

typedef struct call_rec {
    uint32_t caller, callee, file;
    uint64_t line, addr;
    uint64_t count;
    uint64_t target_line, target_addr;
} call_rec;

/* 64 bytes, a cache line: whether the jump is conditional takes the bit a file id leaves (string
 * ids are below 2^31, as every index of an idxtab). */
typedef struct jump_rec {
    uint32_t fn, from_file, to_fn;
    uint32_t to_file : 31;
    uint32_t conditional : 1;
    uint64_t from_line, from_addr, to_line, to_addr;
    uint64_t executed, taken;
} jump_rec;
_Static_assert(sizeof(jump_rec) == 64, "a jump takes a cache line");

/* A call's identity (caller, callee, call site): equal calls are one record, counts summed. */
static inline uint32_t call_rec_hash(uint64_t seed, const call_rec *k) {
    uint64_t h = hash_combine(hash_combine(hash_combine(seed, k->caller), k->callee), k->file);
    return (uint32_t)hash_mix(hash_combine(hash_combine(h, k->line), k->addr));
}
static inline int call_rec_same(const call_rec *a, const call_rec *b) {
    return a->line == b->line && a->addr == b->addr && a->caller == b->caller &&
           a->callee == b->callee && a->file == b->file;
}

/* A jump's identity (function, source, target, kind): equal jumps are one record. */
static inline uint32_t jump_rec_hash(uint64_t seed, const jump_rec *k) {
    uint64_t h = hash_combine(hash_combine(hash_combine(seed, k->fn), k->from_file), k->from_line);
    h = hash_combine(hash_combine(h, k->from_addr), k->to_fn);
    h = hash_combine(hash_combine(h, k->to_file), k->to_line);
    h = hash_combine(hash_combine(h, k->to_addr), (uint64_t)k->conditional);
    return (uint32_t)hash_mix(h);
}
static inline int jump_rec_same(const jump_rec *a, const jump_rec *b) {
    return a->fn == b->fn && a->from_file == b->from_file && a->from_line == b->from_line &&
           a->from_addr == b->from_addr && a->to_fn == b->to_fn && a->to_file == b->to_file &&
           a->to_line == b->to_line && a->to_addr == b->to_addr && a->conditional == b->conditional;
}

typedef struct header_rec {
    uint32_t key, value; /* string ids */
} header_rec;

typedef struct section_rec {
    uint32_t source;                   /* string id of the input name */
    uint64_t first_line;               /* line of its first header or body line */
    uint32_t header_begin, header_end; /* range in header_recs */
    uint32_t events_begin, events_end; /* range in section_events */
    unsigned positions;
    int has_summary, has_totals;
    uint64_t totals_line, summary_line; /* where they were, for the consistency checks */
} section_rec;

typedef struct term {
    cg_cost coefficient;
    uint32_t event; /* raw event index */
} term;

typedef struct event_rec {
    uint32_t name, long_name, formula; /* string ids; formula 0 = raw */
    uint32_t terms_begin, terms_end;   /* derived events: linear combination of raw events */
    int builtin; /* one of KCachegrind's known formulas, which loading adds by itself */
} event_rec;

/* A growable array of cost rows, `stride` values each. */
typedef struct cost_array {
    cg_cost *v;
    size_t rows, cap; /* cap in rows */
} cost_array;

struct cg_profile {
    strtab strings;

    size_t nraw;   /* cost row width */
    int no_cycles; /* cg_options.no_cycles of the load that made it */
    event_rec *events;
    size_t nevents, events_cap;
    term *terms;
    size_t nterms, terms_cap;

    fn_rec *fns;
    size_t nfns, fns_cap;
    call_rec *calls;
    size_t ncalls, calls_cap;
    line_store *line_stores; /* one per function: its line or instruction records */
    size_t line_stores_cap;
    block_regions *blocks; /* where the streams' blocks are (NULL: all from malloc) */
    jump_rec *jumps;
    size_t njumps, jumps_cap;
    section_rec *sections;
    size_t nsections, sections_cap;
    header_rec *headers;
    size_t nheaders, headers_cap;
    uint32_t *section_events;
    size_t nsection_events, section_events_cap;

    cost_array call_costs;
    cost_array section_costs, section_summary, section_totals;
    cost_array fn_self, fn_incl, cycle_self, cycle_incl;
    cg_cost *total;
    unsigned positions;

    /* Filled by the analysis: CSR indexes (begin offsets, count + 1 entries) into index arrays. */
    uint32_t *callee_begin, *callee_index;
    uint32_t *caller_begin, *caller_index;
    uint32_t *jump_begin, *jump_index;
    uint32_t *jump_in_begin, *jump_in_index; /* jumps by target function (jfn=) */
    uint32_t *cycle_begin, *cycle_members;
    size_t ncycles;
    uint32_t *cycle_names; /* string ids */
    uint32_t *name_order;  /* function indexes sorted by name: made by the first lookup */

    char **warnings;
    size_t nwarnings, warnings_cap, max_warnings;
    uint64_t warnings_dropped;

    /* Built on first use by file_index.c (cg_file_index_get), freed with the profile. */
    cg_file_index *file_index;
};

/* file_index.c: frees an index; the string id of its k-th file. */
void file_index_free(cg_file_index *x);
uint32_t file_index_string(const cg_file_index *x, size_t k);

/* Cost arrays (profile.c): rows grow; the stride of all arrays grows together when a new event
 * appears. */
int costs_add_row(cost_array *a, size_t stride, size_t *row_out);
int costs_restride(cost_array *a, size_t old_stride, size_t new_stride);
static inline cg_cost *costs_row(const cost_array *a, size_t stride, size_t row) {
    return a->v + row * stride;
}
void costs_free(cost_array *a);

/* Checked 64-bit sums: return 0, or -1 on overflow (the target then saturates). */
static inline int cost_add(cg_cost *acc, cg_cost v) {
    cg_cost r;
    if (__builtin_add_overflow(*acc, v, &r)) {
        *acc = v > 0 ? INT64_MAX : INT64_MIN;
        return -1;
    }
    *acc = r;
    return 0;
}
static inline int row_add(cg_cost *acc, const cg_cost *v, size_t n) {
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad |= cost_add(&acc[i], v[i]);
    return bad;
}
/* Whether a cost is below zero: a split load's pieces take none (with none every sum only grows,
 * so one that fits in a piece and in the model fitted at every line on one thread too). */
static inline int any_negative(const cg_cost *v, size_t n) {
    cg_cost any = 0;
    for (size_t i = 0; i < n; i++) any |= v[i];
    return any < 0;
}
static inline int count_add(uint64_t *acc, uint64_t v) {
    if (__builtin_add_overflow(*acc, v, acc)) {
        *acc = UINT64_MAX;
        return -1;
    }
    return 0;
}

/* profile.c */
cg_profile *profile_new(uint64_t seed);
/* The functions in name order (name_order.h), made on first use; NULL when out of memory. */
const uint32_t *profile_name_order(cg_profile *p);
/* Records a warning (kept up to max_warnings, then only counted); -1 when out of memory. */
int profile_warn(cg_profile *p, const char *message);

#pragma GCC visibility pop

#endif
