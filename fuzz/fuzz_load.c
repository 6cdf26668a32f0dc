/* fuzz_load.c - libFuzzer harness: any bytes go to the loader, strict and tolerant, and every
 * part of a model that loads is walked, so that the sanitizers see every access the API allows.
 *
 * Each input is also loaded on two and three threads, handed over in pieces as small as the
 * input's first byte says: the model (its walk), or the error, must be the same as on one.
 *
 *   make fuzz FUZZ_SECONDS=600
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What a walk saw, every value and string mixed in order: two models walked alike are the same
 * model. */
static volatile uint64_t sink;

static void mix(uint64_t v) {
    sink = (sink ^ v) * 0x100000001b3ULL;
}

static void use_row(const cg_profile *p, const cg_cost *row) {
    if (!row) return;
    for (size_t ev = 0; ev < cg_event_count(p); ev++) {
        cg_cost v = 0;
        if (cg_cost_of(p, row, ev, &v) == CG_OK) mix((uint64_t)v);
    }
}

static void use_string(const char *s) {
    while (*s) mix((unsigned char)*s++);
    mix(0);
}

/* Not const: cg_find_function builds the profile's name index on its first call. */
static void walk(cg_profile *p) {
    for (size_t ev = 0; ev < cg_event_count(p); ev++) {
        use_string(cg_event_name(p, ev));
        use_string(cg_event_long_name(p, ev));
        use_string(cg_event_formula(p, ev));
        mix((uint64_t)cg_event_builtin(p, ev));
        mix(cg_event_index(p, cg_event_name(p, ev)));
    }
    use_row(p, cg_total_costs(p));
    mix(cg_positions(p));
    for (size_t f = 0; f < cg_function_count(p); f++) {
        use_string(cg_function_name(p, f));
        use_string(cg_function_file(p, f));
        use_string(cg_function_object(p, f));
        mix(cg_function_called(p, f) + cg_function_cycle(p, f));
        use_row(p, cg_function_self(p, f));
        use_row(p, cg_function_inclusive(p, f));
        for (size_t i = 0; i < cg_function_callee_count(p, f); i++) {
            size_t c = cg_function_callee(p, f, i);
            mix(cg_call_caller(p, c) + cg_call_callee(p, c) + cg_call_times(p, c));
            mix(cg_call_line(p, c) + cg_call_addr(p, c) + cg_call_target_line(p, c) +
                cg_call_target_addr(p, c));
            use_string(cg_call_file(p, c));
            use_row(p, cg_call_inclusive(p, c));
        }
        for (size_t i = 0; i < cg_function_caller_count(p, f); i++)
            mix(cg_function_caller(p, f, i));
        for (size_t i = 0; i < cg_function_jump_count(p, f); i++) {
            size_t j = cg_function_jump(p, f, i);
            mix(cg_jump_function(p, j) + cg_jump_to_function(p, j) + cg_jump_from_line(p, j) +
                cg_jump_from_addr(p, j) + cg_jump_to_line(p, j) + cg_jump_to_addr(p, j) +
                cg_jump_executed(p, j) + cg_jump_taken(p, j) + (uint64_t)cg_jump_conditional(p, j));
            use_string(cg_jump_from_file(p, j));
            use_string(cg_jump_to_file(p, j));
        }
        cg_line_cursor cursor;
        cg_line line;
        cg_line_cursor_init(&cursor, p, f);
        while (cg_line_cursor_next(&cursor, &line)) {
            use_string(line.file);
            mix(line.line + line.addr);
            use_row(p, line.costs);
        }
        mix(cg_find_function(p, cg_function_name(p, f), NULL, NULL, CG_NONE));
    }
    for (size_t c = 0; c < cg_cycle_count(p); c++) {
        use_string(cg_cycle_name(p, c));
        for (size_t i = 0; i < cg_cycle_member_count(p, c); i++) mix(cg_cycle_member(p, c, i));
        use_row(p, cg_cycle_self(p, c));
        use_row(p, cg_cycle_inclusive(p, c));
    }
    for (size_t s = 0; s < cg_section_count(p); s++) {
        use_string(cg_section_source(p, s));
        mix(cg_section_first_line(p, s) + cg_section_positions(p, s));
        for (size_t i = 0; i < cg_section_header_count(p, s); i++) {
            use_string(cg_section_header_key(p, s, i));
            use_string(cg_section_header_value(p, s, i));
        }
        for (size_t i = 0; i < cg_section_event_count(p, s); i++) mix(cg_section_event(p, s, i));
        use_row(p, cg_section_costs(p, s));
        use_row(p, cg_section_summary(p, s));
        use_row(p, cg_section_totals(p, s));
    }
    for (size_t w = 0; w < cg_warning_count(p); w++) use_string(cg_warning(p, w));
    mix(cg_warnings_dropped(p));
}

/* The walk of what a load on `threads` threads gives, or the hash of its error. */
static uint64_t outcome(const uint8_t *data, size_t size, int tolerant, int threads, size_t chunk) {
    cg_options opts;
    memset(&opts, 0, sizeof opts);
    opts.tolerant = tolerant;
    opts.max_warnings = 50;
    opts.threads = threads;
    opts.chunk_size = chunk;
    cg_error err;
    cg_profile *p = cg_load_buffer(data, size, "fuzz", &opts, &err);
    sink = 0;
    if (p) {
        walk(p);
        cg_profile_free(p);
    } else {
        mix((uint64_t)err.code + 1000);
        use_string(err.message);
    }
    return sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (int tolerant = 0; tolerant <= 1; tolerant++) {
        uint64_t one = outcome(data, size, tolerant, 1, 0);
        size_t chunk = size ? 1 + data[0] % 128 : 1;
        if (outcome(data, size, tolerant, 2, chunk) != one ||
            outcome(data, size, tolerant, 3, 0) != one)
            abort(); /* a threaded load made another model */
        cg_options opts;
        memset(&opts, 0, sizeof opts);
        opts.tolerant = tolerant;
        opts.max_warnings = 50;
        opts.threads = 1;
        cg_error err;
        cg_profile *p = cg_load_buffer(data, size, "fuzz", &opts, &err);
        if (p) {
            walk(p);
            /* the combinations rebuild a model from this one */
            const cg_profile *both[2] = {p, p};
            int64_t weights[2] = {1, -1};
            cg_profile *d = cg_profile_combine(both, weights, 2, NULL, &err);
            if (d) walk(d);
            cg_profile_free(d);
            size_t n = cg_function_count(p);
            unsigned char *keep = malloc(n ? n : 1);
            if (keep) {
                for (size_t f = 0; f < n; f++) keep[f] = (unsigned char)(f & 1);
                cg_profile *s = cg_profile_select(p, keep, NULL, NULL, &err);
                if (s) walk(s);
                cg_profile_free(s);
                free(keep);
            }
            cg_profile_free(p);
        } else {
            use_string(err.message);
        }
    }
    return 0;
}
