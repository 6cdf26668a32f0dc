/* Machine-code specs: a loop with data-dependent branches and a string function
 * of the C library called many times, so that both the program's code and
 * libc's have instruction costs and jumps. -DREBUILT changes count_words, for
 * the spec that profiles one build and disassembles another. */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static unsigned count_words(const char *text)
{
    unsigned words = 0;
    int inside = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ' ') {
            inside = 0;
        } else if (!inside) {
            inside = 1;
            words++;
#ifdef REBUILT
            words += (unsigned)(*p == 'x') * 3;
#endif
        }
    }
    return words;
}

int main(void)
{
    static char text[4096];
    size_t total = 0;
    unsigned words = 0;
    for (int i = 0; i < 200; i++) {
        size_t used = strlen(text);
        if (used + 16 >= sizeof text)
            text[0] = '\0';
        strcat(text, i % 3 ? "ab " : "cdef ");
        total += strlen(text);
        words += count_words(text);
    }
    printf("total=%zu words=%u\n", total, words);
    return 0;
}
