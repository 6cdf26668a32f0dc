/* loader.h - a load in progress (callgrind.h's cg_loader): the builder of the model, the parser
 * of the input being read, and what only the whole load can tell (inputs read, options). The
 * loader drives the stages; no stage calls back into it. */
#ifndef CG_LOADER_H
#define CG_LOADER_H

#include "builder.h"
#include "parser.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

struct cg_loader {
    cg_options opts;
    builder b;
    parser ps;
    size_t inputs, inputs_with_text; /* inputs read, and those that were not empty */
    int failed;
};

#pragma GCC visibility pop

#endif
