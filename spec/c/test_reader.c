/* The reader on its own, with a line sink that records what it is handed: whole lines from
 * buffers, files and gzip streams, chunk boundaries, damaged streams, progress and errors, and
 * sinks that keep the reader's buffers (line_sink.swap). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "ctest.h"
#include "reader.h"

/* What a sink was handed: the bytes, in order, and how. */
typedef struct recording {
    char *text;
    size_t len, cap;
    int calls;
    int calls_not_at_line_end; /* runs that did not end with '\n' */
    char damage[64];           /* what the reader said was damaged, "" when nothing */
    int stop_after;            /* > 0: the sink stops the read at that call */
} recording;

static int record_lines(void *ctx, const char *data, size_t size, cg_error *err) {
    recording *r = ctx;
    r->calls++;
    if (size == 0 || data[size - 1] != '\n') r->calls_not_at_line_end++;
    if (r->len + size > r->cap) {
        r->cap = (r->len + size) * 2;
        r->text = realloc(r->text, r->cap);
    }
    memcpy(r->text + r->len, data, size);
    r->len += size;
    if (r->stop_after && r->calls == r->stop_after) {
        snprintf(err->message, sizeof err->message, "stopped by the sink");
        err->code = CG_ERR_FORMAT;
        return -1;
    }
    return 0;
}

static int record_damage(void *ctx, const char *what, cg_error *err) {
    (void)err;
    recording *r = ctx;
    snprintf(r->damage, sizeof r->damage, "%s", what);
    return 0;
}

static int record_damage_ignored(void *ctx, const char *what, cg_error *err) {
    (void)ctx, (void)what, (void)err;
    return 0;
}

static line_sink sink_of(recording *r) {
    memset(r, 0, sizeof *r);
    line_sink s = {r, record_lines, record_damage, NULL, NULL};
    return s;
}

/* `n` bytes of numbered lines, each "line N xxxx...\n" of varied length. */
static char *make_text(size_t n) {
    char *t = malloc(n + 1);
    size_t used = 0;
    for (int i = 1; used < n; i++) {
        int len =
            snprintf(t + used, n + 1 - used, "line %d %.*s\n", i, i % 97,
                     "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrst"
                     "uvwxyzabcdefghijklmnopqrstuvwxyz");
        used += (size_t)len;
    }
    used = n;
    while (t[used - 1] != '\n') used--; /* whole lines only */
    t[used] = '\0';
    return t;
}

static size_t gzip(const char *in, size_t n, unsigned char *out, size_t cap) {
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (unsigned char *)in;
    z.avail_in = (unsigned)n;
    z.next_out = out;
    z.avail_out = (unsigned)cap;
    CHECK_INT(Z_STREAM_END, deflate(&z, Z_FINISH));
    size_t len = z.total_out;
    deflateEnd(&z);
    return len;
}

static void test_buffer(void) {
    recording r;
    line_sink sink = sink_of(&r);
    read_options opts = {"mem", NULL, NULL};
    cg_error err;
    const char text[] = "events: Ir\nfn=main\n1 5\nlast line without newline";
    CHECK_INT(0, read_buffer(text, sizeof text - 1, &opts, &sink, &err));
    CHECK_INT(sizeof text - 1, r.len);
    CHECK(memcmp(r.text, text, r.len) == 0);
    CHECK_INT(1, r.calls); /* a small buffer goes in one run */
    CHECK_STR("", r.damage);
    free(r.text);
}

/* A buffer bigger than a slice is handed over in runs that end at line ends. */
static void test_big_buffer(void) {
    size_t n = 20 << 20;
    char *text = make_text(n);
    size_t len = strlen(text);
    recording r;
    line_sink sink = sink_of(&r);
    read_options opts = {"big", NULL, NULL};
    cg_error err;
    CHECK_INT(0, read_buffer(text, len, &opts, &sink, &err));
    CHECK_INT(len, r.len);
    CHECK(memcmp(r.text, text, len) == 0);
    CHECK(r.calls > 1);
    CHECK_INT(0, r.calls_not_at_line_end);
    free(r.text);
    free(text);
}

