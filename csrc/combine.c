/* combine.c - new profiles made from loaded ones: weighted sums (merging runs or threads, and
 * differences with a weight of -1) and selections of functions. Both feed the records of the
 * source profiles to a loader, so the result is merged by identity and analysed exactly as if
 * it had been read from a file. A sum feeds each function's line records of all sources merged
 * by position (each source's stream is sorted already), so that its stream is built in order,
 * never compacted. */
#include <stdlib.h>
#include <string.h>

#include "loader.h"

typedef struct source_map {
    const cg_profile *src;
    cg_cost values[MAX_RAW_EVENTS], row[MAX_RAW_EVENTS]; /* one line's costs, read and mapped */
    uint32_t *strings;   /* source string id -> new id + 1 (0: not mapped yet) */
    uint32_t *events;    /* source raw event -> new raw event */
    uint32_t *functions; /* source function -> new function */
} source_map;

static int nomem(cg_error *err) {
    set_error(err, CG_ERR_NOMEM, 0, "out of memory");
    return -1;
}

static int overflow(cg_error *err, const char *what) {
    set_error(err, CG_ERR_OVERFLOW, 0, "%s does not fit in 64 bits", what);
    return -1;
}

static int map_string(builder *b, source_map *m, uint32_t id, uint32_t *out) {
    if (!m->strings[id]) {
        uint32_t nid;
        if (build_string(b, strtab_get(&m->src->strings, id), strtab_len(&m->src->strings, id),
                         &nid))
            return -1;
        m->strings[id] = nid + 1;
    }
    *out = m->strings[id] - 1;
    return 0;
}

/* row[map[e]] += weight * src[e] for every raw event, checked. */
static int add_weighted(cg_cost *row, const uint32_t *map, const cg_cost *src, size_t n,
                        cg_cost weight) {
    for (size_t e = 0; e < n; e++) {
        cg_cost v;
        if (__builtin_mul_overflow(src[e], weight, &v) || cost_add(&row[map[e]], v)) return -1;
    }
    return 0;
}

static int weighted_count(uint64_t count, cg_cost weight, uint64_t *out) {
    /* counts of a subtracted profile are not subtracted: the difference keeps the counts of
     * the profiles added to it */
    if (weight <= 0) {
        *out = 0;
        return 0;
    }
    return __builtin_mul_overflow(count, (uint64_t)weight, out) ? -1 : 0;
}

static int map_events(builder *b, source_map *m, cg_error *err) {
    const cg_profile *src = m->src;
    for (size_t e = 0; e < src->nraw; e++) {
        const char *name = strtab_get(&src->strings, src->events[e].name);
        status rc = build_event(b, name, strlen(name), &m->events[e]);
        if (rc == ST_LIMIT) {
            set_error(err, CG_ERR_FORMAT, 0, "too many distinct events (at most %d)",
                      MAX_RAW_EVENTS);
            return -1;
        }
        if (rc) return nomem(err);
    }
    /* long names and formulas come back through the event descriptions */
    for (size_t e = 0; e < src->nevents; e++) {
        const event_rec *ev = &src->events[e];
        if (!ev->long_name && !ev->formula) continue;
        event_desc d = {0, 0, 0, 0, 0};
        if (map_string(b, m, ev->name, &d.name) ||
            (ev->long_name && map_string(b, m, ev->long_name, &d.long_name)) ||
            (ev->formula && map_string(b, m, ev->formula, &d.formula)))
            return nomem(err);
        if (src->nsections && map_string(b, m, src->sections[0].source, &d.source))
            return nomem(err);
        /* known formulas come back by themselves when their inputs exist */
        if (ev->builtin) continue;
        if (build_event_desc(b, &d)) return nomem(err);
    }
    return 0;
}

/* The sections of a source, weighted: through the builder's section bookkeeping, as the parser
 * adds them, with their cost rows summed rather than read. */
