/* A program whose work grows with its argument in one function only (scaled), while steady()
 * does the same every time: two runs with different inputs differ in scaled() and its callers. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned long steady(void) {
    unsigned long sum = 0;
    for (int i = 0; i < 1000; i++) sum += (unsigned long)i * 7;
    return sum;
}

__attribute__((noinline)) static unsigned long scaled(int n) {
    unsigned long sum = 1;
    for (int i = 0; i < n * 100; i++) sum = sum * 31 + (unsigned long)i;
    return sum;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 10;
    printf("%lu %lu\n", steady(), scaled(n));
    return 0;
}
