-- bench/lua_walk.lua: the Lua side of the benchmarks, run by bench/run.lua in a process of its
-- own for each measurement.
--
--   lua5.4 bench/lua_walk.lua FILE
--
-- Loads FILE with callgrind.load, walks every function and its callees (reading call.callee and
-- call:inclusive(1)), then every line record (line:cost(1)), then gathers the per-line costs of
-- every file for the first event, as tables of every event (annotate.costs_by_file) and as the
-- sums an editor draws (annotate.line_totals), and prints `key value` lines: load_seconds,
-- callees_seconds, lines_seconds, annotate_seconds, editor_seconds, functions, calls, lines. Times are the
-- process's CPU time (os.clock): the work is single-threaded and reads a file in the page
-- cache, so CPU time is the wall time without the noise of other processes.
local callgrind = require "callgrind"

local path = assert(arg[1], "usage: lua5.4 bench/lua_walk.lua FILE")

local t0 = os.clock()
local prof = assert(callgrind.load(path))
local load_seconds = os.clock() - t0

t0 = os.clock()
local ncalls, inclusive = 0, 0
for fn in prof:functions() do
  for call in fn:callees() do
    local callee = call.callee
    if callee then ncalls = ncalls + 1 end
    inclusive = inclusive + call:inclusive(1)
  end
end
local callees_seconds = os.clock() - t0

t0 = os.clock()
local nlines, self = 0, 0
for fn in prof:functions() do
  for line in fn:lines() do
    nlines = nlines + 1
    self = self + line:cost(1)
  end
end
local lines_seconds = os.clock() - t0

t0 = os.clock()
local files = 0
for _ in pairs(callgrind.annotate.costs_by_file(prof, { 1 })) do files = files + 1 end
local annotate_seconds = os.clock() - t0

t0 = os.clock()
callgrind.annotate.line_totals(prof, 1)
local editor_seconds = os.clock() - t0

local stats = prof:stats()
assert(ncalls == stats.calls and nlines == stats.lines, "walks missed records")
assert(self == prof:total(1), "line costs do not sum to the total")
print(("load_seconds %.6f"):format(load_seconds))
print(("callees_seconds %.6f"):format(callees_seconds))
print(("lines_seconds %.6f"):format(lines_seconds))
print(("annotate_seconds %.6f"):format(annotate_seconds))
print(("editor_seconds %.6f"):format(editor_seconds))
print("files " .. files)
print("functions " .. stats.functions)
print("calls " .. stats.calls)
print("lines " .. stats.lines)
print("inclusive_sum " .. string.format("%.0f", inclusive))
prof:close()
