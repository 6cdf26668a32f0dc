/* profile.c - lifetime of the model, its cost arrays and the read-only accessors of
 * callgrind.h. Accessors trust their indexes the way array subscripts do; callers check them
 * against the counts. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "name_order.h"
#include "vec.h"

/* ---- cost arrays ---- */

int costs_add_row(cost_array *a, size_t stride, size_t *row_out) {
    size_t need = a->rows + 1;
    if (need > a->cap) {
        size_t width = stride ? stride : 1;
        if (width > SIZE_MAX / sizeof(cg_cost) ||
            vec_reserve_append((void **)&a->v, &a->cap, a->rows, need, width * sizeof(cg_cost)))
            return -1;
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

cg_profile *profile_new(uint64_t seed) {
    cg_profile *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (strtab_init(&p->strings, seed)) {
        free(p);
        return NULL;
    }
    p->blocks = block_regions_new(); /* without it (no memory), the blocks come from malloc */
    return p;
}

void cg_profile_free(cg_profile *p) {
    if (!p) return;
    strtab_free(&p->strings);
    void *arrays[] = {p->calls,         p->jumps,        p->events,       p->terms,
                      p->fns,           p->sections,     p->headers,      p->section_events,
                      p->total,         p->callee_begin, p->callee_index, p->caller_begin,
                      p->caller_index,  p->jump_begin,   p->jump_index,   p->cycle_begin,
                      p->cycle_members, p->cycle_names,  p->name_order,   p->jump_in_begin,
                      p->jump_in_index};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) free(arrays[i]);
    cost_array *costs[] = {&p->call_costs,     &p->section_costs, &p->section_summary,
                           &p->section_totals, &p->fn_self,       &p->fn_incl,
                           &p->cycle_self,     &p->cycle_incl};
    for (size_t i = 0; i < sizeof costs / sizeof *costs; i++) costs_free(costs[i]);
    for (size_t f = 0; f < p->nfns && p->line_stores; f++)
        line_store_free(&p->line_stores[f], NULL);
    free(p->line_stores);
    block_regions_free(p->blocks);
    for (size_t i = 0; i < p->nwarnings; i++) free(p->warnings[i]);
    free(p->warnings);
    file_index_free(p->file_index);
    free(p);
}

/* What the model holds in malloc, from the capacities of its arrays: the collector of an
 * embedding language is told this much, so that it frees dropped profiles in time. */
size_t cg_profile_bytes(const cg_profile *p) {
    size_t n = p->events_cap * sizeof *p->events + p->terms_cap * sizeof *p->terms +
               p->fns_cap * sizeof *p->fns + p->calls_cap * sizeof *p->calls +
               p->jumps_cap * sizeof *p->jumps + p->sections_cap * sizeof *p->sections +
               p->headers_cap * sizeof *p->headers +
               p->section_events_cap * sizeof *p->section_events +
               p->line_stores_cap * sizeof *p->line_stores;
    const cost_array *costs[] = {&p->call_costs,     &p->section_costs, &p->section_summary,
                                 &p->section_totals, &p->fn_self,       &p->fn_incl,
                                 &p->cycle_self,     &p->cycle_incl};
    for (size_t i = 0; i < sizeof costs / sizeof *costs; i++)
        n += costs[i]->cap * p->nraw * sizeof(cg_cost);
    /* the call graph indexes: begin offsets per function, one entry per call or jump */
    n += (4 * (p->nfns + 2) + 2 * p->ncalls + 2 * p->njumps + p->nfns) * sizeof(uint32_t);
    if (p->name_order) n += p->nfns * sizeof *p->name_order;
    /* the streams' blocks of malloc, and the regions that hold the others */
    for (size_t f = 0; f < p->nfns; f++)
        if (!p->line_stores[f].heaped) n += line_store_bytes(&p->line_stores[f]);
    if (p->blocks) n += block_regions_bytes(p->blocks);
    n += p->strings.mem.allocated + p->strings.cap * sizeof *p->strings.entries +
         (p->strings.index.mask ? (p->strings.index.mask + 1) * sizeof(uint64_t) : 0);
    return n + sizeof *p;
}

int profile_warn(cg_profile *p, const char *message) {
    if (p->nwarnings >= p->max_warnings) {
        p->warnings_dropped++;
        return 0;
    }
    if (VEC_RESERVE(p->warnings, p->warnings_cap, p->nwarnings + 1)) return -1;
    size_t len = strlen(message);
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    memcpy(copy, message, len + 1);
    p->warnings[p->nwarnings++] = copy;
    return 0;
}

#define STR(id) strtab_get(&p->strings, (id))

/* The accessors that read one field: a count, a field of a record, a name (string id) of a
 * record, a cost row. */
#define COUNT_ACCESSOR(type, name, field)                                                          \
    type name(const cg_profile *p) {                                                               \
        return p->field;                                                                           \
    }
#define FIELD_ACCESSOR(type, name, array, field)                                                   \
    type name(const cg_profile *p, size_t i) {                                                     \
        return p->array[i].field;                                                                  \
    }
#define NAME_ACCESSOR(name, array, field)                                                          \
    const char *name(const cg_profile *p, size_t i) {                                              \
        return STR(p->array[i].field);                                                             \
    }
#define ROW_ACCESSOR(name, costs)                                                                  \
    const cg_cost *name(const cg_profile *p, size_t i) {                                           \
        return costs_row(&p->costs, p->nraw, i);                                                   \
    }

/* ---- events ---- */

COUNT_ACCESSOR(size_t, cg_event_count, nevents)
COUNT_ACCESSOR(size_t, cg_raw_event_count, nraw)

const char *cg_event_name(const cg_profile *p, size_t ev) {
    return ev < p->nevents ? strtab_get(&p->strings, p->events[ev].name) : NULL;
}

const char *cg_event_long_name(const cg_profile *p, size_t ev) {
    return ev < p->nevents ? strtab_get(&p->strings, p->events[ev].long_name) : NULL;
}

const char *cg_event_formula(const cg_profile *p, size_t ev) {
    return ev < p->nevents ? strtab_get(&p->strings, p->events[ev].formula) : NULL;
}

size_t cg_event_index(const cg_profile *p, const char *name) {
    size_t len = strlen(name);
    for (size_t i = 0; i < p->nevents; i++) {
        uint32_t id = p->events[i].name;
        if (strtab_len(&p->strings, id) == len && !memcmp(strtab_get(&p->strings, id), name, len))
            return i;
    }
    return CG_NONE;
}

int cg_event_builtin(const cg_profile *p, size_t ev) {
    return ev >= p->nraw && ev < p->nevents && p->events[ev].builtin;
}

int cg_cost_of(const cg_profile *p, const cg_cost *row, size_t ev, cg_cost *out) {
    if (ev < p->nraw) {
        *out = row[ev];
        return CG_OK;
    }
    if (ev >= p->nevents) return CG_ERR_USAGE;
    const event_rec *e = &p->events[ev];
    cg_cost sum = 0;
    for (uint32_t t = e->terms_begin; t < e->terms_end; t++) {
        cg_cost v;
        if (__builtin_mul_overflow(row[p->terms[t].event], p->terms[t].coefficient, &v) ||
            __builtin_add_overflow(sum, v, &sum))
            return CG_ERR_OVERFLOW;
    }
    *out = sum;
    return CG_OK;
}

int cg_profile_cycles_detected(const cg_profile *p) {
    return !p->no_cycles;
}

const cg_cost *cg_total_costs(const cg_profile *p) {
    return p->total;
}
unsigned cg_positions(const cg_profile *p) {
    return p->positions;
}

/* ---- functions ---- */

COUNT_ACCESSOR(size_t, cg_function_count, nfns)
NAME_ACCESSOR(cg_function_name, fns, name)
NAME_ACCESSOR(cg_function_file, fns, file)
NAME_ACCESSOR(cg_function_object, fns, object)
FIELD_ACCESSOR(uint64_t, cg_function_called, fns, called)

size_t cg_function_cycle(const cg_profile *p, size_t fn) {
    return p->fns[fn].cycle == NO_INDEX ? CG_NONE : p->fns[fn].cycle;
}

ROW_ACCESSOR(cg_function_self, fn_self)
ROW_ACCESSOR(cg_function_inclusive, fn_incl)

#define RANGE_ACCESSORS(what, begin, index)                                                        \
    size_t cg_function_##what##_count(const cg_profile *p, size_t fn) {                            \
        return p->begin[fn + 1] - p->begin[fn];                                                    \
    }                                                                                              \
    size_t cg_function_##what(const cg_profile *p, size_t fn, size_t i) {                          \
        return p->index[p->begin[fn] + i];                                                         \
    }