static int add_sections(builder *b, source_map *m, cg_cost weight, cg_error *err) {
    const cg_profile *src = m->src;
    for (size_t s = 0; s < src->nsections; s++) {
        const section_rec *from = &src->sections[s];
        uint32_t source;
        if (map_string(b, m, from->source, &source) ||
            build_section_open(b, source, from->first_line))
            return nomem(err);
        for (uint32_t h = from->header_begin; h < from->header_end; h++) {
            uint32_t key, value;
            if (map_string(b, m, src->headers[h].key, &key) ||
                map_string(b, m, src->headers[h].value, &value) || build_header(b, key, value))
                return nomem(err);
        }
        uint32_t events[MAX_RAW_EVENTS];
        size_t nev = 0;
        for (uint32_t i = from->events_begin; i < from->events_end; i++)
            events[nev++] = m->events[src->section_events[i]];
        if (build_section_events(b, events, nev)) return nomem(err);
        build_section_positions(b, from->positions);
        if (from->has_summary) build_section_mark(b, SEC_SUMMARY, from->summary_line);
        if (from->has_totals) build_section_mark(b, SEC_TOTALS, from->totals_line);
        const cost_array *rows_from[] = {&src->section_costs, &src->section_summary,
                                         &src->section_totals};
        for (int k = SEC_COSTS; k <= SEC_TOTALS; k++)
            if (add_weighted(build_section_row(b, k), m->events,
                             costs_row(rows_from[k], src->nraw, s), src->nraw, weight))
                return overflow(err, "a section's cost");
        if (build_section_close(b, 1)) return nomem(err);
    }
    return 0;
}

/* Adds one source profile's events, sections and functions; `keep` (optional) says which
 * functions stay, the others becoming the function `dropped` (a new function index). */
static int add_functions(builder *b, source_map *m, cg_cost weight, const unsigned char *keep,
                         uint32_t dropped, cg_error *err) {
    const cg_profile *src = m->src;
    if (map_events(b, m, err) || add_sections(b, m, weight, err)) return -1;
    for (size_t f = 0; f < src->nfns; f++) {
        if (keep && !keep[f]) {
            m->functions[f] = dropped;
            continue;
        }
        const fn_rec *fn = &src->fns[f];
        uint32_t name, file, object;
        if (map_string(b, m, fn->name, &name) || map_string(b, m, fn->file, &file) ||
            map_string(b, m, fn->object, &object))
            return nomem(err);
        if (build_function(b, name, file, object, &m->functions[f])) return nomem(err);
        build_defined(b, m->functions[f]);
    }
    return 0;
}

/* A line record of the new profile: `row` (the builder's width) added to function `fn`. */
static int put_line(builder *b, uint32_t fn, uint32_t file, uint64_t line, uint64_t addr,
                    const cg_cost *row, cg_error *err) {
    status rc = build_line(b, fn, file, line, addr, row, build_width(b));
    if (rc == ST_OVERFLOW) return overflow(err, "a line's cost");
    return rc ? nomem(err) : 0;
}

/* Adds the line records of a source's functions one by one, each of them as it was read. */
static int add_lines(builder *b, source_map *m, cg_cost weight, cg_error *err) {
    const cg_profile *src = m->src;
    for (size_t f = 0; f < src->nfns; f++) {
        line_reader r;
        line_reader_init(&r, &src->line_stores[f]);
        while (line_reader_next(&r, m->values, src->nraw)) {
            cg_cost *row = m->row;
            memset(row, 0, build_width(b) * sizeof *row);
            if (add_weighted(row, m->events, m->values, src->nraw, weight))
                return overflow(err, "a line's cost");
            uint32_t file;
            if (map_string(b, m, r.file, &file)) return nomem(err);
            if (put_line(b, m->functions[f], file, r.line, r.addr, row, err)) return -1;
        }
    }
    return 0;
}

