-- callgrind.query: the iteration helpers scripts reach for first — the hottest functions by any
-- event, with a limit, a threshold and a filter; costs grouped by source file and by object;
-- every function of a name. Built on the public userdata API and core.rank. `callgrind`
-- installs them as profile methods: prof:top{...}, prof:by_file(ev), prof:by_object(ev),
-- prof:find_all(name).
local core = require "callgrind.core"

local query = {}

--- Whether `value` is a profile (a loaded one, open or closed).
function query.is_profile(value)
  if type(value) ~= "userdata" then return false end
  local ok, method = pcall(function() return value.stats end)
  return ok and type(method) == "function"
end

--- Checks a report's `out` option: nil, a file, or anything with a write method (a table, or
--- a userdata whose write is found by indexing it). `level` places the error as error() does.
function query.check_output(out, level)
  if out == nil then return end
  local ok, write = false, nil
  if type(out) == "table" or type(out) == "userdata" then
    ok, write = pcall(function() return out.write end)
  end
  local callable = type(write) == "function"
    or (type(write) == "table" and getmetatable(write) and getmetatable(write).__call ~= nil)
  if not (ok and callable) then
    error("out must be a file or an object with a write method", (level or 2) + 1)
  end
end

--- Whether the profile's positions include `name` ("instr", "line", "bb").
function query.has_position(prof, name)
  for _, position in ipairs(prof:positions()) do
    if position == name then return true end
  end
  return false
end

