-- callgrind.command.diff: what got slower or faster between two runs, in total and per
-- function; with --fail-above, a regression gate for CI that exits 1 and names what grew.
local format = require "callgrind.format"
local report = require "callgrind.report"
local options = require "callgrind.command.options"

local diff = {
  summary = "what got slower or faster between two runs; --fail-above PCT: a CI gate",
  description = [[
Compares two profiles of the same program: the total of every event both have, then the
functions whose self and inclusive cost of EV grew and shrank most, with both runs' costs.
Functions are matched by name, file and object.

With --fail-above PCT, it exits with status 1 when the total of EV grows by more than PCT
percent, or when a function that costs at least --min percent of the total (in either run)
grows by more than PCT percent, and names them on stderr: a regression gate for CI.]],
  epilog = [[
Example: callgrind diff --fail-above 5 --min 1 base.callgrind new.callgrind]],
}

function diff.define(cmd)
  options.event(cmd, "the event to compare [the first of NEW]")
  cmd:option("-n --limit", "functions per list"):argname("N"):convert(options.count("--limit", 1)):default("15")
  cmd:option("--fail-above", "exit 1 when the total or a function grows by more than PCT%"):argname("PCT")
    :convert(options.positive_percent("--fail-above"))
  cmd:option("--min", "functions below PCT% of the total in both runs do not fail the gate"):argname("PCT")
    :convert(options.percent("--min")):default("1")
  cmd:option("--by", "the cost the gate compares per function: self or inclusive"):argname("self|inclusive")
    :convert(options.one_of("--by", { "self", "inclusive" })):default("self")
  options.strict(cmd)
  options.profile(cmd, "BASE")
  options.profile(cmd, "NEW")
end

local function growth_text(before, after)
  if before == 0 then return after == 0 and "+0%" or "new" end
  return string.format("%+.1f%%", 100 * (after - before) / before)
end

-- The totals of every event both runs have, one line each.
local function totals_block(base, new)
  local rows = { { "event", "base", "new", "change", "%" } }
  for _, ev in ipairs(new:events()) do
    if base:has_event(ev) then
      local before, after = base:total(ev), new:total(ev)
      rows[#rows + 1] = { ev, format.thousands(before), format.thousands(after),
        (after >= before and "+" or "") .. format.thousands(after - before), growth_text(before, after) }
    end
  end
  return "Totals\n" .. format.table(rows, { false, true, true, true, true }) .. "\n\n"
end

-- Costs of `event` per function key (name, file, object), by self or inclusive cost.
local function costs_by_function(prof, event, by)
  local costs = {}
  for fn in prof:functions() do
    local key = fn.name .. "\0" .. fn.file .. "\0" .. fn.object
    costs[key] = { fn = fn, cost = by == "self" and fn:self(event) or fn:inclusive(event) }
  end
  return costs
end

local function grew(before, after, limit)
  if after <= before then return false end
  if before <= 0 then return true end
  return 100 * (after - before) / before > limit
end

-- What the gate finds: a list of lines naming the total and the functions that grew too much.
local function regressions(base, new, event, args)
  local found = {}
  local base_total, new_total = base:total(event), new:total(event)
  if grew(base_total, new_total, args.fail_above) then
    found[#found + 1] = ("total: %s -> %s (%s)"):format(format.thousands(base_total), format.thousands(new_total),
      growth_text(base_total, new_total))
  end
  local before, after = costs_by_function(base, event, args.by), costs_by_function(new, event, args.by)
  local entries = {}
  for key, a in pairs(after) do
    local b = before[key] and before[key].cost or 0
    local share = math.max(base_total ~= 0 and 100 * b / base_total or 0,
      new_total ~= 0 and 100 * a.cost / new_total or 0)
    if share >= args.min and grew(b, a.cost, args.fail_above) then
      entries[#entries + 1] = { fn = a.fn, before = b, after = a.cost }
    end
  end
  table.sort(entries, function(x, y)
    if x.after - x.before ~= y.after - y.before then return x.after - x.before > y.after - y.before end
    return x.fn.name < y.fn.name
  end)
  for _, e in ipairs(entries) do
    found[#found + 1] = ("%s: %s -> %s (%s)"):format(format.location(e.fn.file, e.fn.name, e.fn.object),
      format.thousands(e.before), format.thousands(e.after), growth_text(e.before, e.after))
  end
  return found
end

function diff.run(args, ctx)
  local cli = ctx.cli
  local base = cli:load(args.BASE, options.load_options(args))
  local new = cli:load(args.NEW, options.load_options(args))
  local event = cli:event(new, args.event)
  if not base:has_event(event) then
    cli:fail(("%s has no event '%s' (known: %s)"):format(args.BASE, event, table.concat(base:events(true), ", ")))
  end
  ctx.out:write(totals_block(base, new), report.diff(base, new, { event = event, limit = args.limit }))
  if args.fail_above then
    local found = regressions(base, new, event, args)
    if #found > 0 then
      io.stdout:flush()
      io.stderr:write(("callgrind: %s grew by more than %s%% (--by=%s, --min=%s%%):\n"):format(event,
        args.fail_above, args.by, args.min))
      for _, line in ipairs(found) do io.stderr:write("  ", line, "\n") end
      ctx.status = 1
    end
  end
end

return diff
