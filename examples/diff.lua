-- diff.lua: what changed between two runs of a program.
--
--   lua5.4 examples/diff.lua [--event=EV] [--limit=N] BASE NEW
--
-- Prints the functions whose self and inclusive costs grew and shrank most from BASE to NEW.
local report = require "callgrind.report"
local cli = require("callgrind.cli").new("diff.lua")

local usage = [[
usage: diff.lua [--event=EV] [--limit=N] BASE NEW

Compares two Callgrind or Cachegrind profiles of the same program and lists the biggest
regressions and improvements by self and by inclusive cost.

options:
  --event=EV   the event to compare [the first of NEW]
  --limit=N    functions per list [15]
  -h, --help   this text
]]

local function fail(message)
  cli:fail(message)
end

local opts, paths = {}, {}
for _, a in ipairs(arg) do
  local name, value = a:match("^%-%-([%w-]+)=(.*)$")
  if a == "-h" or a == "--help" then
    io.write(usage)
    os.exit(0)
  elseif name == "event" then
    opts.event = value
  elseif name == "limit" then
    opts.limit = tonumber(value)
    if not opts.limit or opts.limit < 1 then fail("--limit expects a positive number") end
  elseif a:sub(1, 1) == "-" then
    fail("unknown option '" .. a .. "' (see --help)")
  else
    paths[#paths + 1] = a
  end
end
if #paths ~= 2 then
  io.stderr:write(usage)
  os.exit(2)
end

cli:run(function()
  local base, new = cli:load(paths[1]), cli:load(paths[2])
  opts.event = cli:event(new, opts.event)
  io.write(report.diff(base, new, opts), "\n")
end)
