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
    ld->seed = seed;
    ld->scratch.seed = seed;
    for (int t = 0; t < IDS_COUNT; t++) idmap_init(&ld->st.ids[t], seed);
    ld->st.section = CG_NONE;
    return ld;
}

void cg_loader_free(cg_loader *ld) {
    if (!ld) return;
    cg_profile_free(ld->p);
    idxtab_free(&ld->fn_index);
    idxtab_free(&ld->call_index);
    idxtab_free(&ld->jump_index);
    line_scratch_free(&ld->scratch);
    free(ld->descs);
    free(ld->fn_defined);
    free(ld->call_guessed);
    free(ld->cursors);
    free(ld->call_next);
    free(ld->jump_next);
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
    if (resolve_guessed_callees(ld, err)) {
        cg_loader_free(ld);
        return NULL;
    }
    /* the build indexes are not needed any more: free them before the analysis allocates */
    idxtab_free(&ld->fn_index);
    idxtab_free(&ld->call_index);
    idxtab_free(&ld->jump_index);
    parse_state_free(&ld->st);
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
