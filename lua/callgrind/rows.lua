-- callgrind.rows: the rows of a function listing, keyed the way callgrind_annotate keys them.
--
-- callgrind_annotate lists "file:function" where the file is the one the code is in: code a
-- function inlined from a header gets a row of its own under the header's name. That is the
-- default here (inlined = "split"); inlined = "merge" gives one row per function of the model,
-- as KCachegrind shows them.
--
-- A row's self cost is the cost of its line records. Its inclusive cost: for the row in the
-- function's own file of a function that others call, the function's inclusive cost (what its
-- callers spent in it); for any other row, its self cost plus the calls made from its file,
-- self-calls and calls within the function's cycle left out. The rows of one function thus add
-- up to the function's inclusive cost when nobody calls it. The sums over line records and calls,
-- the sorting and the threshold are the C core's (core.rows), and so are the callers and callees
-- of the rows a listing prints (core.listing); rows.callers and rows.callees give them for one
-- row as tables.
local core = require "callgrind.core"
local names = require "callgrind.names"
local query = require "callgrind.query"

local rows = {}

--- Is `fn` called by another function with a positive count (and so costs what its callers
--- spent in it)?
function rows.is_called(fn)
  if fn.cycle then return false end
  for call in fn:callers() do
    if call.count > 0 and call.caller ~= fn then return true end
  end
  return false
end

local function inlined_mode(opts)
  local inlined = opts and opts.inlined or "split"
  if inlined ~= "split" and inlined ~= "merge" then error("inlined must be 'split' or 'merge'", 4) end
  return inlined == "merge"
end

--- Every row of a profile for `events` (a list of event names), highest self cost of the first
--- event first. opts.inlined: "split" (default, callgrind_annotate's rows) or "merge" (one per
--- function).
function rows.build(prof, events, opts)
  return core.rows(prof, { events = events, sort = { events[1] }, all = true, merged = inlined_mode(opts) })
end

--- The query of core.rows and core.listing for a listing sorted by `sort` (event names) and cut
--- as callgrind_annotate cuts it: opts.threshold (percent of the first sort event's total, 100
--- or nil for every row; the other sort events' thresholds are 0), opts.inclusive, opts.limit,
--- opts.inlined.
function rows.query(sort, opts)
  local threshold = opts.threshold
  local thresholds = { threshold or 100 }
  for i = 2, #sort do thresholds[i] = 0 end
  return {
    sort = sort, thresholds = thresholds, all = threshold == nil or threshold >= 100,
    inclusive = opts.inclusive, limit = opts.limit, merged = inlined_mode(opts),
  }
end

--- The rows a listing shows, sorted by `sort` (event names, highest cost first, ties by key and
--- object) and cut as callgrind_annotate cuts them (rows.query). Rows carry the costs of
--- `events`.
function rows.select(prof, events, sort, opts)
  local query = rows.query(sort, opts)
  query.events = events
  return core.rows(prof, query)
end

local function group_calls(entries, events, keyof, fields)
  local groups = query.groups(events)
  for _, e in ipairs(entries) do
    local g, new = groups:add(keyof(e), function(ev) return e:inclusive(ev) end, e.count)
    if new then for k, v in pairs(fields(e)) do g[k] = v end end
  end
  return groups.list
end

--- The callers of a row: { {file=, name=, object=, key=, count=, costs={ev=n}}, ... }, one per
--- caller row (the caller's function and the file of the call site), calls summed.
function rows.callers(row, events)
  local calls = {}
  for _, fn in ipairs(row.functions) do
    if row.merged or fn.file == row.file then
      for call in fn:callers() do calls[#calls + 1] = call end
    end
  end
  return group_calls(calls, events, function(call)
    local caller = call.caller
    local file = row.merged and caller.file or call.file
    return file .. "\0" .. caller.name .. "\0" .. caller.object
  end, function(call)
    local caller = call.caller
    local file = row.merged and caller.file or call.file
    return { file = file, name = caller.name, object = caller.object,
      key = names.file(file) .. ":" .. caller.name }
  end)
end

--- The callees of a row: the calls made from its file (all of the function's calls when
--- merged), one entry per callee function, calls summed.
function rows.callees(row, events)
  local calls = {}
  for _, fn in ipairs(row.functions) do
    for call in fn:callees() do
      if row.merged or call.file == row.file then calls[#calls + 1] = call end
    end
  end
  return group_calls(calls, events, function(call)
    local callee = call.callee
    return callee.file .. "\0" .. callee.name .. "\0" .. callee.object
  end, function(call)
    local callee = call.callee
    return { file = callee.file, name = callee.name, object = callee.object,
      key = names.file(callee.file) .. ":" .. callee.name }
  end)
end

return rows
