/* Inlined code for the valgrind specs: mix() from inline.h is inlined into
 * main and into checksum(), a normal out-of-line function. Built with -O2. */
#include <stdio.h>
#include "inline.h"

__attribute__((noinline)) static unsigned checksum(const unsigned *values, unsigned count)
{
    unsigned sum = 0;
    for (unsigned i = 0; i < count; i++)
        sum = mix(sum + values[i], i);
    return sum;
}

int main(void)
{
    unsigned values[64];
    unsigned seed = 12345;
    for (unsigned i = 0; i < 64; i++) {
        seed = mix(seed, i);
        values[i] = seed;
    }
    printf("checksum=%u\n", checksum(values, 64));
    return 0;
}
