/* events.c - event names, long names and derived events. A derived event is a linear
 * combination of raw events: from `event: X = A + 2 B` lines, or one of KCachegrind's known
 * formulas when an input of it exists. Formulas may use other derived events; they are expanded
 * to raw terms once, when loading ends. */
#include "events.h"

#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "numparse.h"
#include "vec.h"

#define MAX_DERIVED_EVENTS 256

static const struct known_formula {
    const char *name, *formula, *long_name;
} known_formulas[] = {
    {"L1m", "I1mr + D1mr + D1mw", "L1 Miss Sum"},
    {"L2m", "I2mr + D2mr + D2mw", "L2 Miss Sum"},
    {"LLm", "ILmr + DLmr + DLmw", "Last-level Miss Sum"},
    {"Bm", "Bim + Bcm", "Mispredicted Branches"},
    {"CEst", "Ir + 10 Bm + 10 L1m + 20 Ge + 100 L2m + 100 LLm", "Cycle Estimation"},
};

/* Whether an event is one of those formulas, by name and formula. */
static int is_known_formula(const char *name, const char *formula) {
    for (size_t k = 0; k < sizeof known_formulas / sizeof *known_formulas; k++)
        if (!strcmp(known_formulas[k].name, name) && !strcmp(known_formulas[k].formula, formula))
            return 1;
    return 0;
}

typedef struct derived {
    uint32_t name, long_name, formula;
    int from_file; /* unknown names are worth a warning only in the file's own formulas */
    uint64_t line;
    uint32_t source;
    int state;     /* 0 = not expanded, 1 = expanding, 2 = done, 3 = dropped */
    cg_cost *coef; /* one coefficient per raw event */
} derived;

typedef struct expander {
    cg_profile *p;
    derived *d;
    size_t n;
    cg_error *err;
} expander;

/* Where a doubt about the `event:` line of input `source` is reported. */
static fault_site site_of(cg_profile *p, cg_error *err, uint32_t source) {
    fault_site site = {p, err, strtab_get(&p->strings, source), 1, NULL, NULL};
    return site;
}

static int64_t find_derived(const expander *x, const char *name, size_t len) {
    for (size_t i = 0; i < x->n; i++) {
        const char *s = strtab_get(&x->p->strings, x->d[i].name);
        if (strlen(s) == len && !memcmp(s, name, len)) return (int64_t)i;
    }
    return -1;
}

static int64_t find_raw(const cg_profile *p, const char *name, size_t len) {
    for (size_t i = 0; i < p->nraw; i++) {
        uint32_t id = p->events[i].name;
        if (strtab_len(&p->strings, id) == len && !memcmp(strtab_get(&p->strings, id), name, len))
            return (int64_t)i;
    }
    return -1;
}

static int expand(expander *x, size_t i);

/* Parses `[+|-] [int] [*] Name` terms and sums coefficient * event into d->coef. Returns 0, 1
 * when the formula is unusable (the event is dropped), -1 on a fatal error. */
static int expand_terms(expander *x, derived *d) {
    cg_profile *p = x->p;
    fault_site site = site_of(p, x->err, d->source);
    const char *s = strtab_get(&p->strings, d->formula);
    const char *end = s + strlen(s);
    int used = 0;
    while (s < end) {
        while (s < end && is_space(*s)) s++;
        if (s == end) break;
        cg_cost sign = 1;
        if (*s == '+' || *s == '-') {
            sign = *s == '-' ? -1 : 1;
            s++;
            while (s < end && is_space(*s)) s++;
        }
        cg_cost factor = 1;
        if (s < end && is_digit(*s)) {
            uint64_t v = 0;
            while (s < end && is_digit(*s)) {
                if (v > (uint64_t)INT64_MAX / 10) return 1;
                v = v * 10 + (uint64_t)(*s++ - '0');
            }
            if (v > (uint64_t)INT64_MAX) return 1;
            factor = (cg_cost)v;
            while (s < end && is_space(*s)) s++;
            if (s < end && *s == '*') s++;
            while (s < end && is_space(*s)) s++;
        }
        const char *name = s;
        while (s < end && !is_space(*s) && *s != '+' && *s != '-' && *s != '*') s++;
        size_t len = (size_t)(s - name);
        if (!len) {
            if (d->from_file)
                return fault_warn(&site, d->line, "bad formula '%s' for event '%s'",
                                  strtab_get(&p->strings, d->formula),
                                  strtab_get(&p->strings, d->name))
                           ? -1
                           : 1;
            return 1;
        }
        factor *= sign;
        int64_t raw = find_raw(p, name, len);
        if (raw >= 0) {
            if (cost_add(&d->coef[raw], factor)) return 1;
            used = 1;
            continue;
        }
        int64_t other = find_derived(x, name, len);
        if (other >= 0 && &x->d[other] != d) {
            int rc = expand(x, (size_t)other);
            if (rc < 0) return rc;
            if (x->d[other].state != 2) continue;
            for (size_t e = 0; e < p->nraw; e++) {
                cg_cost t;
                if (__builtin_mul_overflow(x->d[other].coef[e], factor, &t) ||
                    cost_add(&d->coef[e], t))
                    return 1;
            }
            used = 1;
            continue;
        }
        if (d->from_file &&
            fault_warn(&site, d->line, "formula of event '%s' uses unknown event '%.*s'",
                       strtab_get(&p->strings, d->name), (int)len, name))
            return -1;
    }
    return used ? 0 : 1;
}

