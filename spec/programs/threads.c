/* Threads for the valgrind specs: the main thread warms up, asks callgrind
 * for a dump (a client request, when valgrind/callgrind.h is available and
 * THREADS_NO_DUMP is not defined), then runs three workers doing different
 * amounts of work. A client-request dump writes only the calling thread, so
 * the workers appear in the final dump. Each thread's work() does not depend
 * on scheduling; waiting in the barrier and in pthread_join may.
 * Output is fixed. */
#include <pthread.h>
#include <stdio.h>

#if !defined(THREADS_NO_DUMP) && defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_DUMP_STATS_AT
#define CALLGRIND_DUMP_STATS_AT(text) ((void)0)
#endif

enum { WORKERS = 3 };

/* Nobody exits before all have started: valgrind would reuse the thread
 * number of a finished thread, and --separate-threads files would vary. */
static pthread_barrier_t all_started;

__attribute__((noinline)) static unsigned work(unsigned rounds)
{
    unsigned acc = 1;
    for (unsigned i = 0; i < rounds; i++)
        acc = acc * 31u + i;
    return acc;
}

static void *worker(void *arg)
{
    unsigned *rounds = arg;
    pthread_barrier_wait(&all_started);
    *rounds = work(*rounds);
    return NULL;
}

int main(void)
{
    unsigned warm = work(500);
    CALLGRIND_DUMP_STATS_AT("after-warmup");

    unsigned rounds[WORKERS] = {100, 2000, 5000};
    pthread_t tids[WORKERS];
    pthread_barrier_init(&all_started, NULL, WORKERS + 1);
    for (int i = 0; i < WORKERS; i++)
        if (pthread_create(&tids[i], NULL, worker, &rounds[i]) != 0)
            return 1;
    pthread_barrier_wait(&all_started);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(tids[i], NULL);
    pthread_barrier_destroy(&all_started);
    printf("warm=%u results=%u %u %u\n", warm, rounds[0], rounds[1], rounds[2]);
    return 0;
}
