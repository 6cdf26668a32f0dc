/* reader.h - the bytes of an input (a file, a gzip stream, a buffer) handed to a line sink in
 * runs of whole lines, a bounded chunk at a time, with progress reported a bounded number of
 * times. The reader knows nothing of the format: what it reads goes to the sink. */
#ifndef CG_READER_H
#define CG_READER_H

#include <stddef.h>

#include "callgrind.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* Where the lines go. Each function returns 0, or -1 to stop the read with err set. */
typedef struct line_sink {
    void *ctx;
    /* Whole lines in [data, data + size); the last one lacks its newline only at the end of
     * the input. */
    int (*lines)(void *ctx, const char *data, size_t size, cg_error *err);
    /* The stream is damaged ("gzip data ends early", "corrupt gzip data") after the lines
     * handed over: the sink decides whether that stops the read. */
    int (*damaged)(void *ctx, const char *what, cg_error *err);
    /* Optional (NULL: the lines last only for the call). Called by read_file and by
     * read_buffer's gzip path right after `lines` was handed bytes at the start of `buf` (a
     * buffer of `cap` bytes the reader allocated with malloc), whatever `lines` returned: the
     * sink either keeps `buf` (the lines it was given stay valid until it frees `buf`) and
     * returns a malloc'd buffer of at least `want` bytes, its size in *new_cap, for the reader
     * to go on with (the reader owns it: it copies the unfinished last line there, may realloc
     * and frees it), or returns `buf` itself when it keeps nothing (the reader goes on with
     * it). `want` 0: the reader reads no more, and a sink that keeps `buf` returns NULL;
     * otherwise NULL means out of memory, `buf` kept. Plain text in memory (read_buffer) is
     * never swapped: its bytes are the caller's and stay valid for the whole read. */
    char *(*swap)(void *ctx, char *buf, size_t cap, size_t want, size_t *new_cap);
    /* Optional: read_file_ahead's next lines are not read yet. The sink may do other work
     * meanwhile; 1 when it did some (the reader looks again), 0 when it has none (the reader
     * waits). */
    int (*idle)(void *ctx);
} line_sink;

/* The input's name for the reader's own errors ("NAME: No such file..."), and its progress. */
typedef struct read_options {
    const char *name;
    cg_progress_fn progress; /* optional */
    void *progress_userdata;
} read_options;

int read_file(const char *path, const read_options *opts, const line_sink *sink, cg_error *err);
int read_buffer(const void *data, size_t size, const read_options *opts, const line_sink *sink,
                cg_error *err);

/* The bytes of text an input holds, known before it is read, for choosing how to read it: a
 * regular file's size or a buffer's, times 4 for gzip data (callgrind's text deflates about that
 * much); UINT64_MAX when not known (not a regular file, or one that cannot be opened: its read
 * says why). */
uint64_t read_text_estimate(const char *path, const void *data, size_t size);

/* The same reads with the reading (and the inflating of gzip data) in a thread of its own, a
 * few chunks ahead: the sink and the progress callback are still called on the calling thread,
 * with the same lines in the same order, and the read ends with the same error. Plain text in
 * memory is parsed in place, as read_buffer does. When no thread can be made, the read runs
 * on the calling thread. A sink with `swap` gets the reading thread's buffers whole, each
 * followed by its swap as read_file calls it (the buffers it gives back go to the reading
 * thread again); a sink without gets copies of the lines, which last only for the call. */
int read_file_ahead(const char *path, const read_options *opts, const line_sink *sink,
                    cg_error *err);
int read_buffer_ahead(const void *data, size_t size, const read_options *opts,
                      const line_sink *sink, cg_error *err);

#pragma GCC visibility pop

#endif
