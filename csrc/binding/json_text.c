/* json_text.c - names as JSON strings, written by hand into a text buffer as callgrind.json's
 * json.string writes them: the report page's functions and calls (page.c) and the rows of
 * `callgrind functions` (rank.c) come out byte for byte as the Lua writer would make them. */
#include <stdint.h>
#include <string.h>

#include "binding.h"

/* The length of the valid UTF-8 sequence at `s` (of `left` bytes), or 0: what callgrind.json
 * counts as valid (no overlong forms, surrogates or code points past U+10FFFF). */
static size_t utf8_sequence(const unsigned char *s, size_t left) {
    unsigned b = s[0], n;
    uint32_t code, min;
    if (b < 0x80) return 1;
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2, min = 0x80, code = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3, min = 0x800, code = b & 0x0F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4, min = 0x10000, code = b & 0x07;
    } else {
        return 0;
    }
    if (left < n) return 0;
    for (unsigned k = 1; k < n; k++) {
        if (s[k] < 0x80 || s[k] > 0xBF) return 0;
        code = code << 6 | (s[k] & 0x3F);
    }
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
    return n;
}

/* What a byte of a name becomes in a JSON string that is not the byte itself (a quote, a
 * backslash, a control character, as callgrind.json escapes them), in `out`; NULL for none. */
static const char *json_escape(unsigned c, char *out) {
    static const char hex[] = "0123456789abcdef";
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    default:
        if (c >= 0x20 && c != 0x7F) return NULL;
        memcpy(out, "\\u00", 4);
        out[4] = hex[c >> 4], out[5] = hex[c & 15], out[6] = 0;
        return out;
    }
}

/* Appends `text` as a JSON string, as callgrind.json's json.string writes it: bytes that are
 * not valid UTF-8 as U+FFFD, quotes, backslashes and control characters escaped; the plain runs
 * copied whole. 0, or -1 when out of memory. */
int put_json_string(text_buffer *t, const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text), run = 0, i = 0;
    char out[8];
    int bad = text_buffer_append(t, "\"", 1);
    while (i < len) {
        size_t n = utf8_sequence(s + i, len - i);
        const char *piece = n == 0 ? "\xEF\xBF\xBD" : n == 1 ? json_escape(s[i], out) : NULL;
        if (!piece) {
            i += n;
            continue;
        }
        bad |= text_buffer_append(t, text + run, i - run) |
               text_buffer_append(t, piece, strlen(piece));
        i += n ? n : 1;
        run = i;
    }
    bad |= text_buffer_append(t, text + run, len - run) | text_buffer_append(t, "\"", 1);
    return bad ? -1 : 0;
}
