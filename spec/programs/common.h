/* Included by multi_main.c and multi_lib.c: each object gets its own copy of
 * clamp(), so the same (file, name) exists in two objects. */
#ifndef COMMON_H
#define COMMON_H

__attribute__((noinline, unused)) static int clamp(int value, int low, int high)
{
    if (value < low)
        return low;
    if (value > high)
        return high;
    return value;
}

int util_total(int n);
int lib_total(int n);

#endif