/* Adds a source's calls and (with `jumps`) its jumps, weighted. */
static int add_calls(builder *b, source_map *m, cg_cost weight, int jumps, cg_error *err) {
    const cg_profile *src = m->src;
    for (size_t c = 0; c < src->ncalls; c++) {
        const call_rec *call = &src->calls[c];
        call_rec key = *call;
        key.caller = m->functions[call->caller];
        key.callee = m->functions[call->callee];
        if (map_string(b, m, call->file, &key.file)) return nomem(err);
        if (weighted_count(call->count, weight, &key.count)) return overflow(err, "a call count");
        cg_cost *row;
        status rc = build_call(b, &key, 0, &row);
        if (rc == ST_NOMEM) return nomem(err);
        if (rc || add_weighted(row, m->events, costs_row(&src->call_costs, src->nraw, c), src->nraw,
                               weight))
            return overflow(err, "a call's cost");
    }
    for (size_t j = 0; jumps && j < src->njumps; j++) {
        const jump_rec *jump = &src->jumps[j];
        jump_rec key = *jump;
        key.fn = m->functions[jump->fn];
        key.to_fn = m->functions[jump->to_fn];
        uint32_t to_file; /* a bit field has no address */
        if (map_string(b, m, jump->from_file, &key.from_file) ||
            map_string(b, m, jump->to_file, &to_file))
            return nomem(err);
        key.to_file = to_file;
        if (weighted_count(jump->executed, weight, &key.executed) ||
            weighted_count(jump->taken, weight, &key.taken))
            return overflow(err, "a jump count");
        status rc = build_jump(b, &key);
        if (rc == ST_NOMEM) return nomem(err);
        if (rc) return overflow(err, "a jump count");
    }
    return 0;
}

static int map_new(source_map *m, const cg_profile *src) {
    memset(m, 0, sizeof *m);
    m->src = src;
    m->strings = calloc(src->strings.count ? src->strings.count : 1, sizeof *m->strings);
    m->events = calloc(src->nraw ? src->nraw : 1, sizeof *m->events);
    m->functions = calloc(src->nfns ? src->nfns : 1, sizeof *m->functions);
    return m->strings && m->events && m->functions ? 0 : -1;
}

static void map_free(source_map *m) {
    free(m->strings);
    free(m->events);
    free(m->functions);
}

/* One source's records of the function whose records are being merged (merge_lines). */
typedef struct line_input {
    source_map *m;
    cg_cost weight;
    line_reader r;
    int more;      /* a record is read: its position in r, its costs in m->values */
    uint32_t file; /* its file in the new profile */
} line_input;

static int input_next(builder *b, line_input *in) {
    in->more = line_reader_next(&in->r, in->m->values, in->m->src->nraw);
    return in->more ? map_string(b, in->m, in->r.file, &in->file) : 0;
}

/* The records of new function `fn` from the `n` inputs, each a finished stream (sorted, each
 * position once): merged by position, a position the inputs share summed in input order, so
 * that the function's stream is appended in order and needs no compaction. */
static int merge_function(builder *b, uint32_t fn, line_input *in, size_t n, cg_cost *row,
                          cg_error *err) {
    for (size_t k = 0; k < n; k++)
        if (input_next(b, &in[k])) return nomem(err);
    for (;;) {
        line_input *first = NULL;
        for (size_t k = 0; k < n; k++) {
            if (!in[k].more) continue;
            if (!first || in[k].r.addr < first->r.addr ||
                (in[k].r.addr == first->r.addr && in[k].r.line < first->r.line))
                first = &in[k];
        }
        if (!first) return 0;
        uint64_t line = first->r.line, addr = first->r.addr;
        uint32_t file = first->file;
        memset(row, 0, build_width(b) * sizeof *row);
        for (size_t k = 0; k < n; k++) {
            line_input *x = &in[k];
            if (!x->more || x->r.addr != addr || x->r.line != line || x->file != file) continue;
            if (add_weighted(row, x->m->events, x->m->values, x->m->src->nraw, x->weight))
                return overflow(err, "a line's cost");
            if (input_next(b, x)) return nomem(err);
        }
        if (put_line(b, fn, file, line, addr, row, err)) return -1;
    }
}

/* The functions of all sources as entries, source after source (entry e of source k is its
 * function e - base[k]), listed under the new function each one is, in source order: first[fn]
 * is the first entry + 1 (0: none), next[e] the entry after e + 1. Memory follows the sources'
 * functions, however many sources a sum has. */
typedef struct entries {
    uint32_t *first, *next, *source;
    size_t *base;
} entries;

