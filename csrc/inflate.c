/* inflate.c - gzip inflation (inflate.h), by ISA-L's igzip when the build has it, else zlib. */
#include "inflate.h"

#include <stdint.h>
#include <stdlib.h>

#ifdef CG_WITH_ISAL

#include <isa-l/igzip_lib.h>

struct gz_stream {
    struct inflate_state s;
    int at_start; /* no byte of the member's header read yet */
};

static void start_member(gz_stream *g) {
    g->at_start = 1;
    uint8_t *in = g->s.next_in;
    uint32_t left = g->s.avail_in;
    isal_inflate_init(&g->s);
    g->s.crc_flag = ISAL_GZIP; /* parse the header, verify the trailer */
    g->s.next_in = in;
    g->s.avail_in = left;
}

gz_stream *gz_open(void) {
    gz_stream *g = calloc(1, sizeof *g);
    if (g) start_member(g);
    return g;
}

void gz_close(gz_stream *g) {
    free(g);
}

void gz_input(gz_stream *g, const unsigned char *in, size_t n) {
    g->s.next_in = (uint8_t *)in;
    g->s.avail_in = (uint32_t)n; /* the reader's chunks are far below 4 GiB */
}

size_t gz_input_left(const gz_stream *g) {
    return g->s.avail_in;
}

gz_result gz_inflate(gz_stream *g, unsigned char *out, size_t room, size_t *made) {
    g->s.next_out = out;
    g->s.avail_out = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
    uint32_t before = g->s.avail_out;
    /* What follows a member must be another one: its magic bytes are checked here, as zlib
     * does, since igzip waits for a whole header before it looks at them. */
    if (g->at_start && g->s.avail_in) {
        const uint8_t *in = g->s.next_in;
        if (in[0] != 0x1f || (g->s.avail_in > 1 && in[1] != 0x8b)) {
            *made = 0;
            return GZ_CORRUPT;
        }
        g->at_start = 0;
    }
    int rc = isal_inflate(&g->s);
    *made = before - g->s.avail_out;
    if (rc < 0) return GZ_CORRUPT;
    if (g->s.block_state != ISAL_BLOCK_FINISH) return GZ_OK;
    /* Whole bytes igzip buffered past the trailer belong to the next member: hand them back. */
    uint32_t unread = (uint32_t)g->s.read_in_length / 8;
    g->s.next_in -= unread;
    g->s.avail_in += unread;
    start_member(g);
    return GZ_MEMBER_END;
}

#else

#include <limits.h>
#include <zlib.h>

struct gz_stream {
    z_stream z;
};

gz_stream *gz_open(void) {
    gz_stream *g = calloc(1, sizeof *g);
    if (g && inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) { /* 16: gzip wrapper */
        free(g);
        return NULL;
    }
    return g;
}

void gz_close(gz_stream *g) {
    if (!g) return;
    inflateEnd(&g->z);
    free(g);
}

void gz_input(gz_stream *g, const unsigned char *in, size_t n) {
    g->z.next_in = (unsigned char *)in;
    g->z.avail_in = (unsigned)n; /* the reader's chunks are far below 4 GiB */
}

size_t gz_input_left(const gz_stream *g) {
    return g->z.avail_in;
}

gz_result gz_inflate(gz_stream *g, unsigned char *out, size_t room, size_t *made) {
    g->z.next_out = out;
    g->z.avail_out = room > UINT_MAX ? UINT_MAX : (unsigned)room;
    unsigned before = g->z.avail_out;
    int rc = inflate(&g->z, Z_NO_FLUSH);
    *made = before - g->z.avail_out;
    if (rc == Z_STREAM_END) return inflateReset(&g->z) == Z_OK ? GZ_MEMBER_END : GZ_CORRUPT;
    /* Z_BUF_ERROR: nothing could be done with the input and room given, not a fault */
    return rc == Z_OK || rc == Z_BUF_ERROR ? GZ_OK : GZ_CORRUPT;
}

#endif
