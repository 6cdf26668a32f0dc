-- annotate.lua: callgrind_annotate's report, from this module.
--
--   lua5.4 examples/annotate.lua [options] PROFILE [SOURCE-FILE...]
--
-- Run it from the repository after `make` (LUA_PATH="lua/?.lua;lua/?/init.lua;;"
-- LUA_CPATH="build/5.4/?.so;;"), or anywhere once the module is installed.
local report = require "callgrind.report"
local cli = require("callgrind.cli").new("annotate.lua")

local usage = [[
usage: annotate.lua [options] PROFILE [SOURCE-FILE...]

Prints the functions of a Callgrind or Cachegrind profile by cost, like callgrind_annotate,
optionally with their callers and callees and with annotated source files.

options:
  --show=A,B,C          events to show [all]
  --sort=A,B,C          events to sort by [the shown ones]
  --threshold=N         stop listing at N% of the first sort event's total [99]
  --inclusive=yes|no    list by inclusive cost [no]
  --tree=none|caller|calling|both
                        also print each function's callers and/or callees [none]
  --auto=yes|no         annotate the source files of the listed functions [yes]
  --context=N           lines of context around annotated lines [8]
  -I DIR, --include=DIR search DIR for source files (repeatable)
  --show-percs=yes|no   show percentages [yes]
  --inlined=split|merge inlined code in rows of its own, or in its function [split]
  --strict=yes|no       stop at the first malformed line [yes; no: skip it with a warning]
  -h, --help            this text
]]

local function fail(message)
  cli:fail(message)
end

local function yes_no(name, value)
  if value == "yes" then return true end
  if value == "no" then return false end
  fail(("--%s expects yes or no, not '%s'"):format(name, tostring(value)))
end

local function number(name, value)
  local n = tonumber(value)
  if not n or n < 0 then fail(("--%s expects a number, not '%s'"):format(name, tostring(value))) end
  return n
end

local opts = { threshold = 99, auto = true, context = 8, include = {}, tree = "none", strict = true }
local positional = {}
local i = 1
while i <= #arg do
  local a = arg[i]
  local name, value = a:match("^%-%-([%w-]+)=(.*)$")
  if a == "-h" or a == "--help" then
    io.write(usage)
    os.exit(0)
  elseif a == "-I" then
    i = i + 1
    if not arg[i] then fail("-I needs a directory") end
    opts.include[#opts.include + 1] = arg[i]
  elseif a:match("^%-I.") then
    opts.include[#opts.include + 1] = a:sub(3)
  elseif name == "show" then opts.show = value
  elseif name == "sort" then opts.sort = value
  elseif name == "threshold" then opts.threshold = number(name, value)
  elseif name == "inclusive" then opts.inclusive = yes_no(name, value)
  elseif name == "tree" then
    if value ~= "none" and value ~= "caller" and value ~= "calling" and value ~= "both" then
      fail("--tree expects none, caller, calling or both")
    end
    opts.tree = value
  elseif name == "auto" then opts.auto = yes_no(name, value)
  elseif name == "context" then opts.context = number(name, value)
  elseif name == "include" then opts.include[#opts.include + 1] = value
  elseif name == "show-percs" then opts.percentages = yes_no(name, value)
  elseif name == "inlined" then
    if value ~= "split" and value ~= "merge" then fail("--inlined expects split or merge") end
    opts.inlined = value
  elseif name == "strict" then opts.strict = yes_no(name, value)
  elseif a:sub(1, 1) == "-" and a ~= "-" then
    fail("unknown option '" .. a .. "' (see --help)")
  else
    positional[#positional + 1] = a
  end
  i = i + 1
end

local path = table.remove(positional, 1)
if not path then
  io.stderr:write(usage)
  os.exit(2)
end
if #positional > 0 then opts.files = positional end

cli:run(function()
  local prof = cli:load(path, { strict = opts.strict })
  opts.show = cli:events(prof, opts.show)
  opts.sort = cli:events(prof, opts.sort)
  local out = {}
  if opts.tree ~= "none" then
    out[#out + 1] = report.tree(prof, opts)
  else
    out[#out + 1] = report.flat(prof, opts)
  end
  if opts.auto or opts.files then
    local annotated = report.annotate(prof, { files = opts.files, auto = opts.auto and not opts.files,
      show = opts.show, sort = opts.sort, threshold = opts.threshold, context = opts.context,
      include = opts.include, percentages = opts.percentages, inlined = opts.inlined })
    if annotated ~= "" then out[#out + 1] = annotated end
  end
  io.write(table.concat(out, "\n"))
end)
