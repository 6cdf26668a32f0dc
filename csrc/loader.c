/* loader.c - the loading API: inputs are parsed into one model, then analysed. */
#include "loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "events.h"
#include "reader.h"
#include "resolve.h"
#include "split.h"

cg_loader *cg_loader_new(const cg_options *opts, cg_error *err) {
    clear_error(err);
    cg_loader *ld = calloc(1, sizeof *ld);
    if (!ld) {
        set_error(err, CG_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    if (opts) ld->opts = *opts;
    const cg_options *o = &ld->opts;
    section_choice choice = {o->section, o->part, o->thread};
    if (builder_init(&ld->b, &choice, o->max_warnings, o->no_cycles)) {
        builder_free(&ld->b);
        free(ld);
        set_error(err, CG_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    parser_init(&ld->ps, &ld->b, o->tolerant);
    return ld;
}

void cg_loader_free(cg_loader *ld) {
    if (!ld) return;
    builder_free(&ld->b);
    parser_free(&ld->ps);
    free(ld);
}

/* The threads a load uses: as asked, else the cores available, at most MAX_THREADS; from
 * READ_AHEAD_THREADS on, a split load reads in one more. */
enum { MAX_THREADS = 8, READ_AHEAD_THREADS = 3 };
static int load_threads(const cg_options *o) {
    if (o->threads > 0) return o->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

/* The threads an input is read on. Unless `threads` was asked for, an input of less than
 * SMALL_INPUT bytes of text is read on the calling thread alone: starting threads, cutting and
 * handing over pieces cost it more than they save (on the benchmarks' machine a 2 MB profile
 * took 16 ms on one thread and 22 ms on two, a 6 MB one 38 and 44 ms, the 5.6 MB valgrind
 * profile 30 and 37 ms; 9 MB of one block per function 113 and 103 ms). */
enum { SMALL_INPUT = 8 << 20 };
static int input_threads(const cg_loader *ld, const char *path, const void *data, size_t size) {
    int threads = load_threads(&ld->opts);
    if (threads > 1 && ld->opts.threads <= 0 && read_text_estimate(path, data, size) < SMALL_INPUT)
        return 1;
    return threads;
}

/* The input begins: its name interned (the copy outlives the parse), the parser reset. */
static int begin_input(cg_loader *ld, const char *name, const char **stored, cg_error *err) {
    uint32_t source;
    if (build_string(&ld->b, name, strlen(name), &source)) {
        set_error(err, CG_ERR_NOMEM, 0, "%s: out of memory", name);
        return -1;
    }
    *stored = build_text(&ld->b, source);
    parse_begin(&ld->ps, *stored, source);
    return 0;
}

/* One input read by the parser on this thread, or with the builder in a thread of its own
 * (pipeline.h) when `threaded`. */
static int read_input(cg_loader *ld, const char *name, const char *path, const void *data,
                      size_t size, int threaded, cg_error *err) {
    const char *stored;
    if (begin_input(ld, name, &stored, err)) return -1;
    read_options ro = {stored, ld->opts.progress, ld->opts.progress_userdata};
    line_sink sink = parser_sink(&ld->ps);
    /* threaded: the builder replays the parser's records in a thread of its own (pipeline.h);
     * when no thread can be made, the input is read on this one */
    pipeline *pl = NULL;
    if (threaded && (pl = pipeline_start(&ld->b, &ld->ps.site, ld->opts.chunk_size))) {
        ld->ps.pipe = pl;
        ld->ps.site.defer = pipe_warning;
        ld->ps.site.defer_ctx = pl;
    }
    int rc;
    if (!pl)
        rc = path ? read_file(path, &ro, &sink, err) : read_buffer(data, size, &ro, &sink, err);
    else /* and the reading, or the inflating, in a third */
        rc = path ? read_file_ahead(path, &ro, &sink, err)
                  : read_buffer_ahead(data, size, &ro, &sink, err);
    if (!rc) rc = parse_end(&ld->ps, err);
    if (pl) {
        /* the builder's first fault comes before any the parser found later */
        ld->ps.site.err = err;
        if (pipeline_stop(pl)) rc = -1;
        ld->ps.pipe = NULL;
        ld->ps.site.defer = NULL;
        ld->ps.site.defer_ctx = NULL;
    }
    return rc;
}

/* The first input of a load cut into pieces parsed on `threads` threads (split.h). *redo when
 * a fault inside a piece means the input must be read again on one thread. */
static int read_split(cg_loader *ld, const char *name, const char *path, const void *data,
                      size_t size, int threads, cg_error *err, int *redo) {
    *redo = 0;
    const char *stored;
    if (begin_input(ld, name, &stored, err)) return -1;
    /* `threads` busy threads in all: this one (reading, inflating, cutting, stitching, and
     * parsing pieces whenever it would otherwise wait) and threads - 1 workers */
    splitter *sp = split_start(&ld->ps, threads - 1, ld->opts.chunk_size);
    if (!sp) {
        *redo = 1;
        return -1;
    }
    read_options ro = {stored, ld->opts.progress, ld->opts.progress_userdata};
    line_sink sink = split_sink(sp);
    /* from three threads on, the reading and the inflating in a thread of their own: the
     * calling thread is the bound there; on two cores a third thread costs what it saves
     * (bench/analysis.md) */
    int rc;
    if (threads >= READ_AHEAD_THREADS)
        rc = path ? read_file_ahead(path, &ro, &sink, err)
                  : read_buffer_ahead(data, size, &ro, &sink, err);
    else
        rc = path ? read_file(path, &ro, &sink, err) : read_buffer(data, size, &ro, &sink, err);
    if (!rc) rc = split_finish(sp, err);
    *redo = split_redo(sp);
    split_free(sp);
    if (!rc && !*redo) rc = parse_end(&ld->ps, err);
    return rc;
}

/* A load that starts again: a new builder and parser. */
static int reset_loader(cg_loader *ld) {
    const cg_options *o = &ld->opts;
    section_choice choice = {o->section, o->part, o->thread};
    builder_free(&ld->b);
    parser_free(&ld->ps);
    if (builder_init(&ld->b, &choice, o->max_warnings, o->no_cycles)) return -1;
    parser_init(&ld->ps, &ld->b, o->tolerant);
    return 0;
}

/* Each input is parsed under its own name; the failure of one leaves the loader unusable. */
static int add_input(cg_loader *ld, const char *name, const char *path, const void *data,
                     size_t size, cg_error *err) {
    clear_error(err);
    if (ld->failed) {
        set_error(err, CG_ERR_USAGE, 0, "%s: the loader already failed", name);
        return -1;
    }
    int threads = input_threads(ld, path, data, size);
    int rc = 0, redo = 1;
    if (threads > 1 && !ld->inputs) {
        /* the first input: what it adds can be thrown away for a load on one thread */
        rc = read_split(ld, name, path, data, size, threads, err, &redo);
        if (redo && reset_loader(ld)) {
            set_error(err, CG_ERR_NOMEM, 0, "%s: out of memory", name);
            ld->failed = 1;
            return -1;
        }
    }
    ld->inputs++;
    if (redo) {
        clear_error(err);
        rc = read_input(ld, name, path, data, size, threads > 1, err);
    }
    if (rc) {
        ld->failed = 1;
        return -1;
    }
    if (ld->ps.st.lineno) ld->inputs_with_text++;
    return 0;
}

int cg_loader_add_file(cg_loader *ld, const char *path, cg_error *err) {
    if (!ld || !path) {
        set_error(err, CG_ERR_USAGE, 0, "cg_loader_add_file: NULL argument");
        return -1;
    }
    return add_input(ld, path, path, NULL, 0, err);
}

int cg_loader_add_buffer(cg_loader *ld, const void *data, size_t size, const char *name,
                         cg_error *err) {
    if (!ld || (!data && size)) {
        set_error(err, CG_ERR_USAGE, 0, "cg_loader_add_buffer: NULL argument");
        return -1;
    }
    return add_input(ld, name ? name : "(buffer)", NULL, data ? data : "", size, err);
}

/* Appends to `out` the distinct values of column `col` of the sections read (part or thread),
 * in the order first seen, at most a screenful. */
static void list_ids(const cg_loader *ld, int col, char *out, size_t size) {
    size_t used = 0, shown = 0;
    out[0] = '\0';
    for (size_t i = 0; i < ld->b.sections_read && used < size; i++) {
        uint64_t v = ld->b.read_ids[i][col];
        size_t j = 0;
        while (j < i && ld->b.read_ids[j][col] != v) j++;
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
    const char *name = ld->inputs_with_text > 1 ? "the inputs" : ld->ps.site.name;
    char parts[300], threads[300];
    list_ids(ld, 0, parts, sizeof parts);
    list_ids(ld, 1, threads, sizeof threads);
    if (o->section && o->section > ld->b.sections_read)
        set_error(err, CG_ERR_USAGE, 0, "%s: no section %zu: the input has %zu", name, o->section,
                  ld->b.sections_read);
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

/* Where the faults found once every input is read are reported: the last input (its end), or
 * "profile" for one made from other profiles. */
static fault_site end_site(const cg_loader *ld, cg_error *err) {
    fault_site site = ld->ps.site;
    site.err = err;
    if (!ld->inputs) site.name = "profile";
    return site;
}

/* What no single input can tell: every input was empty, or the options kept no section. */
static int check_inputs(const cg_loader *ld, cg_error *err) {
    const cg_options *o = &ld->opts;
    if (ld->inputs && !ld->inputs_with_text && !o->tolerant) {
        fault_site site = end_site(ld, err);
        return fault_stop(&site, CG_ERR_FORMAT, 0, "empty input");
    }
    if ((o->section || o->part || o->thread) && ld->b.sections_read && !ld->b.p->nsections)
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
    builder *b = &ld->b;
    fault_site site = end_site(ld, err);
    uint64_t line = ld->ps.st.lineno;
    if (check_inputs(ld, err)) {
        cg_loader_free(ld);
        return NULL;
    }
    /* the records still held by position join their stream (line_block.h); their sums do not
     * overflow where the self cost did not, so only memory can fail */
    if (build_release_held(b)) {
        set_error(err, CG_ERR_NOMEM, 0, "out of memory");
        cg_loader_free(ld);
        return NULL;
    }
    /* the parser's name tables go before the numbering, the peak of a load */
    parser_free(&ld->ps);
    /* the calls and jumps kept per function while reading get their numbers */
    if (build_number(b, load_threads(&ld->opts))) {
        set_error(err, CG_ERR_NOMEM, 0, "out of memory");
        cg_loader_free(ld);
        return NULL;
    }
    if (resolve_guessed_callees(b, &site, line)) {
        cg_loader_free(ld);
        return NULL;
    }
    /* what only building needed goes before the analysis allocates, and the record arrays
     * give back their room for growth */
    builder_finish(b);
    if (apply_event_descs(b->p, b->descs, b->ndescs, err) ||
        analysis_run(b->p, &b->scratch, &site, line, load_threads(&ld->opts))) {
        cg_loader_free(ld);
        return NULL;
    }
    cg_profile *p = builder_take(b);
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
