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

/* The message of a fault: "NAME:LINE: text". */
static void prefixed(char *out, size_t size, const fault_site *s, uint64_t line, const char *text) {
    snprintf(out, size, "%s:%llu: %s", s->name, (unsigned long long)line, text);
}

static int stop_with(const fault_site *s, int code, uint64_t line, const char *text) {
    char msg[sizeof s->err->message];
    prefixed(msg, sizeof msg, s, line, text);
    set_error(s->err, code, line, "%s", msg);
    return -1;
}

int fault_keep(const fault_site *s, uint64_t line, const char *message) {
    if (profile_warn(s->p, message)) return stop_with(s, CG_ERR_NOMEM, line, "out of memory");
    return 0;
}

static int warn_with(const fault_site *s, uint64_t line, const char *text) {
    char msg[sizeof s->err->message];
    prefixed(msg, sizeof msg, s, line, text);
    if (s->defer) return s->defer(s->defer_ctx, line, msg) ? -1 : 0;
    return fault_keep(s, line, msg);
}

/* What a fault does: as the load's mode says, always stop, or only warn. */
enum { AS_MODE, AS_STOP, AS_WARNING };

static int report(const fault_site *s, int as, int code, uint64_t line, const char *fmt,
                  va_list ap) {
    char text[TEXT_MAX];
    vsnprintf(text, sizeof text, fmt, ap);
    if (as == AS_WARNING || (as == AS_MODE && s->tolerant)) return warn_with(s, line, text);
    return stop_with(s, code, line, text);
}

int fault(const fault_site *s, int code, uint64_t line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = report(s, AS_MODE, code, line, fmt, ap);
    va_end(ap);
    return rc;
}

int fault_stop(const fault_site *s, int code, uint64_t line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = report(s, AS_STOP, code, line, fmt, ap);
    va_end(ap);
    return rc;
}

int fault_warn(const fault_site *s, uint64_t line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = report(s, AS_WARNING, CG_OK, line, fmt, ap);
    va_end(ap);
    return rc;
}
