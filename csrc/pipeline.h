/* pipeline.h - a builder in a thread of its own. The parser of a threaded load hands its records
 * (functions, line costs, calls, jumps) and its warnings to the pipeline instead of the builder:
 * they are written, in the order the parser makes them, into blocks that a second thread replays
 * on the builder through the same builder functions and in the same order, so the model is the
 * one a load on one thread makes. The parser does not learn function indexes: it names the
 * function of a record by a register (the current function, the jump's target, the callee)
 * that the builder's thread sets when it replays the function's record. Anything else the parser
 * asks of the builder (sections, events, headers, the checks of a section) is done after pipe_sync,
 * when the builder's thread has replayed every record and waits. Faults found in the builder's
 * thread are reported there, in order with the parser's warnings; the first error in the order of
 * the input is the one a load returns. */
#ifndef CG_PIPELINE_H
#define CG_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "fault.h"

/* Hidden from the module's dynamic symbols whatever the build's flags (docs/design.md). */
#pragma GCC visibility push(hidden)

typedef struct pipeline pipeline;

/* Starts the builder's thread for one input. `site` is the parser's fault site: its errors are
 * written to site->err (read at each call), its warnings come here through site->defer.
 * `block_size` is the size of the blocks handed over (0: the default). Returns NULL when out of
 * memory or when no thread can be made (the caller then loads on one thread). */
pipeline *pipeline_start(builder *b, fault_site *site, size_t block_size);
/* Ends the input: every record replayed, the thread joined, the pipeline freed. Returns 0, or
 * -1 with the builder's first fault in site->err when it stopped the load. */
int pipeline_stop(pipeline *pl);

/* The registers that stand for functions in the records handed over. */
enum { PIPE_REG_FN, PIPE_REG_JUMP_TO, PIPE_REG_CALLEE, PIPE_REGS };

/* Records, as the builder functions of the same names take them, but with registers where they
 * take function indexes; `lineno` is the input line that made them, for the faults of the
 * builder. Each returns 0, or -1 with site->err set (out of memory, or a fault of the builder
 * on an earlier line stopped the load). */
/* The function of that identity into register `reg` (*fn is set to the register);
 * `defined`: a fn= line begins a block of it (build_defined). */
int pipe_function(pipeline *pl, uint64_t lineno, uint32_t name, uint32_t file, uint32_t object,
                  int defined, int reg, uint32_t *fn);
int pipe_line(pipeline *pl, uint64_t lineno, uint32_t fn, uint32_t file, uint64_t line,
              uint64_t addr, const cg_cost *costs, size_t n);
/* A call and the `n` costs of its line, in the section's order: `map` gives the raw event of
 * each (NULL: the identity). */
int pipe_call(pipeline *pl, uint64_t lineno, const call_rec *key, int guessed, const cg_cost *costs,
              size_t n, const uint32_t *map);
int pipe_jump(pipeline *pl, uint64_t lineno, const jump_rec *key);
/* Waits until the builder's thread has replayed every record: the builder may then be used
 * directly until the next record. Returns 0, or -1 with site->err set. */
int pipe_sync(pipeline *pl);
/* fault_site's defer hook: a warning ("NAME:LINE: text") kept in order with the records. */
int pipe_warning(void *pl, uint64_t line, const char *message);

#pragma GCC visibility pop

#endif