static int count_calls(void *userdata, uint64_t done, uint64_t total) {
    (void)done, (void)total;
    int *n = userdata;
    (*n)++;
    return 0;
}

static int abort_load(void *userdata, uint64_t done, uint64_t total) {
    (void)userdata, (void)done, (void)total;
    return 1;
}

/* A file read in 2 MiB chunks: lines cut by a chunk's end are handed over whole, later. */
static void test_file(void) {
    size_t n = 7 << 20;
    char *text = make_text(n);
    size_t len = strlen(text);
    char path[] = "/tmp/test_reader_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_INT(len, write(fd, text, len));
    close(fd);
    recording r;
    line_sink sink = sink_of(&r);
    int progress_calls = 0;
    read_options opts = {path, count_calls, &progress_calls};
    cg_error err;
    CHECK_INT(0, read_file(path, &opts, &sink, &err));
    CHECK_INT(len, r.len);
    CHECK(memcmp(r.text, text, len) == 0);
    CHECK(r.calls >= 3);
    CHECK_INT(0, r.calls_not_at_line_end);
    CHECK(progress_calls >= 2); /* during the read and at its end */
    free(r.text);

    /* the progress callback stops the read */
    sink = sink_of(&r);
    opts.progress = abort_load;
    CHECK_INT(-1, read_file(path, &opts, &sink, &err));
    CHECK_INT(CG_ERR_ABORTED, err.code);
    char expected[128];
    snprintf(expected, sizeof expected, "%s: load aborted by the progress callback", path);
    CHECK_STR(expected, err.message);
    free(r.text);

    /* so does the sink */
    sink = sink_of(&r);
    r.stop_after = 2;
    opts.progress = NULL;
    CHECK_INT(-1, read_file(path, &opts, &sink, &err));
    CHECK_INT(2, r.calls);
    CHECK_STR("stopped by the sink", err.message);
    free(r.text);
    unlink(path);
    free(text);
}

