/* text_writer.h - text handed to a cg_text_sink (report.h) a buffer at a time: the function
 * listing (listing.c) and annotated source (annotated.c). A sink that returns non-zero stops
 * the writer: what follows is dropped, and `stopped` says so. */
#ifndef CG_TEXT_WRITER_H
#define CG_TEXT_WRITER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#pragma GCC visibility push(hidden)

#define TEXT_WRITER_SIZE 65536

typedef struct text_writer {
    cg_text_sink sink;
    void *userdata;
    size_t len;
    int stopped;
    char buf[TEXT_WRITER_SIZE];
} text_writer;

/* A writer to `sink` (malloc'd: its buffer is too big for a stack), or NULL. */
static inline text_writer *text_writer_new(cg_text_sink sink, void *userdata) {
    text_writer *w = malloc(sizeof *w);
    if (!w) return NULL;
    w->sink = sink;
    w->userdata = userdata;
    w->len = 0;
    w->stopped = 0;
    return w;
}

static inline void text_flush(text_writer *w) {
    if (w->len && !w->stopped && w->sink(w->userdata, w->buf, w->len)) w->stopped = 1;
    w->len = 0;
}

static inline void text_put(text_writer *w, const char *s, size_t n) {
    if (w->len + n > TEXT_WRITER_SIZE) {
        text_flush(w);
        if (n > TEXT_WRITER_SIZE) {
            if (!w->stopped && w->sink(w->userdata, s, n)) w->stopped = 1;
            return;
        }
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static inline void text_puts(text_writer *w, const char *s) {
    text_put(w, s, strlen(s));
}

/* callgrind_annotate's label of a function: "file:name", "???" for no file. */
static inline void text_put_label(text_writer *w, const char *file, const char *name) {
    text_puts(w, *file ? file : "???");
    text_put(w, ":", 1);
    text_puts(w, name);
}

/* A writer's end: 0 when it finished (`rc` 0) and the sink took everything; else -1 with `err`
 * (when not NULL) saying what stopped it: `rc` -2 a cost beyond 64 bits (`overflow`), -1 no
 * memory, 0 the sink (`stopped`). */
static inline int text_writer_end(int rc, int stopped, cg_error *err, const char *overflow,
                                  const char *stopped_message) {
    if (!rc && !stopped) return 0;
    if (err) {
        err->code = rc == -2 ? CG_ERR_OVERFLOW : rc == -1 ? CG_ERR_NOMEM : CG_ERR_ABORTED;
        err->line = 0;
        snprintf(err->message, sizeof err->message, "%s",
                 rc == -2   ? overflow
                 : rc == -1 ? "out of memory"
                            : stopped_message);
    }
    return -1;
}

#pragma GCC visibility pop

#endif
