/*
 * workload.c - a CPU-bound program for the benchmarks' real profile: it makes a text, compresses
 * it with LZ77 (hash chains) and canonical Huffman codes, decompresses and checks it, then sorts
 * the words of the text three ways (qsort, a merge sort and a radix sort) and counts them.
 *
 *   workload [KIB]     size of the text, 512 KiB by default
 *
 * Prints a checksum so that the work cannot be optimised away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- input ---- */

static uint64_t prng_state = 0x2545f4914f6cdd1dULL;

static uint32_t prng(void) {
    prng_state ^= prng_state << 13;
    prng_state ^= prng_state >> 7;
    prng_state ^= prng_state << 17;
    return (uint32_t)(prng_state >> 16);
}

static const char *const words[] = {
    "profile", "function", "call",    "cost",   "inclusive", "exclusive", "cycle",  "event",
    "instruction", "cache", "miss",   "branch", "jump",      "line",      "file",   "object",
    "the",     "a",        "of",      "to",     "and",       "in",        "is",     "for",
    "compress", "decode",  "encode",  "symbol", "table",     "tree",      "sort",   "merge"};

static size_t make_text(char *text, size_t size) {
    size_t n = 0;
    while (n + 16 < size) {
        /* Zipf-like: earlier words much more often */
        uint32_t r = prng() % 1024;
        size_t w = (size_t)(r * r) / (1024 * 1024 / (sizeof words / sizeof *words));
        const char *word = words[w % (sizeof words / sizeof *words)];
        size_t len = strlen(word);
        memcpy(text + n, word, len);
        n += len;
        text[n++] = prng() % 11 == 0 ? '\n' : ' ';
    }
    return n;
}

/* ---- bit output and input ---- */

typedef struct bits {
    uint8_t *buf;
    size_t pos; /* in bits */
} bits;

static void put_bits(bits *b, uint32_t value, int count) {
    for (int i = 0; i < count; i++, b->pos++) {
        if (value >> i & 1) b->buf[b->pos >> 3] |= (uint8_t)(1u << (b->pos & 7));
    }
}

static uint32_t get_bit(bits *b) {
    uint32_t v = b->buf[b->pos >> 3] >> (b->pos & 7) & 1;
    b->pos++;
    return v;
}

static uint32_t get_bits(bits *b, int count) {
    uint32_t v = 0;
    for (int i = 0; i < count; i++) v |= get_bit(b) << i;
    return v;
}

/* ---- LZ77 with hash chains ---- */

enum { WINDOW = 1 << 15, MIN_MATCH = 3, MAX_MATCH = 258, HASH_BITS = 15, MAX_CHAIN = 48 };

typedef struct token {
    uint16_t length; /* 0: a literal */
    uint16_t distance;
    uint8_t literal;
} token;

static uint32_t hash3(const uint8_t *p) {
    return ((uint32_t)p[0] << 10 ^ (uint32_t)p[1] << 5 ^ p[2]) & ((1 << HASH_BITS) - 1);
}

static size_t match_length(const uint8_t *a, const uint8_t *b, size_t limit) {
    size_t n = 0;
    while (n < limit && a[n] == b[n]) n++;
    return n;
}

static size_t lz77(const uint8_t *in, size_t n, token *out) {
    int32_t *head = malloc(sizeof(int32_t) << HASH_BITS);
    int32_t *prev = malloc(sizeof(int32_t) * n);
    for (size_t i = 0; i < (size_t)1 << HASH_BITS; i++) head[i] = -1;
    size_t ntok = 0;
    for (size_t i = 0; i < n;) {
        size_t best = 0, best_dist = 0;
        if (i + MIN_MATCH <= n) {
            uint32_t h = hash3(in + i);
            int chain = 0;
            for (int32_t j = head[h]; j >= 0 && i - (size_t)j <= WINDOW && chain < MAX_CHAIN;
                 j = prev[j], chain++) {
                size_t limit = n - i < MAX_MATCH ? n - i : MAX_MATCH;
                size_t len = match_length(in + j, in + i, limit);
                if (len > best) best = len, best_dist = i - (size_t)j;
            }
            prev[i] = head[h];
            head[h] = (int32_t)i;
        }
        if (best >= MIN_MATCH) {
            out[ntok++] = (token){(uint16_t)best, (uint16_t)best_dist, 0};
            for (size_t k = 1; k < best && i + k + MIN_MATCH <= n; k++) {
                uint32_t h = hash3(in + i + k);
                prev[i + k] = head[h];
                head[h] = (int32_t)(i + k);
            }
            i += best;
        } else {
            out[ntok++] = (token){0, 0, in[i]};
            i++;
        }
    }
    free(head);
    free(prev);
    return ntok;
}

