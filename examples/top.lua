-- top.lua: the hottest functions of a profile, by self and by inclusive cost.
--
--   lua5.4 examples/top.lua PROFILE [EVENT] [COUNT]
--
-- Run it from the repository after `make`, or anywhere once the module is installed.
local callgrind = require "callgrind"

local path, event, count = arg[1], arg[2], tonumber(arg[3] or 15)
if not path or path == "-h" or path == "--help" then
  io.stderr:write("usage: top.lua PROFILE [EVENT] [COUNT]\n")
  os.exit(path and 0 or 2)
end

local prof, err = callgrind.load(path)
if not prof then
  io.stderr:write("top.lua: ", err, "\n")
  os.exit(1)
end
event = event or prof:events()[1]
local total = prof:total(event)

local function thousands(n)
  local s = tostring(math.floor(n))
  local sign, digits = s:match("^(-?)(%d+)$")
  return sign .. digits:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
end

local function percent(n)
  if total == 0 then return "   n/a" end
  return string.format("%5.1f%%", 100 * n / total)
end

local function label(fn)
  local where = fn.file ~= "" and fn.file or "???"
  local name = fn.cycle and (fn.name .. " " .. fn.cycle) or fn.name
  return string.format("%s  (%s)", name, where)
end

local functions = {}
for fn in prof:functions() do functions[#functions + 1] = fn end

local function show(title, cost_of)
  table.sort(functions, function(a, b)
    local x, y = cost_of(a), cost_of(b)
    if x ~= y then return x > y end
    return a.name < b.name
  end)
  print(string.format("%s (%s)", title, event))
  for i = 1, math.min(count, #functions) do
    local fn = functions[i]
    local c = cost_of(fn)
    print(string.format("%15s %s %10s calls  %s", thousands(c), percent(c), thousands(fn.called), label(fn)))
  end
  print()
end

local section = prof:sections()[1]
print(string.format("%s: %s %s total, %d functions, %d calls%s", path, thousands(total), event,
  prof:stats().functions, prof:stats().calls, section and section.cmd and (", command: " .. section.cmd) or ""))
print()
show("By self cost", function(fn) return fn:self(event) end)
show("By inclusive cost", function(fn) return fn:inclusive(event) end)
for _, cycle in ipairs(prof:cycles()) do
  local names = {}
  for i, fn in ipairs(cycle.members) do names[i] = fn.name end
  print(string.format("%s: %s (inclusive %s)", cycle.name, table.concat(names, ", "), thousands(cycle.inclusive[event])))
end