static int expand(expander *x, size_t i) {
    derived *d = &x->d[i];
    if (d->state == 2 || d->state == 3) return 0;
    if (d->state == 1) {
        /* a formula that refers back to itself */
        d->state = 3;
        return 0;
    }
    d->state = 1;
    int rc = expand_terms(x, d);
    if (rc < 0) return rc;
    if (d->state == 1) d->state = rc == 0 ? 2 : 3;
    return 0;
}

static int add_derived(expander *x, uint32_t name, uint32_t long_name, uint32_t formula,
                       int from_file, uint32_t source, uint64_t line) {
    int64_t existing =
        find_derived(x, strtab_get(&x->p->strings, name), strtab_len(&x->p->strings, name));
    derived *d;
    if (existing >= 0) {
        d = &x->d[existing]; /* a later definition wins */
    } else {
        if (x->n == MAX_DERIVED_EVENTS) return 1;
        d = &x->d[x->n++];
    }
    d->name = name;
    d->long_name = long_name;
    d->formula = formula;
    d->from_file = from_file;
    d->source = source;
    d->line = line;
    return 0;
}

int apply_event_descs(cg_profile *p, const event_desc *descs, size_t ndescs, cg_error *err) {
    expander x = {p, NULL, 0, err};
    int rc = -1;
    x.d = calloc(MAX_DERIVED_EVENTS, sizeof *x.d);
    if (!x.d) goto nomem;
    for (size_t i = 0; i < ndescs; i++) {
        const event_desc *e = &descs[i];
        fault_site site = site_of(p, err, e->source);
        int64_t raw =
            find_raw(p, strtab_get(&p->strings, e->name), strtab_len(&p->strings, e->name));
        if (raw >= 0) {
            if (e->long_name) p->events[raw].long_name = e->long_name;
            if (e->formula && fault_warn(&site, e->line,
                                         "event '%s' has costs in the file: its formula is ignored",
                                         strtab_get(&p->strings, e->name)))
                goto nomem;
        } else if (e->formula) {
            if (add_derived(&x, e->name, e->long_name, e->formula, 1, e->source, e->line) &&
                fault_warn(&site, e->line, "too many derived events (at most %d)",
                           MAX_DERIVED_EVENTS))
                goto nomem;
        }
    }
    for (size_t k = 0; k < sizeof known_formulas / sizeof *known_formulas; k++) {
        const struct known_formula *f = &known_formulas[k];
        if (find_raw(p, f->name, strlen(f->name)) >= 0 ||
            find_derived(&x, f->name, strlen(f->name)) >= 0)
            continue;
        int64_t name = strtab_intern(&p->strings, f->name, strlen(f->name));
        int64_t formula = strtab_intern(&p->strings, f->formula, strlen(f->formula));
        int64_t long_name = strtab_intern(&p->strings, f->long_name, strlen(f->long_name));
        if (name < 0 || formula < 0 || long_name < 0) goto nomem;
        add_derived(&x, (uint32_t)name, (uint32_t)long_name, (uint32_t)formula, 0, 0, 0);
    }
    for (size_t i = 0; i < x.n; i++)
        if (p->nraw && !(x.d[i].coef = calloc(p->nraw, sizeof(cg_cost)))) goto nomem;
    for (size_t i = 0; i < x.n; i++)
        if (p->nraw && expand(&x, i)) goto nomem;
    for (size_t i = 0; i < x.n; i++) {
        derived *d = &x.d[i];
        if (d->state != 2) {
            fault_site site = site_of(p, err, d->source);
            if (d->from_file &&
                fault_warn(&site, d->line,
                           "derived event '%s' is dropped: its formula names no usable event",
                           strtab_get(&p->strings, d->name)))
                goto nomem;
            continue;
        }
        if (VEC_RESERVE(p->events, p->events_cap, p->nevents + 1)) goto nomem;
        event_rec *ev = &p->events[p->nevents++];
        memset(ev, 0, sizeof *ev);
        ev->name = d->name;
        ev->long_name = d->long_name;
        ev->formula = d->formula;
        ev->builtin =
            is_known_formula(strtab_get(&p->strings, d->name), strtab_get(&p->strings, d->formula));
        ev->terms_begin = ev->terms_end = (uint32_t)p->nterms;
        for (size_t e = 0; e < p->nraw; e++) {
            if (!d->coef[e]) continue;
            if (VEC_RESERVE(p->terms, p->terms_cap, p->nterms + 1)) goto nomem;
            p->terms[p->nterms].coefficient = d->coef[e];
            p->terms[p->nterms].event = (uint32_t)e;
            p->nterms++;
        }
        ev->terms_end = (uint32_t)p->nterms;
    }
    rc = 0;
    goto out;
nomem:
    set_error(err, CG_ERR_NOMEM, 0, "out of memory");
out:
    if (x.d)
        for (size_t i = 0; i < x.n; i++) free(x.d[i].coef);
    free(x.d);
    return rc;
}
