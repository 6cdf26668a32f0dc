/* reader.c - turns an input (file, gzip stream, memory buffer) into runs of whole lines for a
 * line sink, reading a bounded chunk at a time so memory does not grow with the input's size, and
 * reports progress a bounded number of times. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "inflate.h"
#include "pages.h"
#include "reader.h"

enum { CHUNK = 2 << 20, PROGRESS_STEPS = 100 };

typedef struct line_buffer {
    char *buf;
    size_t len, cap;
} line_buffer;

typedef struct progress {
    uint64_t total, next;
} progress;

/* What one read works with: where the lines go, the options, the error of the call. */
typedef struct reading {
    const read_options *opts;
    const line_sink *sink;
    cg_error *err;
} reading;

/* Calls the progress callback; -1 with the error set when it asks to stop. */
static int call_progress(const read_options *o, uint64_t done, uint64_t total, cg_error *err) {
    if (o->progress(o->progress_userdata, done, total)) {
        set_error(err, CG_ERR_ABORTED, 0, "%s: load aborted by the progress callback", o->name);
        return -1;
    }
    return 0;
}

static int report_progress(const reading *rd, progress *pr, uint64_t done, int last) {
    const read_options *o = rd->opts;
    if (!o->progress || (!last && done < pr->next)) return 0;
    uint64_t step = pr->total / PROGRESS_STEPS;
    if (step < CHUNK) step = CHUNK;
    pr->next = done + step;
    return call_progress(o, done, pr->total, rd->err);
}

static int nomem(const reading *rd) {
    set_error(rd->err, CG_ERR_NOMEM, 0, "%s: out of memory", rd->opts->name);
    return -1;
}

/* Makes room for at least `want` more bytes. */
static int reserve(line_buffer *lb, size_t want, const reading *rd) {
    if (lb->cap - lb->len >= want) return 0;
    size_t ncap = lb->cap ? lb->cap : CHUNK;
    while (ncap - lb->len < want) {
        if (ncap > SIZE_MAX / 2) return nomem(rd);
        ncap *= 2;
    }
    /* a new buffer in a huge page where the kernel lends one: 512 faults fewer per load */
    char *b = lb->buf ? realloc(lb->buf, ncap) : pages_buffer(ncap);
    if (!b) return nomem(rd);
    lb->buf = b;
    lb->cap = ncap;
    return 0;
}

/* Hands the whole lines in the buffer to the sink and keeps the unfinished last one for later
 * (all of it when `at_end`); `last` when nothing more is read into the buffer. A sink that
 * keeps the buffer (line_sink.swap) gives another to go on with, where the unfinished line is
 * copied. */
static int flush_lines(const reading *rd, line_buffer *lb, int at_end, int last) {
    const line_sink *sink = rd->sink;
    size_t n = lb->len;
    if (!at_end)
        while (n > 0 && lb->buf[n - 1] != '\n') n--;
    if (n == 0) return 0;
    int rc = sink->lines(sink->ctx, lb->buf, n, rd->err);
    size_t rest = lb->len - n;
    if (sink->swap) {
        size_t want = 0, ncap = 0;
        if (!rc && !last) want = lb->cap - rest >= CHUNK / 2 ? lb->cap : rest + CHUNK / 2;
        char *b = sink->swap(sink->ctx, lb->buf, lb->cap, want, &ncap);
        if (b != lb->buf) { /* the sink keeps the lines it was handed, and their buffer */
            if (b) memcpy(b, lb->buf + n, rest);
            lb->buf = b;
            lb->cap = b ? ncap : 0;
            lb->len = b ? rest : 0;
            if (rc) return -1;
            return b || !want ? 0 : nomem(rd);
        }
    }
    if (rc) return -1;
    memmove(lb->buf, lb->buf + n, rest);
    lb->len = rest;
    return 0;
}

/* Where bytes come from: a file descriptor or a memory buffer. */
typedef struct source {
    int fd; /* -1 for memory */
    const unsigned char *mem;
    size_t mem_size, mem_offset;
} source;

static ssize_t source_read(source *src, void *buf, size_t n) {
    if (src->fd < 0) {
        size_t left = src->mem_size - src->mem_offset;
        if (n > left) n = left;
        memcpy(buf, src->mem + src->mem_offset, n);
        src->mem_offset += n;
        return (ssize_t)n;
    }
    for (;;) {
        ssize_t got = read(src->fd, buf, n);
        if (got >= 0 || errno != EINTR) return got;
    }
}

