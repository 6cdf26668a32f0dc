-- callgrind.annotate.costs: the costs of source lines, per file, as tables (annotate.file_costs,
-- annotate.costs_by_file). The sums over line records and the calls of each line, summed per
-- callee, are the core's (core.file_lines, one pass, every event at once).
local core = require "callgrind.core"
local query = require "callgrind.query"

local costs = {}

--- Event names for a list of names or indexes (nil: every raw event, in file order), as
--- query.events reads them, an error placed at the caller of the caller. Unknown events raise
--- the profile's own error.
function costs.event_names(prof, list)
  return query.events(prof, list, nil, 3)
end

function costs.zeros(events)
  local t = {}
  for _, ev in ipairs(events) do t[ev] = 0 end
  return t
end

--- The lines of the files named (nil: every file): { [file] = { [line] = entry } }, where an
--- entry is { self = {ev = cost} or nil, calls = { {callee=, count=, inclusive=}, ... } }:
--- `self` only for lines with line records (lines that only make calls have none); calls
--- summed per callee by the core (recursive calls left out where the line also enters the
--- recursion: their cost is already part of the call that entered it) and sorted as
--- costs.call_order sorts them (highest cost first, then by label, then by count).
function costs.gather(prof, files, events)
  return core.file_lines(prof, files, events)
end

--- The entries of gather() as file_costs() gives them: every line with a `self` table.
function costs.with_self(lines, events)
  for _, entry in pairs(lines) do
    if not entry.self then entry.self = costs.zeros(events) end
  end
  return lines
end

return costs