/* ---- canonical Huffman codes over 512 symbols: 256 literals, 256 length classes ---- */

enum { NSYM = 512, MAX_BITS = 15 };

typedef struct node {
    uint64_t weight;
    int left, right;
} node;

static int by_weight(const void *a, const void *b) {
    const node *x = a, *y = b;
    return x->weight < y->weight ? -1 : x->weight > y->weight;
}

/* Code lengths from symbol counts (a plain Huffman tree, depth capped by flattening). */
static void code_lengths(const uint64_t *count, uint8_t *len) {
    node nodes[2 * NSYM];
    int leaves[NSYM], nleaves = 0;
    for (int s = 0; s < NSYM; s++)
        if (count[s]) leaves[nleaves++] = s;
    memset(len, 0, NSYM);
    if (nleaves == 1) {
        len[leaves[0]] = 1;
        return;
    }
    node sorted[NSYM];
    for (int i = 0; i < nleaves; i++) sorted[i] = (node){count[leaves[i]], leaves[i], -1};
    qsort(sorted, (size_t)nleaves, sizeof *sorted, by_weight);
    /* two queues: leaves in order, inner nodes in order of creation */
    int nn = 0, qi = 0, li = 0;
    int inner[NSYM];
    int ninner = 0;
    for (int i = 0; i < nleaves; i++) nodes[nn++] = (node){sorted[i].weight, -1 - sorted[i].left, -1};
    for (int made = 0; made < nleaves - 1; made++) {
        int pick[2];
        for (int k = 0; k < 2; k++) {
            if (li < nleaves && (qi >= ninner || nodes[li].weight <= nodes[inner[qi]].weight))
                pick[k] = li++;
            else
                pick[k] = inner[qi++];
        }
        nodes[nn] = (node){nodes[pick[0]].weight + nodes[pick[1]].weight, pick[0], pick[1]};
        inner[ninner++] = nn++;
    }
    /* depths by walking down from the root */
    int stack[2 * NSYM], depth[2 * NSYM], sp = 0;
    stack[sp] = nn - 1, depth[sp++] = 0;
    while (sp) {
        sp--;
        int v = stack[sp], d = depth[sp];
        if (nodes[v].left < 0) {
            len[-1 - nodes[v].left] = (uint8_t)(d > MAX_BITS ? MAX_BITS : d);
        } else {
            stack[sp] = nodes[v].left, depth[sp++] = d + 1;
            stack[sp] = nodes[v].right, depth[sp++] = d + 1;
        }
    }
}

static void canonical_codes(const uint8_t *len, uint32_t *code) {
    uint32_t bl_count[MAX_BITS + 1] = {0}, next[MAX_BITS + 2] = {0};
    for (int s = 0; s < NSYM; s++) bl_count[len[s]]++;
    bl_count[0] = 0;
    uint32_t c = 0;
    for (int b = 1; b <= MAX_BITS; b++) {
        c = (c + bl_count[b - 1]) << 1;
        next[b] = c;
    }
    for (int s = 0; s < NSYM; s++) {
        if (!len[s]) continue;
        /* bit-reversed, since bits go out least significant first */
        uint32_t v = next[len[s]]++, r = 0;
        for (int i = 0; i < len[s]; i++) r |= (v >> i & 1) << (len[s] - 1 - i);
        code[s] = r;
    }
}

static int symbol_of(const token *t) {
    return t->length ? 256 + (t->length > 255 ? 255 : t->length) : t->literal;
}

static size_t encode(const token *tok, size_t ntok, const uint8_t *len, const uint32_t *code,
                     uint8_t *out) {
    bits b = {out, 0};
    for (size_t i = 0; i < ntok; i++) {
        int s = symbol_of(&tok[i]);
        put_bits(&b, code[s], len[s]);
        if (tok[i].length) {
            if (tok[i].length > 255) put_bits(&b, tok[i].length, 9);
            put_bits(&b, tok[i].distance, 15);
        }
    }
    return (b.pos + 7) / 8;
}