static void test_gzip(void) {
    size_t n = 5 << 20;
    char *text = make_text(n);
    size_t len = strlen(text);
    size_t cap = len + 1024;
    unsigned char *gz = malloc(cap);
    size_t gzlen = gzip(text, len, gz, cap);
    recording r;
    line_sink sink = sink_of(&r);
    read_options opts = {"gz", NULL, NULL};
    cg_error err;
    CHECK_INT(0, read_buffer(gz, gzlen, &opts, &sink, &err));
    CHECK_INT(len, r.len);
    CHECK(memcmp(r.text, text, len) == 0);
    CHECK_STR("", r.damage);
    CHECK_INT(0, r.calls_not_at_line_end);
    free(r.text);

    /* cut short: the lines before the damage are handed over, the cut line is not, and the
     * sink hears what went wrong */
    sink = sink_of(&r);
    CHECK_INT(0, read_buffer(gz, gzlen / 2, &opts, &sink, &err));
    CHECK_STR("gzip data ends early", r.damage);
    CHECK(r.len > 0 && r.len < len);
    CHECK(memcmp(r.text, text, r.len) == 0);
    CHECK(r.text[r.len - 1] == '\n');
    free(r.text);

    /* two gzip members are one text */
    unsigned char *two = malloc(2 * cap);
    size_t half = len / 2;
    while (text[half - 1] != '\n') half--;
    size_t first = gzip(text, half, two, cap);
    size_t second = gzip(text + half, len - half, two + first, cap);
    sink = sink_of(&r);
    CHECK_INT(0, read_buffer(two, first + second, &opts, &sink, &err));
    CHECK_INT(len, r.len);
    CHECK(memcmp(r.text, text, len) == 0);
    CHECK_STR("", r.damage);
    free(r.text);

    /* many small members, one line each: every member boundary falls somewhere else in the
     * bytes the inflater has buffered */
    size_t at = 0, used = 0, lines = 0;
    while (at < len && lines < 300) {
        size_t end = at;
        while (text[end] != '\n') end++;
        used += gzip(text + at, end + 1 - at, two + used, 2 * cap - used);
        at = end + 1;
        lines++;
    }
    sink = sink_of(&r);
    CHECK_INT(0, read_buffer(two, used, &opts, &sink, &err));
    CHECK_INT(at, r.len);
    CHECK(memcmp(r.text, text, at) == 0);
    CHECK_STR("", r.damage);
    free(r.text);

    /* damage: a wrong checksum, bytes after the last member (the text itself is whole) */
    for (int k = 0; k < 2; k++) {
        memcpy(two, gz, gzlen);
        size_t size = gzlen;
        if (k == 0)
            two[gzlen - 6] ^= 0x55; /* in the CRC-32 of the trailer */
        else
            memcpy(two + size, "garbage\n", 8), size += 8;
        sink = sink_of(&r);
        CHECK_INT(0, read_buffer(two, size, &opts, &sink, &err));
        CHECK_STR("corrupt gzip data", r.damage);
        CHECK(memcmp(r.text, text, r.len) == 0);
        free(r.text);
    }
    /* a flipped byte inside the data: the damage is found, as corrupt data or, when the
     * damaged block swallows the rest, as data that ends early */
    memcpy(two, gz, gzlen);
    two[gzlen / 2] ^= 0x55;
    sink = sink_of(&r);
    CHECK_INT(0, read_buffer(two, gzlen, &opts, &sink, &err));
    CHECK(!strcmp(r.damage, "corrupt gzip data") || !strcmp(r.damage, "gzip data ends early"));
    CHECK(r.len < len);
    free(r.text);
    free(two);
    free(gz);
    free(text);
}

/* A sink that keeps the reader's buffers: the runs it was handed, read again once the read is
 * over (the reader must not have written into a kept buffer since), or one that keeps nothing
 * (swap gives `buf` back) and records the size of each run. */
enum { MAX_RUNS = 64 };
typedef struct keeping {
    const char *run[MAX_RUNS];
    size_t size[MAX_RUNS];
    char *kept[MAX_RUNS];
    int runs, nkept, swaps, bad_swaps, ended;
    int keep;       /* keep every buffer, else give each back */
    int stop_after; /* > 0: the sink stops the read at that run */
} keeping;

static int keep_lines(void *ctx, const char *data, size_t size, cg_error *err) {
    keeping *k = ctx;
    if (k->runs < MAX_RUNS) {
        k->run[k->runs] = data;
        k->size[k->runs] = size;
    }
    k->runs++;
    if (k->stop_after && k->runs == k->stop_after) {
        snprintf(err->message, sizeof err->message, "stopped by the sink");
        err->code = CG_ERR_FORMAT;
        return -1;
    }
    return 0;
}

static char *keep_swap(void *ctx, char *buf, size_t cap, size_t want, size_t *new_cap) {
    keeping *k = ctx;
    k->swaps++;
    /* called right after the lines, which begin at `buf` */
    if (k->runs > MAX_RUNS || k->run[k->runs - 1] != buf || k->size[k->runs - 1] > cap)
        k->bad_swaps++;
    if (!want) k->ended++;
    if (!k->keep) return buf;
    if (k->nkept < MAX_RUNS) k->kept[k->nkept++] = buf;
    if (!want) return NULL;
    char *b = malloc(want);
    *new_cap = want;
    return b;
}

static line_sink keeping_sink(keeping *k, int keep) {
    memset(k, 0, sizeof *k);
    k->keep = keep;
    line_sink s = {k, keep_lines, record_damage_ignored, keep_swap, NULL};
    return s;
}

