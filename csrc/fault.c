/* fault.c - errors and the faults of a load (see fault.h). */
#include "fault.h"

#include <stdarg.h>
#include <stdio.h>

#include "model.h"

void set_error(cg_error *err, int code, uint64_t line, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    err->line = line;
}

void clear_error(cg_error *err) {
    if (!err) return;
    err->code = CG_OK;
    err->line = 0;
    err->message[0] = '\0';
}

enum { TEXT_MAX = 768 };

static int stop_with(const fault_site *s, int code, uint64_t line, const char *text) {
    set_error(s->err, code, line, "%s:%llu: %s", s->name, (unsigned long long)line, text);
    return -1;
}

static int warn_with(const fault_site *s, uint64_t line, const char *text) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s:%llu: %s", s->name, (unsigned long long)line, text);
    if (profile_warn(s->p, msg)) return stop_with(s, CG_ERR_NOMEM, line, "out of memory");
    return 0;
}

int fault(const fault_site *s, int code, uint64_t line, const char *fmt, ...) {
    char text[TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return s->tolerant ? warn_with(s, line, text) : stop_with(s, code, line, text);
}

int fault_stop(const fault_site *s, int code, uint64_t line, const char *fmt, ...) {
    char text[TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return stop_with(s, code, line, text);
}

int fault_warn(const fault_site *s, uint64_t line, const char *fmt, ...) {
    char text[TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return warn_with(s, line, text);
}
