/* Several objects for the valgrind specs: main here, util_total() in
 * multi_util.c, lib_total() in the shared library built from multi_lib.c.
 * Each file has its own static scale(); clamp() from common.h exists once
 * in the program and once in the library. Output is fixed. */
#include <stdio.h>
#include "common.h"

__attribute__((noinline)) static int scale(int value)
{
    return clamp(value * 3, -50, 50);
}

int main(void)
{
    int sum = 0;
    for (int i = -20; i < 20; i++)
        sum += scale(i);
    sum += util_total(25);
    sum += lib_total(40);
    printf("sum=%d\n", sum);
    return 0;
}
