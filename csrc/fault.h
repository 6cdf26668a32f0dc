/* fault.h - how the core reports: errors of the public API (cg_error), and the faults of a load,
 * which stop a strict load and are warnings in a tolerant one. Every message about an input
 * begins with `NAME:LINE: `, written here and nowhere else. */
#ifndef CG_FAULT_H
#define CG_FAULT_H

#include <stdint.h>

#include "callgrind.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

void set_error(cg_error *err, int code, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void clear_error(cg_error *err);

/* Where the faults of a load go: the profile that keeps the warnings, the error of the running
 * call, the input's name for messages and whether the load is tolerant. */
typedef struct fault_site {
    cg_profile *p;
    cg_error *err;
    const char *name;
    int tolerant;
    /* When set, warnings go to defer (the message written in full) instead of the profile:
     * a threaded load keeps them in order with the records (pipeline.h). Nonzero: stop. */
    int (*defer)(void *ctx, uint64_t line, const char *message);
    void *defer_ctx;
} fault_site;

/* A fault at `line` of the input: a strict load stops (err gets `code` and "NAME:LINE: text",
 * -1 is returned), a tolerant one records the same text as a warning and goes on (0). */
int fault(const fault_site *s, int code, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A fault no mode can skip (unsupported version, too many events): always -1 with err set. */
int fault_stop(const fault_site *s, int code, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A doubt that never stops a load: a warning "NAME:LINE: text"; -1 only when out of memory. */
int fault_warn(const fault_site *s, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Keeps a warning written in full ("NAME:LINE: text") in the profile; -1 only when out of
 * memory (err set). */
int fault_keep(const fault_site *s, uint64_t line, const char *message);

#pragma GCC visibility pop

#endif
