-- bench/time_report.lua: times one report or writer of the Lua module on one profile, in a
-- process of its own, for the reports table of bench/run.lua.
--
--   lua5.4 bench/time_report.lua STEP FILE [OUT]
--
-- Loads FILE with callgrind.load, then runs STEP once:
--   load            nothing more
--   flat, flat100   report.flat(prof), report.flat(prof, {threshold = 100})
--   tree, tree100   report.tree(prof), report.tree(prof, {threshold = 100})
--   write           prof:write(OUT)
--   webgrind        callgrind.webgrind.write(prof, OUT)
--   file_costs      annotate.file_costs(prof, FILE) for the source file of the function with
--                   the highest self cost (what an editor shows for one buffer)
--   line_totals     annotate.line_totals(prof, 1, FILE) for that same file (the Neovim
--                   plugin's marks of one buffer)
--   line_totals_all annotate.line_totals(prof, 1) (every file)
--   costs_by_file   annotate.costs_by_file(prof) (every file, every event)
-- and prints `key value` lines: load_seconds, step_seconds, peak_rss_kb (the process's,
-- VmHWM), clock (what measured the times), result_bytes (the size of a report's text), refused
-- (why a writer refused the profile). Only the public API is used, so the table follows
-- whatever the module does behind it.
--
-- Times are wall-clock when luasystem is there (it comes with busted), else CPU time: a load
-- that uses several threads has to be timed by the wall.
local callgrind = require "callgrind"

local step, path, out_path = arg[1], arg[2], arg[3]
if not step or not path then
  io.stderr:write("usage: lua5.4 bench/time_report.lua STEP FILE [OUT]\n")
  os.exit(2)
end

local clock, clock_name = os.clock, "cpu"
do
  local ok, system = pcall(require, "system")
  if ok and type(system) == "table" and (system.monotime or system.gettime) then
    clock, clock_name = system.monotime or system.gettime, "wall"
  end
end

local function top_file(prof)
  local top = prof:top { limit = 1 }
  return top[1] and top[1].file or ""
end

local steps = {
  load = function() end,
  flat = function(prof) return callgrind.report.flat(prof) end,
  flat100 = function(prof) return callgrind.report.flat(prof, { threshold = 100 }) end,
  tree = function(prof) return callgrind.report.tree(prof) end,
  tree100 = function(prof) return callgrind.report.tree(prof, { threshold = 100 }) end,
  write = function(prof) assert(prof:write(out_path)) end,
  -- webgrind's format holds 32-bit numbers: a profile whose costs do not fit is refused, which
  -- is the writer's answer, not a failure of the step
  webgrind = function(prof)
    local ok, err = callgrind.webgrind.write(prof, out_path)
    if ok then return end
    if err:find("does not fit in 32 bits", 1, true) then return { refused = err } end
    error(err, 0)
  end,
  file_costs = function(prof, file) callgrind.annotate.file_costs(prof, file) end,
  line_totals = function(prof, file) callgrind.annotate.line_totals(prof, 1, file) end,
  line_totals_all = function(prof) callgrind.annotate.line_totals(prof, 1) end,
  costs_by_file = function(prof) callgrind.annotate.costs_by_file(prof) end,
}

local run = steps[step]
if not run then error("unknown step " .. step, 0) end
if (step == "write" or step == "webgrind") and not out_path then error(step .. " needs OUT", 0) end

local t0 = clock()
local prof = assert(callgrind.load(path))
local load_seconds = clock() - t0

local file = (step == "file_costs" or step == "line_totals") and top_file(prof) or nil
t0 = clock()
local result = run(prof, file)
local step_seconds = clock() - t0

local function peak_rss_kb()
  local f = io.open("/proc/self/status", "r")
  if not f then return 0 end
  local status = f:read("*a")
  f:close()
  return tonumber(status:match("VmHWM:%s*(%d+)")) or 0
end

print(("load_seconds %.6f"):format(load_seconds))
print(("step_seconds %.6f"):format(step_seconds))
print("peak_rss_kb " .. peak_rss_kb())
print("clock " .. clock_name)
if type(result) == "string" then print("result_bytes " .. #result) end
if type(result) == "table" and result.refused then print("refused " .. result.refused) end
prof:close()
