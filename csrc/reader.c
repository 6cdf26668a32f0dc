/* reader.c - turns an input (file, gzip stream, memory buffer) into runs of whole lines for a
 * line sink, reading a bounded chunk at a time so memory does not grow with the input's size, and
 * reports progress a bounded number of times. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "fault.h"
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

static int report_progress(const reading *rd, progress *pr, uint64_t done, int last) {
    const read_options *o = rd->opts;
    if (!o->progress || (!last && done < pr->next)) return 0;
    uint64_t step = pr->total / PROGRESS_STEPS;
    if (step < CHUNK) step = CHUNK;
    pr->next = done + step;
    if (o->progress(o->progress_userdata, done, pr->total)) {
        set_error(rd->err, CG_ERR_ABORTED, 0, "%s: load aborted by the progress callback", o->name);
        return -1;
    }
    return 0;
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
    char *b = realloc(lb->buf, ncap);
    if (!b) return nomem(rd);
    lb->buf = b;
    lb->cap = ncap;
    return 0;
}

/* Hands the whole lines in the buffer to the sink and keeps the unfinished last one for later. */
static int flush_lines(const reading *rd, line_buffer *lb, int at_end) {
    size_t n = lb->len;
    if (!at_end) {
        while (n > 0 && lb->buf[n - 1] != '\n') n--;
        if (n == 0) return 0;
    }
    if (n && rd->sink->lines(rd->sink->ctx, lb->buf, n, rd->err)) return -1;
    memmove(lb->buf, lb->buf + n, lb->len - n);
    lb->len -= n;
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

/* Reads the source to its end, inflating when `z` is set, and hands its lines to the sink. */
static int pump(const reading *rd, source *src, z_stream *z, uint64_t total) {
    line_buffer lb = {NULL, 0, 0};
    unsigned char *in = NULL;
    progress pr = {total, 0};
    uint64_t done = 0;
    int rc = -1, eof = 0, ended = 0;
    const char *fault = NULL;
    if (z && !(in = malloc(CHUNK))) return nomem(rd);
    for (;;) {
        if (reserve(&lb, CHUNK / 2, rd)) goto out;
        if (!z) {
            ssize_t n = source_read(src, lb.buf + lb.len, lb.cap - lb.len);
            if (n < 0) goto io_error;
            if (n == 0) break;
            lb.len += (size_t)n;
            done += (uint64_t)n;
        } else {
            if (z->avail_in == 0 && !eof) {
                ssize_t n = source_read(src, in, CHUNK);
                if (n < 0) goto io_error;
                eof = n == 0;
                z->next_in = in;
                z->avail_in = (unsigned)n;
                done += (uint64_t)n;
            }
            unsigned in_before = z->avail_in;
            z->next_out = (unsigned char *)lb.buf + lb.len;
            z->avail_out = (unsigned)(lb.cap - lb.len);
            int zr = inflate(z, Z_NO_FLUSH);
            lb.len = lb.cap - z->avail_out;
            if (zr == Z_STREAM_END) {
                /* concatenated gzip members continue the same text */
                ended = 1;
                if (inflateReset(z) != Z_OK) {
                    fault = "corrupt gzip data";
                    break;
                }
            } else if (zr == Z_OK) {
                if (z->avail_in != in_before) ended = 0;
            } else if (zr == Z_BUF_ERROR) {
                if (eof && z->avail_in == 0) {
                    if (!ended) fault = "gzip data ends early";
                    break;
                }
            } else {
                fault = "corrupt gzip data";
                break;
            }
        }
        if (flush_lines(rd, &lb, 0) || report_progress(rd, &pr, done, 0)) goto out;
    }
    /* Lines decoded before a damaged part of a stream are kept; the unfinished line the damage
     * cut is not read: the stream's fault is what went wrong, not that line. */
    if (flush_lines(rd, &lb, !fault)) goto out;
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
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return nomem(rd);
    int rc = pump(rd, src, &z, total);
    inflateEnd(&z);
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