/* The runs a keeping sink was handed, one after the other. */
static int kept_text_is(const keeping *k, const char *text, size_t len) {
    size_t at = 0;
    for (int i = 0; i < k->runs && i < MAX_RUNS; i++) {
        if (at + k->size[i] > len || memcmp(k->run[i], text + at, k->size[i])) return 0;
        at += k->size[i];
    }
    return at == len;
}

static void free_kept(keeping *k) {
    for (int i = 0; i < k->nkept; i++) free(k->kept[i]);
    k->nkept = 0;
}

typedef int (*file_reader)(const char *path, const read_options *opts, const line_sink *sink,
                           cg_error *err);

/* The same text read from a file by a sink that copies, one that keeps every buffer and one
 * that keeps none: the same lines, in the same runs, whether `read` is read_file or
 * read_file_ahead (its reading thread hands its buffers over whole). */
static void check_swaps(file_reader read, const char *path, const char *text, size_t len) {
    read_options opts = {path, NULL, NULL};
    cg_error err;
    recording r;
    line_sink copy = sink_of(&r);
    CHECK_INT(0, read_file(path, &opts, &copy, &err));
    CHECK_INT(len, r.len);
    CHECK(memcmp(r.text, text, len) == 0);
    CHECK(r.calls >= 3 && r.calls <= MAX_RUNS);
    CHECK_INT(1, r.calls_not_at_line_end);

    keeping k;
    line_sink sink = keeping_sink(&k, 1);
    CHECK_INT(0, read(path, &opts, &sink, &err));
    CHECK_INT(r.calls, k.runs);
    CHECK_INT(k.runs, k.swaps);
    CHECK_INT(0, k.bad_swaps);
    CHECK_INT(1, k.ended); /* the last one: no buffer wanted */
    CHECK_INT(k.runs, k.nkept);
    CHECK(kept_text_is(&k, text, len));
    for (int i = 1; i < k.nkept; i++) CHECK(k.kept[i] != k.kept[i - 1]);
    free_kept(&k);

    /* a buffer given back is the reader's again: runs as with the copying sink */
    sink = keeping_sink(&k, 0);
    CHECK_INT(0, read(path, &opts, &sink, &err));
    CHECK_INT(r.calls, k.runs);
    CHECK_INT(k.runs, k.swaps);
    CHECK_INT(0, k.bad_swaps);
    size_t at = 0;
    for (int i = 0; i < k.runs && i < MAX_RUNS; i++) at += k.size[i];
    CHECK_INT(len, at);
    if (read == read_file) CHECK(k.run[0] == k.run[k.runs - 1]); /* one buffer all along */
    free(r.text);

    /* the sink stops the read: the buffer it was handed last is kept all the same */
    sink = keeping_sink(&k, 1);
    k.stop_after = 2;
    CHECK_INT(-1, read(path, &opts, &sink, &err));
    CHECK_STR("stopped by the sink", err.message);
    CHECK_INT(2, k.runs);
    CHECK_INT(2, k.swaps);
    CHECK_INT(1, k.ended);
    CHECK_INT(2, k.nkept);
    CHECK(memcmp(k.run[0], text, k.size[0]) == 0);
    CHECK(memcmp(k.run[1], text + k.size[0], k.size[1]) == 0);
    free_kept(&k);
}

/* A sink that keeps the reader's buffers, for plain and gzip files whose lines cross the
 * reader's 2 MiB chunks. */