RANGE_ACCESSORS(callee, callee_begin, callee_index)
RANGE_ACCESSORS(caller, caller_begin, caller_index)
FIELD_ACCESSOR(size_t, cg_function_line_count, line_stores, count)
RANGE_ACCESSORS(jump, jump_begin, jump_index)
RANGE_ACCESSORS(jump_in, jump_in_begin, jump_in_index)

/* line_store_scan's callback: stops at the second file of a stream. */
static int second_file(void *ctx, uint32_t file) {
    (void)file;
    return ++*(int *)ctx > 1;
}

const char *cg_function_single_file(const cg_profile *p, size_t fn) {
    int files = 0;
    line_span span;
    if (line_store_scan(&p->line_stores[fn], second_file, &files, &span) || !span.count)
        return NULL;
    return STR(span.file);
}

const uint32_t *profile_name_order(cg_profile *p) {
    if (!p->name_order) p->name_order = name_order_build(p);
    return p->name_order;
}

/* The first function from `from` on, in `order` (or index order when NULL), with that name, file
 * and object, or CG_NONE. */
static size_t match_from(const cg_profile *p, const uint32_t *order, size_t from, const char *name,
                         const char *file, const char *object, size_t after) {
    int passed = after == CG_NONE;
    for (size_t i = from; i < p->nfns; i++) {
        size_t fn = order ? order[i] : i;
        const fn_rec *f = &p->fns[fn];
        if (strcmp(STR(f->name), name) != 0) {
            if (order) break;
            continue;
        }
        if (!passed) {
            passed = fn == after;
            continue;
        }
        if (file && strcmp(STR(f->file), file) != 0) continue;
        if (object && strcmp(STR(f->object), object) != 0) continue;
        return fn;
    }
    return CG_NONE;
}

