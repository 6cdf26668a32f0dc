/*
 * driver.c - loads one profile with the C library and reports what it cost.
 *
 *   driver [--threads N] [--per-thread] FILE [REPEAT]
 *
 * Loads FILE REPEAT times (default 1) in strict mode on N threads (cg_options.threads; default
 * 1, the calling thread alone; 0: the library's default) and prints one `key value` line per
 * figure:
 *   load_seconds S        wall time of each load (one line per run)
 *   read_seconds S        of which reading and parsing: until the progress callback's last
 *                         call, which comes after the last line; the rest is the analysis
 *   cpu_seconds S         processor time of the load, every thread (user and system)
 *   main_cpu_seconds S    of which the calling thread's
 *   sys_seconds S         of which in the kernel, every thread: mostly the making and
 *                         clearing of the model's fresh pages at their first touch, a cost
 *                         the host sets
 *   thread_cpu_seconds S  with --per-thread: each thread's (the calling one's included), the
 *                         largest first, as a sampler thread sees them every 2 ms: the largest
 *                         bounds the load's time on cores of its own, whatever else runs on
 *                         the machine. The sampler wakes on a core the load's threads use and
 *                         takes 2-3 % of a two-thread load's wall time on two cores, so it runs
 *                         only when asked: timed runs go without it
 *   functions/calls/lines/jumps/sections/cycles/warnings N   of the last load
 *   total EVENT N         the last load's total of each raw event (one line per event)
 *   model_bytes N         bytes the last model holds: in malloc (in use after minus before),
 *                         or as the capacities of its arrays count them (cg_profile_bytes)
 *                         when that is more: a load on one thread maps its largest arrays on
 *                         their own, outside malloc
 *   rss_delta_kb N        resident memory after the last load minus before it
 *   peak_rss_kb N         the process's peak resident memory (ru_maxrss)
 * Run it with REPEAT 1 to have the peak of a single load. The first warnings are printed as
 * `warning TEXT`; a failed load prints `error MESSAGE` and exits with status 1.
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "callgrind.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Resident memory now, in KiB, from /proc/self/statm (pages). */
static long rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
    fclose(f);
    return resident * 4;
}

/* The time of the latest progress call: the last one comes when every line is parsed. */
static double last_progress;

static int on_progress(void *userdata, uint64_t done, uint64_t total) {
    (void)userdata, (void)done, (void)total;
    last_progress = now();
    return 0;
}

static double seconds_of(struct timeval tv) {
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Processor time (user and system) of `who`; its system time alone into *sys unless NULL. */
static double cpu_seconds(int who, double *sys) {
    struct rusage ru;
    getrusage(who, &ru);
    if (sys) *sys = seconds_of(ru.ru_stime);
    return seconds_of(ru.ru_utime) + seconds_of(ru.ru_stime);
}

/* The processor time of the load's threads, sampled from /proc/self/task/TID/schedstat (its
 * first field: nanoseconds on a processor) until `done`; the sampler leaves itself out. */
enum { MAX_SAMPLED = 64 };
typedef struct sampler {
    volatile int done;
    long self;
    long tid[MAX_SAMPLED];
    double seconds[MAX_SAMPLED];
    int n;
} sampler;

static void sample(sampler *s) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long tid = atol(e->d_name);
        if (tid <= 0 || tid == s->self) continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", tid);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        unsigned long long ns = 0;
        if (fscanf(f, "%llu", &ns) != 1) ns = 0;
        fclose(f);
        int i = 0;
        while (i < s->n && s->tid[i] != tid) i++;
        if (i == s->n) {
            if (s->n == MAX_SAMPLED) continue;
            s->tid[s->n] = tid;
            s->seconds[s->n++] = 0;
        }
        if ((double)ns / 1e9 > s->seconds[i]) s->seconds[i] = (double)ns / 1e9;
    }
    closedir(d);
}

