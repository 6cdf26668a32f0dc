/*
 * roundtrip.c - how far apart the machine's first two cores are: the time a cache line takes
 * to go from one to the other and back, two threads pinned one to each and handing a flag to
 * each other.
 *
 *   roundtrip
 *
 * Prints `roundtrip_ns N` (the median of 5 rounds of 100,000 hand-overs), or `roundtrip_ns -`
 * when the process may not use two cores. A load whose threads hand each other data (a split
 * load: the text to the workers, their records to the calling thread) pays this distance for
 * every line of cache it moves; two cores that share a last-level cache are some 50-100 ns
 * apart, cores that do not several times that.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { HANDS = 100000, ROUNDS = 5 };

typedef struct pair {
    _Atomic int flag;
    int cpu;
} pair;

static int pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *answer(void *arg) {
    pair *p = arg;
    if (pin(p->cpu)) return NULL;
    for (int i = 0; i < HANDS * ROUNDS; i++) {
        while (atomic_load_explicit(&p->flag, memory_order_acquire) != 1) {
        }
        atomic_store_explicit(&p->flag, 0, memory_order_release);
    }
    return NULL;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    cpu_set_t allowed;
    int cpus[2], n = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
            if (CPU_ISSET(c, &allowed)) cpus[n++] = c;
    if (n < 2 || pin(cpus[0])) {
        printf("roundtrip_ns -\n");
        return 0;
    }
    pair p;
    atomic_init(&p.flag, 0);
    p.cpu = cpus[1];
    pthread_t t;
    if (pthread_create(&t, NULL, answer, &p)) {
        printf("roundtrip_ns -\n");
        return 0;
    }
    double ns[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now();
        for (int i = 0; i < HANDS; i++) {
            atomic_store_explicit(&p.flag, 1, memory_order_release);
            while (atomic_load_explicit(&p.flag, memory_order_acquire) != 0) {
            }
        }
        ns[r] = (now() - t0) * 1e9 / HANDS;
    }
    pthread_join(t, NULL);
    qsort(ns, ROUNDS, sizeof *ns, by_value);
    printf("roundtrip_ns %.0f\n", ns[ROUNDS / 2]);
    return 0;
}
