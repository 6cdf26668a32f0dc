/* combine.c - new profiles made from loaded ones: weighted sums (merging runs or threads, and
 * differences with a weight of -1) and selections of functions. Both feed the records of the
 * source profiles to a loader, so the result is merged by identity and analysed exactly as if
 * it had been read from a file. */
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "vec.h"

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

static int map_string(cg_loader *ld, source_map *m, uint32_t id, uint32_t *out) {
    if (!m->strings[id]) {
        int64_t nid = strtab_intern(&ld->p->strings, strtab_get(&m->src->strings, id),
                                    strtab_len(&m->src->strings, id));
        if (nid < 0) return -1;
        m->strings[id] = (uint32_t)nid + 1;
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

static int map_events(cg_loader *ld, source_map *m, cg_error *err) {
    const cg_profile *src = m->src;
    for (size_t e = 0; e < src->nraw; e++) {
        const char *name = strtab_get(&src->strings, src->events[e].name);
        int64_t ev = build_event(ld, name, strlen(name));
        if (ev == -2) {
            set_error(err, CG_ERR_FORMAT, 0, "too many distinct events (at most %d)",
                      MAX_RAW_EVENTS);
            return -1;
        }
        if (ev < 0) return nomem(err);
        m->events[e] = (uint32_t)ev;
    }
    /* long names and formulas come back through the event descriptions */
    for (size_t e = 0; e < src->nevents; e++) {
        const event_rec *ev = &src->events[e];
        if (!ev->long_name && !ev->formula) continue;
        event_desc d = {0, 0, 0, 0, 0};
        if (map_string(ld, m, ev->name, &d.name) ||
            (ev->long_name && map_string(ld, m, ev->long_name, &d.long_name)) ||
            (ev->formula && map_string(ld, m, ev->formula, &d.formula)))
            return nomem(err);
        if (src->nsections && map_string(ld, m, src->sections[0].source, &d.source))
            return nomem(err);
        /* known formulas come back by themselves when their inputs exist */
        if (e >= src->nraw && event_is_known_formula(strtab_get(&src->strings, ev->name),
                                                     strtab_get(&src->strings, ev->formula)))
            continue;
        if (VEC_RESERVE(ld->descs, ld->descs_cap, ld->ndescs + 1)) return nomem(err);
        ld->descs[ld->ndescs++] = d;
    }
    return 0;
}

static int add_sections(cg_loader *ld, source_map *m, cg_cost weight, cg_error *err) {
    const cg_profile *src = m->src;
    cg_profile *p = ld->p;
    for (size_t s = 0; s < src->nsections; s++) {
        const section_rec *from = &src->sections[s];
        uint32_t source;
        if (map_string(ld, m, from->source, &source) || build_section(ld, source, from->first_line))
            return nomem(err);
        size_t to = p->nsections - 1;
        for (uint32_t h = from->header_begin; h < from->header_end; h++) {
            uint32_t key, value;
            if (map_string(ld, m, src->headers[h].key, &key) ||
                map_string(ld, m, src->headers[h].value, &value) || build_header(ld, key, value))
                return nomem(err);
        }
        section_rec *sec = &p->sections[to];
        sec->positions = from->positions;
        sec->has_summary = from->has_summary;
        sec->has_totals = from->has_totals;
        sec->totals_line = from->totals_line;
        sec->events_begin = (uint32_t)p->nsection_events;
        size_t nev = from->events_end - from->events_begin;
        if (VEC_RESERVE(p->section_events, p->section_events_cap, p->nsection_events + nev))
            return nomem(err);
        for (uint32_t i = from->events_begin; i < from->events_end; i++)
            p->section_events[p->nsection_events++] = m->events[src->section_events[i]];
        sec->events_end = (uint32_t)p->nsection_events;
        p->positions |= from->positions;
        const cost_array *rows_from[] = {&src->section_costs, &src->section_summary,
                                         &src->section_totals};
        cost_array *rows_to[] = {&p->section_costs, &p->section_summary, &p->section_totals};
        for (size_t k = 0; k < 3; k++)
            if (add_weighted(costs_row(rows_to[k], p->nraw, to), m->events,
                             costs_row(rows_from[k], src->nraw, s), src->nraw, weight))
                return overflow(err, "a section's cost");
    }
    return 0;
}

/* Adds one source profile; `keep` (optional) says which functions stay, the others becoming
 * the function `dropped` (a new function index) */
static int add_profile(cg_loader *ld, source_map *m, cg_cost weight, const unsigned char *keep,
                       uint32_t dropped, cg_error *err) {
    const cg_profile *src = m->src;
    if (map_events(ld, m, err) || add_sections(ld, m, weight, err)) return -1;
    for (size_t f = 0; f < src->nfns; f++) {
        if (keep && !keep[f]) {
            m->functions[f] = dropped;
            continue;
        }
        const fn_rec *fn = &src->fns[f];
        uint32_t name, file, object;
        if (map_string(ld, m, fn->name, &name) || map_string(ld, m, fn->file, &file) ||
            map_string(ld, m, fn->object, &object))
            return nomem(err);
        int64_t nf = build_function(ld, name, file, object);
        if (nf < 0) return nomem(err);
        m->functions[f] = (uint32_t)nf;
        build_defined(ld, (uint32_t)nf);
    }
    for (size_t f = 0; f < src->nfns; f++) {
        line_reader r;
        line_reader_init(&r, &src->line_stores[f]);
        while (line_reader_next(&r, m->values, src->nraw)) {
            cg_cost *row = m->row;
            memset(row, 0, ld->p->nraw * sizeof *row);
            if (add_weighted(row, m->events, m->values, src->nraw, weight))
                return overflow(err, "a line's cost");
            uint32_t file;
            if (map_string(ld, m, r.file, &file)) return nomem(err);
            int rc = build_line(ld, m->functions[f], file, r.line, r.addr, row, ld->p->nraw);
            if (rc == -1) return nomem(err);
            if (rc) return overflow(err, "a line's cost");
        }
    }
    for (size_t c = 0; c < src->ncalls; c++) {
        const call_rec *call = &src->calls[c];
        call_rec key = *call;
        key.caller = m->functions[call->caller];
        key.callee = m->functions[call->callee];
        if (map_string(ld, m, call->file, &key.file)) return nomem(err);
        if (weighted_count(call->count, weight, &key.count)) return overflow(err, "a call count");
        cg_cost *row;
        int rc = build_call(ld, &key, 0, &row);
        if (rc == -2) return nomem(err);
        if (rc || add_weighted(row, m->events, costs_row(&src->call_costs, src->nraw, c), src->nraw,
                               weight))
            return overflow(err, "a call's cost");
    }
    for (size_t j = 0; j < src->njumps; j++) {
        const jump_rec *jump = &src->jumps[j];
        jump_rec key = *jump;
        key.fn = m->functions[jump->fn];
        key.to_fn = m->functions[jump->to_fn];
        if (map_string(ld, m, jump->from_file, &key.from_file) ||
            map_string(ld, m, jump->to_file, &key.to_file))
            return nomem(err);
        if (weighted_count(jump->executed, weight, &key.executed) ||
            weighted_count(jump->taken, weight, &key.taken))
            return overflow(err, "a jump count");
        int rc = build_jump(ld, &key);
        if (rc == -2) return nomem(err);
        if (rc) return overflow(err, "a jump count");
    }
    return 0;
}

static int add_source(cg_loader *ld, const cg_profile *src, cg_cost weight,
                      const unsigned char *keep, uint32_t dropped, cg_error *err) {
    source_map m = {.src = src};
    m.strings = calloc(src->strings.count ? src->strings.count : 1, sizeof *m.strings);
    m.events = calloc(src->nraw ? src->nraw : 1, sizeof *m.events);
    m.functions = calloc(src->nfns ? src->nfns : 1, sizeof *m.functions);
    int rc = (m.strings && m.events && m.functions)
                 ? add_profile(ld, &m, weight, keep, dropped, err)
                 : nomem(err);
    free(m.strings);
    free(m.events);
    free(m.functions);
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

cg_profile *cg_profile_combine(const cg_profile *const *profiles, const int64_t *weights, size_t n,
                               const cg_options *given, cg_error *err) {
    cg_options opts = combined_options(profiles, n, given);
    cg_loader *ld = cg_loader_new(&opts, err);
    if (!ld) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!profiles[i]) {
            set_error(err, CG_ERR_USAGE, 0, "cg_profile_combine: profile %zu is NULL", i + 1);
            cg_loader_free(ld);
            return NULL;
        }
        if (add_source(ld, profiles[i], weights ? weights[i] : 1, NULL, 0, err)) {
            cg_loader_free(ld);
            return NULL;
        }
    }
    return cg_loader_finish(ld, err);
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
        int64_t sid = strtab_intern(&ld->p->strings, name, strlen(name));
        int64_t fn = sid < 0 ? -1 : build_function(ld, (uint32_t)sid, 0, 0);
        if (fn < 0) {
            nomem(err);
            cg_loader_free(ld);
            return NULL;
        }
        dropped = (uint32_t)fn;
        build_defined(ld, dropped);
    }
    if (add_source(ld, p, 1, keep, dropped, err)) {
        cg_loader_free(ld);
        return NULL;
    }
    return cg_loader_finish(ld, err);
}