static void *sampler_thread(void *arg) {
    sampler *s = arg;
    s->self = (long)gettid();
    while (!s->done) {
        sample(s);
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    return NULL;
}

static size_t malloc_in_use(void) {
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

int main(int argc, char **argv) {
    int threads = 1, per_thread = 0;
    if (argc >= 3 && strcmp(argv[1], "--threads") == 0) {
        threads = atoi(argv[2]);
        argv += 2;
        argc -= 2;
    }
    if (argc >= 2 && strcmp(argv[1], "--per-thread") == 0) {
        per_thread = 1;
        argv++;
        argc--;
    }
    if (argc < 2 || argc > 3 || threads < 0) {
        fprintf(stderr, "usage: driver [--threads N] [--per-thread] FILE [REPEAT]\n");
        return 2;
    }
    int repeat = argc == 3 ? atoi(argv[2]) : 1;
    if (repeat < 1) repeat = 1;
    cg_options opts;
    memset(&opts, 0, sizeof opts); /* strict */
    opts.threads = threads;
    opts.progress = on_progress;
    cg_profile *p = NULL;
    long rss_before = 0, rss_after = 0;
    size_t heap_before = 0, heap_after = 0;
    for (int run = 0; run < repeat; run++) {
        if (p) cg_profile_free(p);
        cg_error err;
        rss_before = rss_kb();
        heap_before = malloc_in_use();
        sampler smp;
        memset(&smp, 0, sizeof smp);
        smp.self = -1;
        sample(&smp); /* the calling thread first */
        pthread_t sampling;
        int sampled = per_thread && pthread_create(&sampling, NULL, sampler_thread, &smp) == 0;
        double s0, c0 = cpu_seconds(RUSAGE_SELF, &s0), m0 = cpu_seconds(RUSAGE_THREAD, NULL);
        double t0 = now();
        p = cg_load_file(argv[1], &opts, &err);
        double t1 = now();
        double s1, c1 = cpu_seconds(RUSAGE_SELF, &s1), m1 = cpu_seconds(RUSAGE_THREAD, NULL);
        if (sampled) {
            smp.done = 1;
            pthread_join(sampling, NULL);
        }
        if (!p) {
            printf("error %s\n", err.message);
            return 1;
        }
        rss_after = rss_kb();
        heap_after = malloc_in_use();
        printf("load_seconds %.6f\n", t1 - t0);
        printf("read_seconds %.6f\n", last_progress - t0);
        printf("cpu_seconds %.6f\n", c1 - c0);
        printf("main_cpu_seconds %.6f\n", m1 - m0);
        printf("sys_seconds %.6f\n", s1 - s0);
        if (sampled) {
            smp.seconds[0] = m1 - m0; /* the calling thread: exact */
            for (int i = 0; i < smp.n; i++)
                for (int j = i + 1; j < smp.n; j++)
                    if (smp.seconds[j] > smp.seconds[i]) {
                        double t = smp.seconds[i];
                        smp.seconds[i] = smp.seconds[j];
                        smp.seconds[j] = t;
                    }
            for (int i = 0; i < smp.n; i++)
                if (smp.seconds[i] > 0) printf("thread_cpu_seconds %.6f\n", smp.seconds[i]);
        }
        fflush(stdout);
    }
    printf("functions %zu\n", cg_function_count(p));
    printf("calls %zu\n", cg_call_count(p));
    printf("lines %zu\n", cg_line_count(p));
    printf("jumps %zu\n", cg_jump_count(p));
    printf("sections %zu\n", cg_section_count(p));
    printf("cycles %zu\n", cg_cycle_count(p));
    printf("warnings %zu\n", cg_warning_count(p) + (size_t)cg_warnings_dropped(p));
    const cg_cost *totals = cg_total_costs(p);
    for (size_t ev = 0; ev < cg_raw_event_count(p); ev++)
        printf("total %s %lld\n", cg_event_name(p, ev), (long long)totals[ev]);
    for (size_t i = 0; i < cg_warning_count(p) && i < 5; i++)
        printf("warning %s\n", cg_warning(p, i));
    size_t model = heap_after - heap_before, counted = cg_profile_bytes(p);
    printf("model_bytes %zu\n", counted > model ? counted : model);
    printf("rss_delta_kb %ld\n", rss_after - rss_before);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak_rss_kb %ld\n", ru.ru_maxrss);
    cg_profile_free(p);
    return 0;
}
