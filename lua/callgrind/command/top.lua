-- callgrind.command.top: the hottest functions of a profile by self and by inclusive cost,
-- sized for one screen.
local format = require "callgrind.format"
local names = require "callgrind.names"
local options = require "callgrind.command.options"
local cli = require "callgrind.cli"

local top = {
  summary = "the hottest functions by self and inclusive cost, one screen",
  description = [[
Lists the functions that cost most, by their own (self) cost and by their inclusive cost
(what they and everything they call cost), with their share of the total and how often they
were called; then the cycles of mutual recursion. Several FILEs are summed into one profile.]],
}

-- Members of a cycle named on one line: an interpreter's eval loop can make a cycle of hundreds.
local MAX_MEMBERS = 8

function top.define(cmd)
  options.event(cmd)
  cmd:option("-n --limit", "functions per list"):argname("N"):convert(options.count("--limit", 1)):default("10")
  options.strict(cmd)
  options.profiles(cmd)
end

local function percent(n, total)
  if total == 0 then return "   n/a" end
  return string.format("%5.1f%%", 100 * n / total)
end

local function label(fn)
  local name = fn.cycle and (fn.name .. " " .. fn.cycle) or fn.name
  return string.format("%s  (%s)", name, names.file(fn.file))
end

local function listing(out, title, list, cost_of, total)
  out:line(out:paint("bold", title))
  local rows = { { "cost", "share", "calls", "function" } }
  for _, fn in ipairs(list) do
    local c = cost_of(fn)
    rows[#rows + 1] = { format.thousands(c), percent(c, total), format.thousands(fn.called), label(fn) }
  end
  for line in (format.table(rows, { true, true, true }) .. "\n"):gmatch("([^\n]*)\n") do out:line(line) end
  out:line()
end

local function describe(args, prof, event, total)
  local stats = prof:stats()
  local section = prof:sections()[1]
  local name = table.concat(args.FILE, ", ")
  return string.format("%s: %s %s in all, %s functions, %s calls%s", name, format.thousands(total), event,
    format.thousands(stats.functions), format.thousands(stats.calls),
    section and section.cmd and (", command: " .. section.cmd) or "")
end

function top.run(args, ctx)
  local prof = ctx.cli:load(args.FILE, options.load_options(args))
  local event = ctx.cli:event(prof, args.event)
  local total = prof:total(event)
  local out = ctx.out
  out:line(describe(args, prof, event, total))
  out:line()
  listing(out, ("By self cost (%s)"):format(event), prof:top { event = event, limit = args.limit },
    function(fn) return fn:self(event) end, total)
  -- without calls (a cachegrind file) inclusive costs are the self costs: nothing more to show
  if prof:stats().calls > 0 then
    listing(out, ("By inclusive cost (%s)"):format(event),
      prof:top { event = event, limit = args.limit, inclusive = true },
      function(fn) return fn:inclusive(event) end, total)
  end
  for _, cycle in ipairs(prof:cycles()) do
    local members = {}
    for i, fn in ipairs(cycle.members) do members[i] = fn.name end
    out:line(string.format("%s (%d functions: %s): inclusive %s", cycle.name, #members,
      cli.shorten(members, MAX_MEMBERS), format.thousands(cycle.inclusive[event])))
  end
end

return top