static void entries_free(entries *x) {
    free(x->first);
    free(x->next);
    free(x->source);
    free(x->base);
}

static int entries_make(entries *x, const source_map *maps, size_t n, size_t nfns) {
    size_t total = 0;
    for (size_t k = 0; k < n; k++) total += maps[k].src->nfns;
    x->first = calloc(nfns + 1, sizeof *x->first);
    x->next = malloc((total + 1) * sizeof *x->next);
    x->source = malloc((total + 1) * sizeof *x->source);
    x->base = malloc((n + 1) * sizeof *x->base);
    if (!x->first || !x->next || !x->source || !x->base || total >= UINT32_MAX) return -1;
    for (size_t k = 0, at = 0; k < n; at += maps[k++].src->nfns) x->base[k] = at;
    for (size_t k = n; k-- > 0;) {
        for (size_t f = maps[k].src->nfns; f-- > 0;) {
            size_t e = x->base[k] + f, fn = maps[k].functions[f];
            x->next[e] = x->first[fn];
            x->source[e] = (uint32_t)k;
            x->first[fn] = (uint32_t)e + 1;
        }
    }
    return 0;
}

/* The line records of every source, function by function of the new profile: each function's
 * records of all sources merged by position (merge_function), rather than appended source
 * after source and compacted. */
static int merge_lines(builder *b, source_map *maps, const cg_cost *weights, size_t n,
                       cg_error *err) {
    size_t nfns = cg_function_count(b->p);
    entries x;
    line_input *in = calloc(n + 1, sizeof *in);
    cg_cost *row = malloc(MAX_RAW_EVENTS * sizeof *row);
    int rc = entries_make(&x, maps, n, nfns) == 0 && in && row ? 0 : nomem(err);
    for (size_t fn = 0; rc == 0 && fn < nfns; fn++) {
        size_t used = 0;
        for (uint32_t e = x.first[fn]; e; e = x.next[e - 1]) {
            size_t k = x.source[e - 1];
            in[used] = (line_input){&maps[k], weights[k], {0}, 0, 0};
            line_reader_init(&in[used++].r, &maps[k].src->line_stores[e - 1 - x.base[k]]);
        }
        rc = merge_function(b, (uint32_t)fn, in, used, row, err);
    }
    entries_free(&x);
    free(in);
    free(row);
    return rc;
}

/* In place of the line records, one record per function of the new profile with any: the
 * weighted sum of its sources' self costs, at line 0 of its file. The sum's self costs, and so
 * its inclusive costs, are those of the records merged (cg_profile_combine_functions). */
static int sum_self_costs(builder *b, source_map *maps, const cg_cost *weights, size_t n,
                          cg_error *err) {
    size_t nfns = cg_function_count(b->p);
    entries x;
    cg_cost *row = malloc(MAX_RAW_EVENTS * sizeof *row);
    int rc = entries_make(&x, maps, n, nfns) == 0 && row ? 0 : nomem(err);
    for (size_t fn = 0; rc == 0 && fn < nfns; fn++) {
        int any = 0;
        uint32_t file = 0;
        memset(row, 0, build_width(b) * sizeof *row);
        for (uint32_t e = x.first[fn]; rc == 0 && e; e = x.next[e - 1]) {
            source_map *m = &maps[x.source[e - 1]];
            size_t f = e - 1 - x.base[x.source[e - 1]];
            if (!m->src->line_stores[f].count) continue;
            if (add_weighted(row, m->events, cg_function_self(m->src, f), m->src->nraw,
                             weights[x.source[e - 1]]))
                rc = overflow(err, "a function's cost");
            else if (!any && map_string(b, m, m->src->fns[f].file, &file))
                rc = nomem(err);
            any = 1;
        }
        if (rc == 0 && any) rc = put_line(b, (uint32_t)fn, file, 0, 0, row, err);
    }
    entries_free(&x);
    free(row);
    return rc;
}

/* The sources in order: their events, sections and functions; their line records merged
 * function by function (with `lines` 0, their self costs alone); their calls, and their jumps
 * unless `lines` is 0. */
