/* events.h - long names and derived events, applied once when loading ends: `event:` lines and
 * KCachegrind's known formulas, expanded to linear combinations of raw events. Touches the
 * profile's event table and strings only. */
#ifndef CG_EVENTS_H
#define CG_EVENTS_H

#include "model.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

/* An `event:` line: long name and formula of an event. */
typedef struct event_desc {
    uint32_t name, long_name, formula; /* string ids; 0 = not given */
    uint32_t source;                   /* string id of the input, for messages */
    uint64_t line;
} event_desc;

/* Applies the descriptions in order (a later one wins) and adds the derived events; doubts are
 * warnings, -1 only when out of memory (err set). */
int apply_event_descs(cg_profile *p, const event_desc *descs, size_t n, cg_error *err);

#pragma GCC visibility pop

#endif
