/* sample.c - the program behind the bundled sample profile: counts words of a generated text
 * in a hash table, sorts them, and walks a recursive structure, so the profile has hot loops,
 * calls into libc, recursion and a call graph worth looking at. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 1024

struct entry {
    char word[16];
    int count;
    struct entry *next;
};

static struct entry *table[BUCKETS];

static unsigned hash(const char *s) {
    unsigned h = 2166136261u;
    while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static void count_word(const char *w) {
    unsigned b = hash(w) % BUCKETS;
    for (struct entry *e = table[b]; e; e = e->next) {
        if (strcmp(e->word, w) == 0) {
            e->count++;
            return;
        }
    }
    struct entry *e = calloc(1, sizeof *e);
    strncpy(e->word, w, sizeof e->word - 1);
    e->count = 1;
    e->next = table[b];
    table[b] = e;
}

static void make_word(char *out, unsigned seed) {
    static const char *syllables[] = {"ka", "lo", "mi", "ne", "ru", "to", "sa", "vi"};
    int n = 1 + seed % 3;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        strcat(out, syllables[(seed >> (3 * i)) & 7]);
    }
}

static int by_count(const void *a, const void *b) {
    const struct entry *x = *(struct entry *const *)a, *y = *(struct entry *const *)b;
    if (x->count != y->count) return y->count - x->count;
    return strcmp(x->word, y->word);
}

static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(void) {
    char word[16];
    unsigned seed = 12345;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1103515245u + 12345u;
        make_word(word, seed >> 8);
        count_word(word);
    }
    struct entry *all[BUCKETS * 8];
    int n = 0;
    for (int b = 0; b < BUCKETS; b++)
        for (struct entry *e = table[b]; e && n < BUCKETS * 8; e = e->next) all[n++] = e;
    qsort(all, (size_t)n, sizeof *all, by_count);
    for (int i = 0; i < 5 && i < n; i++) printf("%-8s %d\n", all[i]->word, all[i]->count);
    printf("fib(18) = %ld\n", fib(18));
    return 0;
}
