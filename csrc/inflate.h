/* inflate.h - gzip data inflated a piece at a time for the reader. Two builds of the same
 * interface: zlib's inflate, or ISA-L's igzip (about three times faster) when the build defines
 * CG_WITH_ISAL (the Makefile does when ISA-L is installed). The members of a concatenated stream
 * continue the same text. */
#ifndef CG_INFLATE_H
#define CG_INFLATE_H

#include <stddef.h>

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct gz_stream gz_stream;

typedef enum gz_result {
    GZ_OK,         /* inflated what it could: wants more input or more room */
    GZ_MEMBER_END, /* a member ended, checksum and length verified; a next one may follow */
    GZ_CORRUPT     /* the data is not gzip, or is damaged */
} gz_result;

/* A stream at the start of a member; NULL when out of memory. */
gz_stream *gz_open(void);
void gz_close(gz_stream *g);
/* The next input, once the stream has taken all of the previous one (gz_input_left is 0). */
void gz_input(gz_stream *g, const unsigned char *in, size_t n);
size_t gz_input_left(const gz_stream *g);
/* Inflates into out[0, room) and sets *made to the bytes written. */
gz_result gz_inflate(gz_stream *g, unsigned char *out, size_t room, size_t *made);

#pragma GCC visibility pop

#endif
