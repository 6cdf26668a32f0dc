-- top.lua: the hottest functions of a profile, by self and by inclusive cost.
--
--   lua5.4 examples/top.lua PROFILE [EVENT] [COUNT]
--
-- Run it from the repository after `make`, or anywhere once the module is installed.
local cli = require("callgrind.cli").new("top.lua")
local format = require "callgrind.format"

local path, event, count = arg[1], arg[2], arg[3]
if not path or path == "-h" or path == "--help" then
  io.stderr:write("usage: top.lua PROFILE [EVENT] [COUNT]\n")
  os.exit(path and 0 or 2)
end

-- Members of a cycle named on one line: an interpreter's eval loop can make a cycle of hundreds.
local MAX_MEMBERS = 8

cli:run(function()
  local prof = cli:load(path)
  event = cli:event(prof, event)
  count = tonumber(count or 15)
  if not count or count < 1 then cli:fail("COUNT must be a positive number") end
  local total = prof:total(event)

  local function percent(n)
    if total == 0 then return "   n/a" end
    return string.format("%5.1f%%", 100 * n / total)
  end

  local function label(fn)
    local where = fn.file ~= "" and fn.file or "???"
    local name = fn.cycle and (fn.name .. " " .. fn.cycle) or fn.name
    return string.format("%s  (%s)", name, where)
  end

  local function show(title, list, cost_of)
    print(string.format("%s (%s)", title, event))
    for _, fn in ipairs(list) do
      local c = cost_of(fn)
      print(string.format("%15s %s %10s calls  %s", format.thousands(c), percent(c), format.thousands(fn.called),
        label(fn)))
    end
    print()
  end

  local stats = prof:stats()
  local section = prof:sections()[1]
  print(string.format("%s: %s %s total, %d functions, %d calls%s", path, format.thousands(total), event,
    stats.functions, stats.calls, section and section.cmd and (", command: " .. section.cmd) or ""))
  print()
  show("By self cost", prof:top { event = event, limit = count }, function(fn) return fn:self(event) end)
  -- without calls (a cachegrind file) inclusive costs are the self costs: nothing more to show
  if stats.calls > 0 then
    show("By inclusive cost", prof:top { event = event, limit = count, inclusive = true },
      function(fn) return fn:inclusive(event) end)
  end
  for _, cycle in ipairs(prof:cycles()) do
    local names = {}
    for i, fn in ipairs(cycle.members) do names[i] = fn.name end
    print(string.format("%s (%d functions: %s): inclusive %s", cycle.name, #names, cli.shorten(names, MAX_MEMBERS),
      format.thousands(cycle.inclusive[event])))
  end
end)
