/* Second source file of the main program (see multi_main.c). */
#include "common.h"

__attribute__((noinline)) static int scale(int value)
{
    return value * 7 - 3;
}

int util_total(int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += scale(i);
    return sum;
}