/* Reads the source to its end, inflating when `gz` is set, and hands its lines to the sink. */
static int pump(const reading *rd, source *src, gz_stream *gz, uint64_t total) {
    line_buffer lb = {NULL, 0, 0};
    unsigned char *in = NULL;
    progress pr = {total, 0};
    uint64_t done = 0;
    int rc = -1, eof = 0, ended = 0;
    const char *fault = NULL;
    if (gz && !(in = pages_buffer(CHUNK))) return nomem(rd);
    for (;;) {
        if (reserve(&lb, CHUNK / 2, rd)) goto out;
        if (!gz) {
            ssize_t n = source_read(src, lb.buf + lb.len, lb.cap - lb.len);
            if (n < 0) goto io_error;
            if (n == 0) break;
            lb.len += (size_t)n;
            done += (uint64_t)n;
        } else {
            if (gz_input_left(gz) == 0 && !eof) {
                ssize_t n = source_read(src, in, CHUNK);
                if (n < 0) goto io_error;
                eof = n == 0;
                gz_input(gz, in, (size_t)n);
                done += (uint64_t)n;
            }
            size_t left = gz_input_left(gz), made;
            gz_result r = gz_inflate(gz, (unsigned char *)lb.buf + lb.len, lb.cap - lb.len, &made);
            lb.len += made;
            if (r == GZ_CORRUPT) {
                fault = "corrupt gzip data";
                break;
            }
            /* a member that ended, and no byte of a next one since: the stream may end here */
            if (r == GZ_MEMBER_END)
                ended = 1;
            else if (gz_input_left(gz) != left)
                ended = 0;
            if (r == GZ_OK && !made && gz_input_left(gz) == left && eof && left == 0) {
                if (!ended) fault = "gzip data ends early";
                break;
            }
        }
        if (flush_lines(rd, &lb, 0, 0) || report_progress(rd, &pr, done, 0)) goto out;
    }
    /* Lines decoded before a damaged part of a stream are kept; the unfinished line the damage
     * cut is not read: the stream's fault is what went wrong, not that line. */
    if (flush_lines(rd, &lb, !fault, 1)) goto out;
    if (fault && rd->sink->damaged(rd->sink->ctx, fault, rd->err)) goto out;
    rc = report_progress(rd, &pr, done, 1);
    goto out;
io_error:
    set_error(rd->err, CG_ERR_IO, 0, "%s: %s", rd->opts->name, strerror(errno));
out:
    free(lb.buf);
    free(in);
    return rc;
}

