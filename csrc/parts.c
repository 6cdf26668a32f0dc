/* parts.c - work cut into parts that run at once (parts.h). */
#include "parts.h"

#include <pthread.h>

typedef struct part {
    void (*run)(void *ctx, size_t k);
    void *ctx;
    size_t k;
} part;

static void *part_main(void *arg) {
    part *t = arg;
    t->run(t->ctx, t->k);
    return NULL;
}

void parts_run(size_t parts, void (*run)(void *ctx, size_t k), void *ctx) {
    part each[MAX_PARTS];
    pthread_t tid[MAX_PARTS];
    int started[MAX_PARTS] = {0};
    if (parts > MAX_PARTS) parts = MAX_PARTS;
    for (size_t k = 1; k < parts; k++) {
        each[k] = (part){run, ctx, k};
        started[k] = pthread_create(&tid[k], NULL, part_main, &each[k]) == 0;
    }
    if (parts) run(ctx, 0);
    for (size_t k = 1; k < parts; k++) {
        if (started[k])
            pthread_join(tid[k], NULL);
        else
            run(ctx, k); /* no thread to be had: this one does it */
    }
}

size_t parts_for(int threads, size_t work, size_t min_each) {
    size_t parts = threads > 1 ? (size_t)threads : 1;
    if (parts > MAX_PARTS) parts = MAX_PARTS;
    size_t most = min_each ? work / min_each : work;
    if (parts > most) parts = most ? most : 1;
    return parts;
}