--- The event name for `ev` (a name, a 1-based index, or nil for the first event). `level`
--- places an error as error() does, counted from the caller (default 2: the caller's caller).
function query.event(prof, ev, level)
  if ev == nil then
    local first = prof:events()[1]
    if not first then error("the profile has no events", (level or 2) + 1) end
    return first
  end
  return prof:event_info(ev).name
end

--- Event names for `value`: a list of names or indexes, one name or index, or a string of
--- names separated by commas or spaces ("Ir,Dr"); nil gives `default` (nil: every raw event,
--- in file order). An empty list is an error, placed by `level` as in query.event; an unknown
--- event raises the profile's own error.
function query.events(prof, value, default, level)
  if value == nil then return default or prof:events() end
  if type(value) == "string" then
    local list = {}
    for name in value:gmatch("[^,%s]+") do list[#list + 1] = name end
    value = list
  elseif type(value) == "number" then
    value = { value }
  end
  if type(value) ~= "table" or #value == 0 then error("a list of events expected", (level or 2) + 1) end
  local list = {}
  for i, ev in ipairs(value) do list[i] = prof:event_info(ev).name end
  return list
end

--- Whether a call (or anything with a caller and a callee) is recursive: a function calling
--- itself, or a call between two members of one cycle. Its inclusive cost is then part of a
--- cost already counted.
function query.is_recursive(call)
  local caller, callee = call.caller, call.callee
  return caller == callee or (caller.cycle ~= nil and caller.cycle == callee.cycle)
end

--- Costs summed into groups: `g = query.groups(events[, field])` keeps a list `g.list` of
--- groups in the order they were first added to and an index `g.index` by key.
--- `g:add(key, cost_of[, count])` adds `cost_of(ev)` for each event to the group's
--- `field` table (default "costs", zeros when the group is new) and `count`, when given, to
--- its field `count`;
--- it returns the group and whether it was new, so that the caller can fill its other fields.
--- `cost_of` may also be a table of costs by event name.
local Groups = {}
Groups.__index = Groups

function query.groups(events, field)
  return setmetatable({ events = events, field = field or "costs", list = {}, index = {} }, Groups)
end

function Groups:add(key, cost_of, count)
  local group = self.index[key]
  local new = group == nil
  local events = self.events
  if new then
    local zeros = {}
    for _, ev in ipairs(events) do zeros[ev] = 0 end
    group = { [self.field] = zeros }
    self.index[key] = group
    self.list[#self.list + 1] = group
  end
  local costs = group[self.field]
  if type(cost_of) == "table" then
    for _, ev in ipairs(events) do costs[ev] = costs[ev] + cost_of[ev] end
  else
    for _, ev in ipairs(events) do costs[ev] = costs[ev] + cost_of(ev) end
  end
  if count then group.count = (group.count or 0) + count end
  return group, new
end

local function pattern_test(value, pattern, plain)
  if pattern == nil then return true end
  return value:find(pattern, 1, plain) ~= nil
end

--- A predicate from a filter: a function(fn) -> boolean, or a table of Lua patterns
--- {name = ..., file = ..., object = ..., plain = true to match literally}.
function query.matcher(filter)
  if filter == nil then return function() return true end end
  if type(filter) == "function" then return filter end
  if type(filter) ~= "table" then error("filter must be a function or a table of patterns", 3) end
  local name, file, object, plain = filter.name, filter.file, filter.object, filter.plain
  return function(fn)
    return pattern_test(fn.name, name, plain) and pattern_test(fn.file, file, plain)
      and pattern_test(fn.object, object, plain)
  end
end

--- Applies callgrind_annotate's --threshold to a list sorted by decreasing cost; 100 (or nil)
--- keeps everything. Before each entry it checks the share of `total` reached, and stops once
--- that is at least `threshold` percent: for self costs the sum of the entries kept; for
--- inclusive costs (`inclusive` true), which overlap, the total less the last entry kept, so
--- that the list ends after the first entry below 100 - threshold percent of the total.
--- `cost_of(entry)` gives an entry's cost.
function query.cut(list, total, threshold, cost_of, inclusive)
  if threshold == nil or threshold >= 100 then return list end
  local kept, reached = {}, 0
  for _, entry in ipairs(list) do
    local share = total > 0 and reached * 100 / total or reached * 100
    if share >= threshold then break end
    kept[#kept + 1] = entry
    reached = inclusive and total - cost_of(entry) or reached + cost_of(entry)
  end
  return kept
end

--- The hottest functions: a list of function objects sorted by decreasing cost.
--- opts.event (default the first), opts.inclusive (sort by inclusive cost), opts.limit,
--- opts.threshold (percent of the total to cover, like callgrind_annotate), opts.filter.
function query.top(prof, opts)
  opts = opts or {}
  local ev = query.event(prof, opts.event)
  local match = query.matcher(opts.filter)
  local inclusive = opts.inclusive
  -- ranked in C; without a filter or a threshold, only the first `limit` come to Lua
  local plain = opts.filter == nil and opts.threshold == nil
  local ranked = core.rank(prof, ev, inclusive, plain and opts.limit or nil)
  if plain then return ranked end
  local entries = {}
  for _, fn in ipairs(ranked) do
    if match(fn) then entries[#entries + 1] = fn end
  end
  local cost_of = inclusive and function(fn) return fn:inclusive(ev) end or function(fn) return fn:self(ev) end
  entries = query.cut(entries, prof:total(ev), opts.threshold, cost_of, inclusive)
  local list = {}
  for i, fn in ipairs(entries) do
    if opts.limit and i > opts.limit then break end
    list[i] = fn
  end
  return list
end

local function sorted_groups(groups, field, ev)
  local list = groups.list
  table.sort(list, function(a, b)
    if a.costs[ev] ~= b.costs[ev] then return a.costs[ev] > b.costs[ev] end
    return a[field] < b[field]
  end)
  return list
end

--- Self costs per source file (the file of each line record, so inlined code counts for its
--- header): { {file = ..., costs = {ev = n, ...}}, ... } by decreasing cost of `ev`.
function query.by_file(prof, ev)
  ev = query.event(prof, ev)
  -- summed in C, the records of a function read only when its code spans several files
  return sorted_groups({ list = core.file_costs(prof) }, "file", ev)
end

--- Self costs per object (shared library or executable): { {object = ..., costs = {...}}, ... }.
function query.by_object(prof, ev)
  ev = query.event(prof, ev)
  local groups = query.groups(prof:events())
  for fn in prof:functions() do
    local group, new = groups:add(fn.object, function(e) return fn:self(e) end)
    if new then group.object = fn.object end
  end
  return sorted_groups(groups, "object", ev)
end

--- Every function with this name (and file and object when given), in profile order.
function query.find_all(prof, name, file, object)
  if type(name) ~= "string" then error("find_all: a function name expected", 2) end
  local list = {}
  for fn in prof:functions() do
    if fn.name == name and (file == nil or fn.file == file) and (object == nil or fn.object == object) then
      list[#list + 1] = fn
    end
  end
  return list
end

return query