static int is_gzip(const unsigned char *b, size_t n) {
    return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

static int pump_gzip(const reading *rd, source *src, uint64_t total) {
    gz_stream *gz = gz_open();
    if (!gz) return nomem(rd);
    int rc = pump(rd, src, gz, total);
    gz_close(gz);
    return rc;
}

int read_file(const char *path, const read_options *opts, const line_sink *sink, cg_error *err) {
    reading rd = {opts, sink, err};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        set_error(err, CG_ERR_IO, 0, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat sb;
    unsigned char head[2];
    ssize_t got = -1;
    if (fstat(fd, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            set_error(err, CG_ERR_IO, 0, "%s: is a directory", path);
            close(fd);
            return -1;
        }
        got = pread(fd, head, sizeof head, 0);
    }
    if (got < 0) {
        set_error(err, CG_ERR_IO, 0, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    source src = {fd, NULL, 0, 0};
    uint64_t total = S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
    int rc =
        is_gzip(head, (size_t)got) ? pump_gzip(&rd, &src, total) : pump(&rd, &src, NULL, total);
    close(fd);
    return rc;
}

uint64_t read_text_estimate(const char *path, const void *data, size_t size) {
    enum { GZIP_TEXT_RATIO = 4 };
    unsigned char head[2] = {0, 0};
    size_t got = size < sizeof head ? size : sizeof head;
    uint64_t bytes = size;
    if (path) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return UINT64_MAX;
        struct stat sb;
        ssize_t n = -1;
        if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) n = pread(fd, head, sizeof head, 0);
        close(fd);
        if (n < 0) return UINT64_MAX;
        got = (size_t)n;
        bytes = (uint64_t)sb.st_size;
    } else if (got) {
        memcpy(head, data, got);
    }
    if (!is_gzip(head, got)) return bytes;
    return bytes > UINT64_MAX / GZIP_TEXT_RATIO ? UINT64_MAX : bytes * GZIP_TEXT_RATIO;
}

/* Plain text in memory is parsed in place, in slices that end at a line end so that progress
 * can be reported; gzip data is inflated a chunk at a time. */
int read_buffer(const void *data, size_t size, const read_options *opts, const line_sink *sink,
                cg_error *err) {
    reading rd = {opts, sink, err};
    if (is_gzip(data, size)) {
        source src = {-1, data, size, 0};
        return pump_gzip(&rd, &src, size);
    }
    const char *text = data;
    progress pr = {size, 0};
    size_t offset = 0;
    while (offset < size) {
        size_t n = size - offset > CHUNK * 4 ? CHUNK * 4 : size - offset;
        const char *nl = memchr(text + offset + n - 1, '\n', size - offset - n + 1);
        n = nl ? (size_t)(nl + 1 - (text + offset)) : size - offset;
        if (sink->lines(sink->ctx, text + offset, n, err)) return -1;
        offset += n;
        if (report_progress(&rd, &pr, offset, 0)) return -1;
    }
    return report_progress(&rd, &pr, size, 1);
}

/* ---- reading ahead in a thread of its own ---- */

/* What the reading thread hands over, in order: lines, progress, a damaged stream, the end. */
enum { AHEAD_LINES, AHEAD_PROGRESS, AHEAD_DAMAGED, AHEAD_END };
enum { AHEAD_QUEUED = 2, AHEAD_PIECE = 256 << 10 }; /* pieces of lines waiting at most */
enum { AHEAD_SPARES = 4 }; /* buffers the sink gave back, kept for the reading thread */

typedef struct ahead_item {
    struct ahead_item *next;
    int kind;
    size_t size;
    const char *what; /* AHEAD_DAMAGED: a string literal of pump */
    uint64_t done, total;
    /* AHEAD_LINES for a sink that keeps buffers (line_sink.swap): the lines are at the start of
     * the reader's buffer `buf`, handed over whole, and `last` when the reader wanted no other */
    char *buf;
    size_t cap;
    int last;
    char data[]; /* AHEAD_LINES for a sink that does not: a copy of the lines */
} ahead_item;

typedef struct ahead {
    /* the reading thread's input */
    const char *path;
    const void *data;
    size_t size;
    read_options opts; /* progress forwarded */
    line_sink sink;    /* forwarding */
    cg_error err;      /* its own error, given when it ends the read */
    int rc;
    /* shared, under lock */
    pthread_mutex_t lock;
    pthread_cond_t items, room;
    ahead_item *head, *tail;
    size_t queued; /* AHEAD_LINES items waiting */
    int stop;      /* the calling thread stopped: the reading thread gives up */
    char *spare[AHEAD_SPARES];
    size_t spare_cap[AHEAD_SPARES], nspares;
    /* the reading thread's own: the bytes of lines at the start of its buffer, waiting for
     * its swap */
    size_t pending;
} ahead;

/* Queues an item; -1 when the calling thread stopped (the read then ends at once). */
static int ahead_push(ahead *a, ahead_item *it, cg_error *err) {
    pthread_mutex_lock(&a->lock);
    while (it->kind == AHEAD_LINES && a->queued >= AHEAD_QUEUED && !a->stop)
        pthread_cond_wait(&a->room, &a->lock);
    int stop = a->stop;
    if (!stop) {
        it->next = NULL;
        if (a->tail)
            a->tail->next = it;
        else
            a->head = it;
        a->tail = it;
        if (it->kind == AHEAD_LINES) a->queued++;
        pthread_cond_signal(&a->items);
    }
    pthread_mutex_unlock(&a->lock);
    if (stop) {
        free(it); /* its buffer, if any, is the caller's to free */
        set_error(err, CG_ERR_ABORTED, 0, "%s: stopped", a->opts.name);
        return -1;
    }
    return 0;
}

static ahead_item *ahead_item_new(ahead *a, int kind, size_t size, cg_error *err) {
    ahead_item *it = malloc(sizeof *it + size);
    if (!it) {
        set_error(err, CG_ERR_NOMEM, 0, "%s: out of memory", a->opts.name);
        return NULL;
    }
    memset(it, 0, sizeof *it);
    it->kind = kind;
    it->size = size;
    return it;
}

/* Lines are handed over in pieces of about AHEAD_PIECE bytes cut at line ends, so that what
 * waits between the threads stays small beside the reader's own chunk; to a sink that keeps
 * buffers, with the buffer itself (ahead_swap, called next). */
static int ahead_lines(void *ctx, const char *data, size_t size, cg_error *err) {
    ahead *a = ctx;
    if (a->sink.swap) {
        a->pending = size; /* at the start of the buffer swap is given next */
        return 0;
    }
    while (size) {
        size_t n = size;
        if (n > AHEAD_PIECE) {
            const char *nl = memchr(data + AHEAD_PIECE - 1, '\n', size - AHEAD_PIECE + 1);
            n = nl ? (size_t)(nl + 1 - data) : size;
        }
        ahead_item *it = ahead_item_new(a, AHEAD_LINES, n, err);
        if (!it) return -1;
        memcpy(it->data, data, n);
        if (ahead_push(a, it, err)) return -1;
        data += n;
        size -= n;
    }
    return 0;
}

/* A spare buffer of at least `want` bytes (one the sink gave back, else a new one), or NULL. */
static char *ahead_spare(ahead *a, size_t want, size_t *cap) {
    char *b = NULL;
    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; i < a->nspares; i++) {
        if (a->spare_cap[i] < want) continue;
        b = a->spare[i];
        *cap = a->spare_cap[i];
        a->nspares--;
        a->spare[i] = a->spare[a->nspares];
        a->spare_cap[i] = a->spare_cap[a->nspares];
        break;
    }
    pthread_mutex_unlock(&a->lock);
    if (!b && (b = pages_buffer(want))) *cap = want;
    return b;
}

/* A buffer back from the sink, for the reading thread to fill again (freed past a few). */
static void ahead_give_back(ahead *a, char *b, size_t cap) {
    pthread_mutex_lock(&a->lock);
    if (a->nspares < AHEAD_SPARES) {
        a->spare[a->nspares] = b;
        a->spare_cap[a->nspares++] = cap;
        b = NULL;
    }
    pthread_mutex_unlock(&a->lock);
    free(b);
}

/* The reader's buffer with the lines it just handed over goes to the calling thread whole
 * (no copy); the reader goes on with a spare one. */
static char *ahead_swap(void *ctx, char *buf, size_t cap, size_t want, size_t *new_cap) {
    ahead *a = ctx;
    cg_error err;
    ahead_item *it = ahead_item_new(a, AHEAD_LINES, 0, &err);
    if (!it) return NULL; /* `buf` is the reader's to free: out of memory */
    it->buf = buf;
    it->cap = cap;
    it->size = a->pending;
    it->last = !want;
    a->pending = 0;
    if (ahead_push(a, it, &err)) {
        free(buf); /* the calling thread stopped: nothing more is read */
        return NULL;
    }
    return want ? ahead_spare(a, want, new_cap) : NULL;
}

static int ahead_damaged(void *ctx, const char *what, cg_error *err) {
    ahead *a = ctx;
    ahead_item *it = ahead_item_new(a, AHEAD_DAMAGED, 0, err);
    if (!it) return -1;
    it->what = what;
    return ahead_push(a, it, err);
}

static int ahead_progress(void *ctx, uint64_t done, uint64_t total) {
    ahead *a = ctx;
    ahead_item *it = ahead_item_new(a, AHEAD_PROGRESS, 0, &a->err);
    if (!it) return 1;
    it->done = done;
    it->total = total;
    return ahead_push(a, it, &a->err) ? 1 : 0;
}

static void *ahead_thread(void *arg) {
    ahead *a = arg;
    a->rc = a->path ? read_file(a->path, &a->opts, &a->sink, &a->err)
                    : read_buffer(a->data, a->size, &a->opts, &a->sink, &a->err);
    pthread_mutex_lock(&a->lock);
    ahead_item *end = malloc(sizeof *end);
    if (end) { /* else the calling thread sees the end by the thread's exit */
        memset(end, 0, sizeof *end);
        end->kind = AHEAD_END;
        if (a->tail)
            a->tail->next = end;
        else
            a->head = end;
        a->tail = end;
    }
    a->stop = 1; /* nothing more comes */
    pthread_cond_signal(&a->items);
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

/* The next item, or NULL when the reading thread ended without one (out of memory); while
 * none is there, the sink's other work (line_sink.idle) before waiting. */
static ahead_item *ahead_pop(ahead *a, const line_sink *sink) {
    pthread_mutex_lock(&a->lock);
    while (!a->head && !a->stop && sink->idle) {
        pthread_mutex_unlock(&a->lock);
        int busy = sink->idle(sink->ctx);
        pthread_mutex_lock(&a->lock);
        if (!busy) break;
    }
    while (!a->head && !a->stop) pthread_cond_wait(&a->items, &a->lock);
    ahead_item *it = a->head;
    if (it) {
        a->head = it->next;
        if (!a->head) a->tail = NULL;
        if (it->kind == AHEAD_LINES) a->queued--;
        pthread_cond_signal(&a->room);
    }
    pthread_mutex_unlock(&a->lock);
    return it;
}

/* Hands an item's lines to the sink; a buffer handed over whole goes on to the sink's swap, as
 * read_file would call it, and what the sink gives back is the reading thread's again. */
static int hand_lines(ahead *a, const line_sink *sink, ahead_item *it, cg_error *err) {
    if (!it->buf) return sink->lines(sink->ctx, it->data, it->size, err);
    int rc = sink->lines(sink->ctx, it->buf, it->size, err);
    size_t want = !rc && !it->last ? it->cap : 0, cap = 0;
    char *b = sink->swap(sink->ctx, it->buf, it->cap, want, &cap);
    if (b == it->buf)
        ahead_give_back(a, b, it->cap); /* the sink kept nothing */
    else if (b)
        ahead_give_back(a, b, cap); /* the sink kept the buffer and gave one for it */
    else if (want) {
        set_error(err, CG_ERR_NOMEM, 0, "%s: out of memory", a->opts.name);
        return -1;
    }
    return rc;
}

static void item_free(ahead_item *it) {
    free(it->buf);
    free(it);
}

/* Runs the read in a thread and hands what it reads to the sink here, in the same order. */
static int read_ahead(const char *path, const void *data, size_t size, const read_options *opts,
                      const line_sink *sink, cg_error *err) {
    ahead *a = calloc(1, sizeof *a);
    if (!a)
        return path ? read_file(path, opts, sink, err) : read_buffer(data, size, opts, sink, err);
    a->path = path;
    a->data = data;
    a->size = size;
    a->opts = *opts;
    if (opts->progress) {
        a->opts.progress = ahead_progress;
        a->opts.progress_userdata = a;
    }
    a->sink = (line_sink){a, ahead_lines, ahead_damaged, sink->swap ? ahead_swap : NULL, NULL};
    clear_error(&a->err);
    pthread_t thread;
    if (pthread_mutex_init(&a->lock, NULL)) {
        free(a);
        return path ? read_file(path, opts, sink, err) : read_buffer(data, size, opts, sink, err);
    }
    pthread_cond_init(&a->items, NULL);
    pthread_cond_init(&a->room, NULL);
    int started = pthread_create(&thread, NULL, ahead_thread, a) == 0;
    int rc = -1, ended = 0;
    while (started) {
        ahead_item *it = ahead_pop(a, sink);
        if (!it) {
            set_error(err, CG_ERR_NOMEM, 0, "%s: out of memory", opts->name);
            break;
        }
        int kind = it->kind;
        int failed = 0;
        if (kind == AHEAD_LINES)
            failed = hand_lines(a, sink, it, err);
        else if (kind == AHEAD_DAMAGED)
            failed = sink->damaged(sink->ctx, it->what, err);
        else if (kind == AHEAD_PROGRESS)
            failed = call_progress(opts, it->done, it->total, err);
        free(it);
        if (failed) break;
        if (kind == AHEAD_END) {
            ended = 1;
            break;
        }
    }
    if (started) {
        /* the reading thread gives up at its next chunk when this one stopped first */
        pthread_mutex_lock(&a->lock);
        a->stop = 1;
        pthread_cond_signal(&a->room);
        pthread_mutex_unlock(&a->lock);
        pthread_join(thread, NULL);
        if (ended) {
            rc = a->rc;
            if (rc && err) *err = a->err;
        }
        for (ahead_item *it = a->head; it;) {
            ahead_item *next = it->next;
            item_free(it);
            it = next;
        }
    }
    for (size_t i = 0; i < a->nspares; i++) free(a->spare[i]);
    pthread_mutex_destroy(&a->lock);
    pthread_cond_destroy(&a->items);
    pthread_cond_destroy(&a->room);
    free(a);
    if (!started)
        return path ? read_file(path, opts, sink, err) : read_buffer(data, size, opts, sink, err);
    return rc;
}

int read_file_ahead(const char *path, const read_options *opts, const line_sink *sink,
                    cg_error *err) {
    return read_ahead(path, NULL, 0, opts, sink, err);
}

int read_buffer_ahead(const void *data, size_t size, const read_options *opts,
                      const line_sink *sink, cg_error *err) {
    /* plain text in memory has nothing to read: it is parsed in place */
    if (!is_gzip(data, size)) return read_buffer(data, size, opts, sink, err);
    return read_ahead(NULL, data, size, opts, sink, err);
}
