/* The shared library of the multi-object program (see multi_main.c). */
#include "common.h"

__attribute__((noinline)) static int scale(int value)
{
    return clamp(value - 20, -10, 10) * 2;
}

int lib_total(int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += scale(i);
    return sum;
}