static int add_sources(builder *b, const cg_profile *const *profiles, const cg_cost *weights,
                       size_t n, int lines, cg_error *err) {
    source_map *maps = calloc(n + 1, sizeof *maps);
    if (!maps) return nomem(err);
    int rc = 0;
    size_t made = 0;
    for (; rc == 0 && made < n; made++) {
        if (map_new(&maps[made], profiles[made])) {
            rc = nomem(err);
        } else {
            rc = add_functions(b, &maps[made], weights[made], NULL, 0, err);
        }
    }
    if (rc == 0)
        rc = lines ? merge_lines(b, maps, weights, n, err)
                   : sum_self_costs(b, maps, weights, n, err);
    for (size_t k = 0; rc == 0 && k < n; k++) rc = add_calls(b, &maps[k], weights[k], lines, err);
    for (size_t k = 0; k < made; k++) map_free(&maps[k]);
    free(maps);
    return rc;
}

/* The analysis of a new profile: as `given`, else without cycles only when no source had them. */
static cg_options combined_options(const cg_profile *const *sources, size_t n,
                                   const cg_options *given) {
    cg_options opts;
    memset(&opts, 0, sizeof opts);
    opts.no_cycles = 1;
    for (size_t i = 0; i < n; i++)
        if (sources[i] && !sources[i]->no_cycles) opts.no_cycles = 0;
    if (given) opts.no_cycles = given->no_cycles;
    return opts;
}

static cg_profile *combine(const cg_profile *const *profiles, const int64_t *weights, size_t n,
                           const cg_options *given, int lines, cg_error *err) {
    for (size_t i = 0; i < n; i++) {
        if (!profiles[i]) {
            set_error(err, CG_ERR_USAGE, 0, "cg_profile_combine: profile %zu is NULL", i + 1);
            return NULL;
        }
    }
    cg_cost *w = malloc((n + 1) * sizeof *w);
    if (!w) {
        nomem(err);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) w[i] = weights ? weights[i] : 1;
    cg_options opts = combined_options(profiles, n, given);
    cg_loader *ld = cg_loader_new(&opts, err);
    int rc = ld ? add_sources(&ld->b, profiles, w, n, lines, err) : -1;
    free(w);
    if (rc) {
        cg_loader_free(ld);
        return NULL;
    }
    return cg_loader_finish(ld, err);
}

cg_profile *cg_profile_combine(const cg_profile *const *profiles, const int64_t *weights, size_t n,
                               const cg_options *given, cg_error *err) {
    return combine(profiles, weights, n, given, 1, err);
}

cg_profile *cg_profile_combine_functions(const cg_profile *const *profiles, const int64_t *weights,
                                         size_t n, const cg_options *given, cg_error *err) {
    return combine(profiles, weights, n, given, 0, err);
}

cg_profile *cg_profile_select(const cg_profile *p, const unsigned char *keep,
                              const char *dropped_name, const cg_options *given, cg_error *err) {
    cg_options opts = combined_options(&p, 1, given);
    cg_loader *ld = cg_loader_new(&opts, err);
    if (!ld) return NULL;
    uint32_t dropped = NO_INDEX;
    size_t ndropped = 0;
    for (size_t f = 0; f < p->nfns; f++) ndropped += !keep[f];
    if (ndropped) {
        const char *name = dropped_name ? dropped_name : "(dropped functions)";
        uint32_t sid;
        if (build_string(&ld->b, name, strlen(name), &sid) ||
            build_function(&ld->b, sid, 0, 0, &dropped)) {
            nomem(err);
            cg_loader_free(ld);
            return NULL;
        }
        build_defined(&ld->b, dropped);
    }
    source_map m;
    int rc = map_new(&m, p) ? nomem(err) : 0;
    if (rc == 0) rc = add_functions(&ld->b, &m, 1, keep, dropped, err);
    if (rc == 0) rc = add_lines(&ld->b, &m, 1, err);
    if (rc == 0) rc = add_calls(&ld->b, &m, 1, 1, err);
    map_free(&m);
    if (rc) {
        cg_loader_free(ld);
        return NULL;
    }
    return cg_loader_finish(ld, err);
}