/* Decodes by walking a table of (length, code) pairs: slow on purpose, like a naive decoder. */
static size_t decode(const uint8_t *in, const uint8_t *len, const uint32_t *code, size_t ntok,
                     uint8_t *out) {
    bits b = {(uint8_t *)in, 0};
    size_t n = 0;
    for (size_t i = 0; i < ntok; i++) {
        uint32_t acc = 0;
        int got = 0, sym = -1;
        while (sym < 0) {
            acc |= get_bit(&b) << got;
            got++;
            for (int s = 0; s < NSYM; s++)
                if (len[s] == got && code[s] == acc) {
                    sym = s;
                    break;
                }
        }
        if (sym < 256) {
            out[n++] = (uint8_t)sym;
            continue;
        }
        size_t length = (size_t)(sym - 256);
        if (length == 255) length = get_bits(&b, 9);
        size_t dist = get_bits(&b, 15);
        for (size_t k = 0; k < length; k++, n++) out[n] = out[n - dist];
    }
    return n;
}

/* ---- sorting the words ---- */

static int compare_words(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void merge_sort(char **v, char **tmp, size_t n) {
    if (n < 2) return;
    size_t h = n / 2;
    merge_sort(v, tmp, h);
    merge_sort(v + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = strcmp(v[i], v[j]) <= 0 ? v[i++] : v[j++];
    while (i < h) tmp[k++] = v[i++];
    while (j < n) tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* LSD radix sort on the first 8 bytes of each word (shorter words padded with zeros). */
static void radix_sort(char **v, char **tmp, size_t n) {
    for (int pos = 7; pos >= 0; pos--) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++) {
            size_t l = strlen(v[i]);
            count[(pos < (int)l ? (uint8_t)v[i][pos] : 0) + 1]++;
        }
        for (int c = 0; c < 256; c++) count[c + 1] += count[c];
        for (size_t i = 0; i < n; i++) {
            size_t l = strlen(v[i]);
            tmp[count[pos < (int)l ? (uint8_t)v[i][pos] : 0]++] = v[i];
        }
        memcpy(v, tmp, n * sizeof *v);
    }
}

static uint64_t sort_words(char *text, size_t n) {
    size_t cap = n / 2 + 1, nw = 0;
    char **w = malloc(cap * sizeof *w), **a = malloc(cap * sizeof *a), **tmp = malloc(cap * sizeof *tmp);
    for (char *s = strtok(text, " \n"); s; s = strtok(NULL, " \n")) w[nw++] = s;
    uint64_t sum = 0;
    memcpy(a, w, nw * sizeof *w);
    qsort(a, nw, sizeof *a, compare_words);
    sum += (uint64_t)(a[nw / 2][0]);
    memcpy(a, w, nw * sizeof *w);
    merge_sort(a, tmp, nw);
    sum += (uint64_t)(a[nw / 3][0]);
    memcpy(a, w, nw * sizeof *w);
    radix_sort(a, tmp, nw);
    size_t distinct = 0;
    for (size_t i = 0; i < nw; i++) distinct += i == 0 || strcmp(a[i], a[i - 1]) != 0;
    sum += distinct;
    free(w);
    free(a);
    free(tmp);
    return sum;
}

int main(int argc, char **argv) {
    size_t size = (argc > 1 ? (size_t)atol(argv[1]) : 512) * 1024;
    char *text = malloc(size + 1);
    size_t n = make_text(text, size);
    text[n] = '\0';
    token *tok = malloc(n * sizeof *tok);
    size_t ntok = lz77((const uint8_t *)text, n, tok);
    uint64_t count[NSYM] = {0};
    for (size_t i = 0; i < ntok; i++) count[symbol_of(&tok[i])]++;
    uint8_t len[NSYM];
    uint32_t code[NSYM] = {0};
    code_lengths(count, len);
    canonical_codes(len, code);
    uint8_t *packed = calloc(n * 4 + 16, 1);
    size_t packed_size = encode(tok, ntok, len, code, packed);
    uint8_t *back = malloc(n + MAX_MATCH);
    size_t m = decode(packed, len, code, ntok, back);
    if (m != n || memcmp(back, text, n) != 0) {
        fprintf(stderr, "workload: round trip failed\n");
        return 1;
    }
    uint64_t sum = sort_words(text, n);
    printf("%zu bytes -> %zu tokens -> %zu bytes; checksum %llu\n", n, ntok, packed_size,
           (unsigned long long)sum);
    free(text);
    free(tok);
    free(packed);
    free(back);
    return 0;
}