static void test_swap(void) {
    size_t n = 7 << 20;
    char *lines = make_text(n);
    /* the last line without its newline: handed over at the end of the input */
    size_t len = strlen(lines) + 9;
    char *text = malloc(len + 1);
    snprintf(text, len + 1, "%s%s", lines, "last line");
    free(lines);
    CHECK(text[(2 << 20) - 1] != '\n'); /* a line crosses the first chunk's end */
    char path[] = "/tmp/test_reader_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_INT(len, write(fd, text, len));
    close(fd);
    check_swaps(read_file, path, text, len);
    check_swaps(read_file_ahead, path, text, len);

    size_t cap = len + 1024;
    unsigned char *gz = malloc(cap);
    size_t gzlen = gzip(text, len, gz, cap);
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0);
    CHECK_INT(gzlen, write(fd, gz, gzlen));
    close(fd);
    check_swaps(read_file, path, text, len);
    check_swaps(read_file_ahead, path, text, len);

    /* gzip data in memory goes through the same buffer */
    keeping k;
    line_sink sink = keeping_sink(&k, 1);
    read_options opts = {"gz", NULL, NULL};
    cg_error err;
    CHECK_INT(0, read_buffer(gz, gzlen, &opts, &sink, &err));
    CHECK(k.runs >= 3);
    CHECK_INT(k.runs, k.nkept);
    CHECK(kept_text_is(&k, text, len));
    int runs = k.runs;
    free_kept(&k);
    /* and inflated in a thread of its own, the buffers handed over whole */
    sink = keeping_sink(&k, 1);
    CHECK_INT(0, read_buffer_ahead(gz, gzlen, &opts, &sink, &err));
    CHECK_INT(runs, k.runs);
    CHECK_INT(k.runs, k.swaps);
    CHECK_INT(0, k.bad_swaps);
    CHECK_INT(k.runs, k.nkept);
    CHECK(kept_text_is(&k, text, len));
    free_kept(&k);

    /* plain text in memory is handed over in place, never swapped */
    sink = keeping_sink(&k, 1);
    CHECK_INT(0, read_buffer(text, len, &opts, &sink, &err));
    CHECK_INT(1, k.runs);
    CHECK(k.run[0] == text);
    CHECK_INT(0, k.swaps);
    unlink(path);
    free(gz);
    free(text);
}

static void test_errors(void) {
    recording r;
    line_sink sink = sink_of(&r);
    read_options opts = {"/nonexistent/file.out", NULL, NULL};
    cg_error err;
    CHECK_INT(-1, read_file("/nonexistent/file.out", &opts, &sink, &err));
    CHECK_INT(CG_ERR_IO, err.code);
    CHECK_STR("/nonexistent/file.out: No such file or directory", err.message);
    opts.name = "/tmp";
    CHECK_INT(-1, read_file("/tmp", &opts, &sink, &err));
    CHECK_STR("/tmp: is a directory", err.message);
    CHECK_INT(0, r.calls);
}

/* What an input holds, known before it is read: a file's or a buffer's size, gzip's times 4. */
static void test_estimate(void) {
    char path[] = "/tmp/test_reader_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char *text = "events: Ir\nfn=main\n1 2\n";
    CHECK_INT((ssize_t)strlen(text), write(fd, text, strlen(text)));
    close(fd);
    CHECK_INT(strlen(text), read_text_estimate(path, NULL, 0));
    unsigned char gz[256];
    size_t gzlen = gzip(text, strlen(text), gz, sizeof gz);
    CHECK(gzlen > 2);
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK_INT((ssize_t)gzlen, write(fd, gz, gzlen));
    close(fd);
    CHECK_INT(4 * gzlen, read_text_estimate(path, NULL, 0));
    unlink(path);
    CHECK_INT(UINT64_MAX, read_text_estimate(path, NULL, 0));        /* gone */
    CHECK_INT(UINT64_MAX, read_text_estimate("/dev/null", NULL, 0)); /* not a regular file */
    CHECK_INT(UINT64_MAX, read_text_estimate("/tmp", NULL, 0));
    CHECK_INT(strlen(text), read_text_estimate(NULL, text, strlen(text)));
    CHECK_INT(4 * gzlen, read_text_estimate(NULL, gz, gzlen));
    CHECK_INT(1, read_text_estimate(NULL, gz, 1));
    CHECK_INT(0, read_text_estimate(NULL, "", 0));
}

int main(void) {
    test_estimate();
    test_buffer();
    test_big_buffer();
    test_file();
    test_gzip();
    test_swap();
    test_errors();
    return ctest_report("test_reader");
}
