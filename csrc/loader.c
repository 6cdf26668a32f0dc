/* loader.c - the loading API: inputs are parsed into one model, then analysed. */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "loader.h"

uint64_t hash_new_seed(const void *salt) {
    uint64_t h = hash_combine(HASH_SEED, (uint64_t)time(NULL));
    h = hash_combine(h, (uint64_t)(uintptr_t)salt);
    h = hash_combine(h, (uint64_t)(uintptr_t)&h);
    return hash_mix(hash_combine(h, (uint64_t)clock()));
}

void set_error(cg_error *err, int code, uint64_t line, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    err->line = line;
}

static void clear_error(cg_error *err) {
    if (!err) return;
    err->code = CG_OK;
    err->line = 0;
    err->message[0] = '\0';
}

cg_loader *cg_loader_new(const cg_options *opts, cg_error *err) {
    clear_error(err);
    cg_loader *ld = calloc(1, sizeof *ld);
    uint64_t seed = hash_new_seed(ld);
    if (!ld || !(ld->p = profile_new(seed))) {
        free(ld);
        set_error(err, CG_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    if (opts) ld->opts = *opts;
    ld->p->max_warnings = ld->opts.max_warnings ? ld->opts.max_warnings : 1000;
    ld->p->no_cycles = ld->opts.no_cycles != 0;
    ld->seed = seed;
    ld->scratch.seed = seed;
    ld->block_fn = NO_INDEX;
    for (int t = 0; t < IDS_COUNT; t++) idmap_init(&ld->st.ids[t], seed);
    ld->st.section = CG_NONE;
    return ld;
}

/* The per-record state of the builder: which records come next, which functions have blocks,
 * which callees were guessed (resolve.c is done with them). */
static void free_build_state(cg_loader *ld) {
    free(ld->fn_defined);
    free(ld->call_guessed);
    free(ld->cursors);
    free(ld->call_next);
    free(ld->jump_next);
    ld->fn_defined = ld->call_guessed = NULL;
    ld->cursors = NULL;
    ld->call_next = ld->jump_next = NULL;
    ld->fn_defined_cap = ld->call_guessed_cap = ld->cursors_cap = 0;
    ld->call_next_cap = ld->jump_next_cap = 0;
}

void cg_loader_free(cg_loader *ld) {
    if (!ld) return;
    cg_profile_free(ld->p);
    idxtab_free(&ld->fn_index);
    idxtab_free(&ld->call_index);
    idxtab_free(&ld->jump_index);
    line_scratch_free(&ld->scratch);
    free(ld->descs);
    free_build_state(ld);
    free(ld->read_ids);
    parse_state_free(&ld->st);
    free(ld);
}

/* Each input is parsed under its own name; the failure of one leaves the loader unusable. */
static int add_input(cg_loader *ld, const char *name,
                     int (*read)(cg_loader *, const void *, size_t, const char *, cg_error *),
                     const void *data, size_t size, cg_error *err) {
    clear_error(err);
    if (ld->failed) {
        set_error(err, CG_ERR_USAGE, 0, "%s: the loader already failed", name);
        return -1;
    }
    int64_t source = strtab_intern(&ld->p->strings, name, strlen(name));
    if (source < 0) {
        set_error(err, CG_ERR_NOMEM, 0, "%s: out of memory", name);
        ld->failed = 1;
        return -1;
    }
    ld->inputs++;
    /* the name must outlive the parse: use the interned copy */
    parse_begin(ld, strtab_get(&ld->p->strings, (uint32_t)source), (uint32_t)source);
    if (read(ld, data, size, name, err) || parse_end(ld, err)) {
        ld->failed = 1;
        return -1;
    }
    return 0;
}

static int read_path(cg_loader *ld, const void *data, size_t size, const char *name,
                     cg_error *err) {
    (void)data;
    (void)size;
    return read_file(ld, name, err);
}

static int read_memory(cg_loader *ld, const void *data, size_t size, const char *name,
                       cg_error *err) {
    (void)name;
    return read_buffer(ld, data, size, err);
}

int cg_loader_add_file(cg_loader *ld, const char *path, cg_error *err) {
    if (!ld || !path) {
        set_error(err, CG_ERR_USAGE, 0, "cg_loader_add_file: NULL argument");
        return -1;
    }
    return add_input(ld, path, read_path, NULL, 0, err);
}

int cg_loader_add_buffer(cg_loader *ld, const void *data, size_t size, const char *name,
                         cg_error *err) {
    if (!ld || (!data && size)) {
        set_error(err, CG_ERR_USAGE, 0, "cg_loader_add_buffer: NULL argument");
        return -1;
    }
    return add_input(ld, name ? name : "(buffer)", read_memory, data ? data : "", size, err);
}

/* Appends to `out` the distinct values of column `col` of the sections read (part or thread),
 * in the order first seen, at most a screenful. */
static void list_ids(const cg_loader *ld, int col, char *out, size_t size) {
    size_t used = 0, shown = 0;
    out[0] = '\0';
    for (size_t i = 0; i < ld->sections_read && used < size; i++) {
        uint64_t v = ld->read_ids[i][col];
        size_t j = 0;
        while (j < i && ld->read_ids[j][col] != v) j++;
        if (j < i) continue;
        if (++shown > 20) {
            snprintf(out + used, size - used, ", ...");
            return;
        }
        int n =
            snprintf(out + used, size - used, "%s%llu", used ? ", " : "", (unsigned long long)v);
        if (n < 0) return;
        used += (size_t)n;
    }
}

/* The options asked for sections that no input has: an error that lists what there is. */
static int no_section_kept(const cg_loader *ld, cg_error *err) {
    const cg_options *o = &ld->opts;
    const char *name = ld->inputs_with_text > 1 ? "the inputs"
                       : ld->st.name            ? ld->st.name
                                                : "input";
    char parts[300], threads[300];
    list_ids(ld, 0, parts, sizeof parts);
    list_ids(ld, 1, threads, sizeof threads);
    if (o->section && o->section > ld->sections_read)
        set_error(err, CG_ERR_USAGE, 0, "%s: no section %zu: the input has %zu", name, o->section,
                  ld->sections_read);
    else if (o->part && o->thread)
        set_error(err, CG_ERR_USAGE, 0,
                  "%s: no section has part %llu and thread %llu (parts: %s; threads: %s)", name,
                  (unsigned long long)o->part, (unsigned long long)o->thread, parts, threads);
    else if (o->thread)
        set_error(err, CG_ERR_USAGE, 0, "%s: no section has thread %llu (threads: %s)", name,
                  (unsigned long long)o->thread, threads);
    else
        set_error(err, CG_ERR_USAGE, 0, "%s: no section has part %llu (parts: %s)", name,
                  (unsigned long long)o->part, parts);
    return -1;
}

/* What no single input can tell: every input was empty, or the options kept no section. */
static int check_inputs(const cg_loader *ld, cg_error *err) {
    const cg_options *o = &ld->opts;
    if (ld->inputs && !ld->inputs_with_text && !o->tolerant) {
        set_error(err, CG_ERR_FORMAT, 0, "%s:0: empty input", ld->st.name ? ld->st.name : "input");
        return -1;
    }
    if ((o->section || o->part || o->thread) && ld->sections_read && !ld->p->nsections)
        return no_section_kept(ld, err);
    return 0;
}

cg_profile *cg_loader_finish(cg_loader *ld, cg_error *err) {
    clear_error(err);
    if (!ld) {
        set_error(err, CG_ERR_USAGE, 0, "cg_loader_finish: NULL loader");
        return NULL;
    }
    if (ld->failed) {
        set_error(err, CG_ERR_USAGE, 0, "the loader already failed");
        cg_loader_free(ld);
        return NULL;
    }
    cg_profile *p = ld->p;
    if (check_inputs(ld, err)) {
        cg_loader_free(ld);
        return NULL;
    }
    if (resolve_guessed_callees(ld, err)) {
        cg_loader_free(ld);
        return NULL;
    }
    /* what only building needed goes before the analysis allocates, and the record arrays
     * give back their room for growth */
    idxtab_free(&ld->fn_index);
    idxtab_free(&ld->call_index);
    idxtab_free(&ld->jump_index);
    parse_state_free(&ld->st);
    free_build_state(ld);
    build_shrink(ld);
    if (apply_event_descs(ld, err) ||
        analysis_run(p, &ld->scratch, err, ld->opts.tolerant, ld->st.name, ld->st.lineno)) {
        cg_loader_free(ld);
        return NULL;
    }
    ld->p = NULL;
    cg_loader_free(ld);
    return p;
}

cg_profile *cg_load_file(const char *path, const cg_options *opts, cg_error *err) {
    cg_loader *ld = cg_loader_new(opts, err);
    if (!ld) return NULL;
    if (cg_loader_add_file(ld, path, err)) {
        cg_loader_free(ld);
        return NULL;
    }
    return cg_loader_finish(ld, err);
}

cg_profile *cg_load_buffer(const void *data, size_t size, const char *name, const cg_options *opts,
                           cg_error *err) {
    cg_loader *ld = cg_loader_new(opts, err);
    if (!ld) return NULL;
    if (cg_loader_add_buffer(ld, data, size, name, err)) {
        cg_loader_free(ld);
        return NULL;
    }
    return cg_loader_finish(ld, err);
}
