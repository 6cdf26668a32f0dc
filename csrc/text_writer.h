/* text_writer.h - text handed to a cg_text_sink (report.h) a buffer at a time: the function
 * listing (listing.c) and annotated source (annotated.c). A sink that returns non-zero stops
 * the writer: what follows is dropped, and `stopped` says so. */
#ifndef CG_TEXT_WRITER_H
#define CG_TEXT_WRITER_H

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

#pragma GCC visibility pop

#endif