size_t cg_find_function(cg_profile *p, const char *name, const char *file, const char *object,
                        size_t after) {
    const uint32_t *order = profile_name_order(p);
    if (!order) return match_from(p, NULL, 0, name, file, object, after); /* out of memory */
    /* binary search for the first function of that name in name order */
    size_t lo = 0, hi = p->nfns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(STR(p->fns[order[mid]].name), name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return match_from(p, order, lo, name, file, object, after);
}

size_t cg_function_in_name_order(cg_profile *p, size_t k) {
    const uint32_t *order = profile_name_order(p);
    return order && k < p->nfns ? order[k] : CG_NONE;
}

/* ---- calls ---- */

COUNT_ACCESSOR(size_t, cg_call_count, ncalls)
FIELD_ACCESSOR(size_t, cg_call_caller, calls, caller)
FIELD_ACCESSOR(size_t, cg_call_callee, calls, callee)
FIELD_ACCESSOR(uint64_t, cg_call_times, calls, count)
NAME_ACCESSOR(cg_call_file, calls, file)
FIELD_ACCESSOR(uint64_t, cg_call_line, calls, line)
FIELD_ACCESSOR(uint64_t, cg_call_addr, calls, addr)
FIELD_ACCESSOR(uint64_t, cg_call_target_line, calls, target_line)
FIELD_ACCESSOR(uint64_t, cg_call_target_addr, calls, target_addr)

ROW_ACCESSOR(cg_call_inclusive, call_costs)

/* ---- lines ---- */

size_t cg_line_count(const cg_profile *p) {
    size_t n = 0;
    for (size_t f = 0; f < p->nfns; f++) n += p->line_stores[f].count;
    return n;
}

/* What a cg_line_cursor holds in its private part: the profile and the reader of the stream. */
typedef struct cursor_state {
    const cg_profile *p;
    line_reader r;
} cursor_state;

_Static_assert(sizeof(cursor_state) <= sizeof(((cg_line_cursor *)0)->opaque.bytes),
               "cg_line_cursor's private part holds a cursor_state");

void cg_line_cursor_init(cg_line_cursor *c, const cg_profile *p, size_t fn) {
    cursor_state cs = {p, {0}};
    line_reader_init(&cs.r, &p->line_stores[fn]);
    memcpy(c->opaque.bytes, &cs, sizeof cs);
}

int cg_line_cursor_next(cg_line_cursor *c, cg_line *out) {
    cursor_state cs;
    memcpy(&cs, c->opaque.bytes, sizeof cs);
    if (!line_reader_next(&cs.r, c->costs, cs.p->nraw)) return 0;
    memcpy(c->opaque.bytes, &cs, sizeof cs);
    out->file = strtab_get(&cs.p->strings, cs.r.file);
    out->line = cs.r.line;
    out->addr = cs.r.addr;
    out->costs = c->costs;
    return 1;
}

int cg_line_cursor_next_run(cg_line_cursor *c, int kind, cg_line_run *out) {
    cursor_state cs;
    memcpy(&cs, c->opaque.bytes, sizeof cs);
    uint32_t records;
    int rc = line_reader_run(&cs.r, c->costs, cs.p->nraw, kind == CG_RUN_LINE, &records);
    if (!rc) return 0;
    memcpy(c->opaque.bytes, &cs, sizeof cs);
    out->file = strtab_get(&cs.p->strings, cs.r.file);
    out->line = cs.r.line;
    out->records = records;
    out->costs = c->costs;
    return rc;
}

/* ---- jumps ---- */

COUNT_ACCESSOR(size_t, cg_jump_count, njumps)
FIELD_ACCESSOR(size_t, cg_jump_function, jumps, fn)
NAME_ACCESSOR(cg_jump_from_file, jumps, from_file)
FIELD_ACCESSOR(uint64_t, cg_jump_from_line, jumps, from_line)
FIELD_ACCESSOR(uint64_t, cg_jump_from_addr, jumps, from_addr)
FIELD_ACCESSOR(size_t, cg_jump_to_function, jumps, to_fn)
NAME_ACCESSOR(cg_jump_to_file, jumps, to_file)
FIELD_ACCESSOR(uint64_t, cg_jump_to_line, jumps, to_line)
FIELD_ACCESSOR(uint64_t, cg_jump_to_addr, jumps, to_addr)
FIELD_ACCESSOR(uint64_t, cg_jump_executed, jumps, executed)
FIELD_ACCESSOR(uint64_t, cg_jump_taken, jumps, taken)
FIELD_ACCESSOR(int, cg_jump_conditional, jumps, conditional)

/* ---- cycles ---- */

COUNT_ACCESSOR(size_t, cg_cycle_count, ncycles)
const char *cg_cycle_name(const cg_profile *p, size_t c) {
    return STR(p->cycle_names[c]);
}

size_t cg_cycle_member_count(const cg_profile *p, size_t c) {
    return p->cycle_begin[c + 1] - p->cycle_begin[c];
}

size_t cg_cycle_member(const cg_profile *p, size_t c, size_t i) {
    return p->cycle_members[p->cycle_begin[c] + i];
}

ROW_ACCESSOR(cg_cycle_self, cycle_self)

ROW_ACCESSOR(cg_cycle_inclusive, cycle_incl)

/* ---- sections ---- */

COUNT_ACCESSOR(size_t, cg_section_count, nsections)
NAME_ACCESSOR(cg_section_source, sections, source)
FIELD_ACCESSOR(uint64_t, cg_section_first_line, sections, first_line)

size_t cg_section_header_count(const cg_profile *p, size_t s) {
    return p->sections[s].header_end - p->sections[s].header_begin;
}

const char *cg_section_header_key(const cg_profile *p, size_t s, size_t i) {
    return STR(p->headers[p->sections[s].header_begin + i].key);
}

const char *cg_section_header_value(const cg_profile *p, size_t s, size_t i) {
    return STR(p->headers[p->sections[s].header_begin + i].value);
}

size_t cg_section_event_count(const cg_profile *p, size_t s) {
    return p->sections[s].events_end - p->sections[s].events_begin;
}

size_t cg_section_event(const cg_profile *p, size_t s, size_t i) {
    return p->section_events[p->sections[s].events_begin + i];
}

FIELD_ACCESSOR(unsigned, cg_section_positions, sections, positions)

ROW_ACCESSOR(cg_section_costs, section_costs)

const cg_cost *cg_section_summary(const cg_profile *p, size_t s) {
    return p->sections[s].has_summary ? costs_row(&p->section_summary, p->nraw, s) : NULL;
}

const cg_cost *cg_section_totals(const cg_profile *p, size_t s) {
    return p->sections[s].has_totals ? costs_row(&p->section_totals, p->nraw, s) : NULL;
}

void cg_section_header_field(const cg_profile *p, size_t s, size_t i, cg_header_field *out) {
    static const char *const numeric[] = {"pid", "part", "thread"};
    static const char *const text[] = {"cmd", "creator", "version"};
    const char *key = cg_section_header_key(p, s, i);
    const char *value = cg_section_header_value(p, s, i);
    memset(out, 0, sizeof *out);
    out->name = key;
    out->name_len = strlen(key);
    for (size_t k = 0; k < 3; k++) {
        if (!strcmp(key, numeric[k])) {
            char *end;
            out->number = strtoull(value, &end, 10);
            if (*value && !*end) out->kind = CG_FIELD_NUMBER;
            return;
        }
        if (!strcmp(key, text[k])) {
            out->kind = CG_FIELD_TEXT;
            out->text = value;
            return;
        }
    }
    const char *colon = strchr(value, ':');
    if (strcmp(key, "desc") || !colon) return;
    out->kind = CG_FIELD_DESC;
    out->name = value;
    out->name_len = (size_t)(colon - value);
    out->text = colon + 1;
    while (*out->text == ' ' || *out->text == '\t') out->text++;
}

/* ---- warnings ---- */

COUNT_ACCESSOR(size_t, cg_warning_count, nwarnings)
const char *cg_warning(const cg_profile *p, size_t i) {
    return p->warnings[i];
}
COUNT_ACCESSOR(uint64_t, cg_warnings_dropped, warnings_dropped)
