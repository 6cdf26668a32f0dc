/* Recursion shapes for the valgrind specs: self recursion (fact), mutual
 * recursion (is_even/is_odd) and a loop with data-dependent branches.
 * Built with -O0 so that every call stays a real call. Output is fixed. */
#include <stdio.h>

static unsigned long fact(unsigned n)
{
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}

static int is_odd(unsigned n);

static int is_even(unsigned n)
{
    if (n == 0)
        return 1;
    return is_odd(n - 1);
}

static int is_odd(unsigned n)
{
    if (n == 0)
        return 0;
    return is_even(n - 1);
}

static unsigned branchy(unsigned rounds)
{
    unsigned acc = 0;
    for (unsigned i = 0; i < rounds; i++) {
        if (i % 3 == 0)
            acc += i;
        else if (i % 3 == 1)
            acc ^= i;
        else
            acc -= 1;
    }
    return acc;
}

int main(void)
{
    unsigned long f = fact(10);
    int even = is_even(9);
    unsigned b = branchy(30);
    printf("fact=%lu even=%d branchy=%u\n", f, even, b);
    return 0;
}
