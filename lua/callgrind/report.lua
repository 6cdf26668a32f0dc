-- callgrind.report: text reports in the manner of callgrind_annotate, returned as strings.
--
--   report.flat(prof, opts)      program totals and one row per function
--   report.tree(prof, opts)      the same rows with their callers and callees
--   report.annotate(prof, opts)  source files with the cost of every line
--   report.cycles(prof, opts)    each <cycle N> with its members
--   report.diff(base, new, opts) the biggest regressions and improvements between two runs
--   report.dot(prof, opts)       a Graphviz call graph (callgrind.dot)
--
-- Common options: show (events to show: a list or "Ir,Dr"; default all), sort (events to sort
-- by; default the shown ones), threshold (percent of the first sort event's total to cover;
-- default 99, like callgrind_annotate), inclusive (rows by inclusive cost), percentages
-- (default true), limit (at most this many rows), inlined ("split", the default: code inlined
-- from a header has its own row as in callgrind_annotate; "merge": one row per function),
-- header (default true: the profile's description first), out (a file, or any object with a
-- write method: flat, tree and annotate write their text there in pieces as it is made, and
-- return true, or nil and the message of a write that failed, instead of the text).
local core = require "callgrind.core"
local format = require "callgrind.format"
local layout = require "callgrind.layout"
local rows = require "callgrind.rows"
local query = require "callgrind.query"

local report = {}

local function event_list(prof, value, default)
  return query.events(prof, value, default, 4)
end

local function options(prof, opts)
  opts = opts or {}
  if type(opts) ~= "table" then error("options must be a table", 3) end
  query.check_output(opts.out, 3)
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.show = event_list(prof, opts.show, prof:events())
  o.sort = event_list(prof, opts.sort, o.show)
  o.threshold = opts.threshold or 99
  o.percentages = opts.percentages ~= false
  o.header = opts.header ~= false
  o.totals = {}
  for _, ev in ipairs(o.show) do o.totals[ev] = prof:total(ev) end
  for _, ev in ipairs(o.sort) do o.totals[ev] = prof:total(ev) end
  return o
end

---------------------------------------------------------------------------
-- Layout
---------------------------------------------------------------------------

-- A block of lines with one cost column per shown event, then a label, in callgrind_annotate's
-- columns (callgrind.layout).
local function new_block(o)
  return layout.block(o.show, o.totals, o.percentages)
end

---------------------------------------------------------------------------
-- The profile's description
---------------------------------------------------------------------------

-- callgrind_annotate's continuation lines: the first item after the label, the others below.
local function listed(lines, label, items)
  lines[#lines + 1] = label .. (items[1] or "")
  for i = 2, #items do lines[#lines + 1] = string.rep(" ", #label) .. items[i] end
end

local function number_text(n)
  if n == math.floor(n) then return ("%d"):format(n) end
  return tostring(n)
end

local function header(prof, o, lines)
  local sections = prof:sections()
  local first = sections[1] or { headers = {}, desc = {} }
  local sources, seen = {}, {}
  for _, s in ipairs(sections) do
    if not seen[s.source] then
      seen[s.source] = true
      sources[#sources + 1] = "'" .. s.source .. "'"
    end
  end
  lines[#lines + 1] = format.rule
  local creator = first.creator and (" (creator: " .. first.creator .. ")") or ""
  lines[#lines + 1] = "Profile data file " .. table.concat(sources, ", ") .. creator
  lines[#lines + 1] = format.rule
  for _, h in ipairs(first.headers) do
    if h.key == "desc" then lines[#lines + 1] = h.value end
  end
  if first.cmd or first.pid then
    -- callgrind_annotate names the part and the thread only with the PID
    local details = {}
    if first.pid then
      details[1] = "PID " .. first.pid
      if first.part then details[#details + 1] = "part " .. first.part end
      if first.thread then details[#details + 1] = "thread " .. first.thread end
    end
    local extra = #details > 0 and (" (" .. table.concat(details, ", ") .. ")") or ""
    lines[#lines + 1] = "Profiled target:  " .. (first.cmd or "(unknown)") .. extra
  end
  if #sections > 1 then lines[#lines + 1] = "Sections:         " .. #sections end
  lines[#lines + 1] = "Events recorded:  " .. table.concat(prof:events(), " ")
  lines[#lines + 1] = "Events shown:     " .. table.concat(o.show, " ")
  lines[#lines + 1] = "Event sort order: " .. table.concat(o.sort, " ")
  -- one threshold per sort event: the first sort event's, then 0 for the others
  local thresholds = { number_text(o.threshold) }
  for i = 2, #o.sort do thresholds[i] = "0" end
  lines[#lines + 1] = "Thresholds:       " .. table.concat(thresholds, " ")
  listed(lines, "Include dirs:     ", o.include or {})
  listed(lines, "User annotated:   ", o.files or {})
  lines[#lines + 1] = "Auto-annotation:  " .. (o.auto and "on" or "off")
  lines[#lines + 1] = ""
end

local function totals_block(prof, o, lines)
  local computed = {}
  for _, ev in ipairs(o.show) do computed[ev] = prof:total(ev) end
  local block = new_block(o)
  block:add(computed, "PROGRAM TOTALS")
  lines[#lines + 1] = block:render(true)
  lines[#lines + 1] = ""
end

---------------------------------------------------------------------------
-- Rows
---------------------------------------------------------------------------

local function row_events(o)
  local events = {}
  local seen = {}
  for _, list in ipairs { o.show, o.sort } do
    for _, ev in ipairs(list) do
      if not seen[ev] then
        seen[ev] = true
        events[#events + 1] = ev
      end
    end
  end
  return events
end

local function select_rows(prof, o)
  return rows.select(prof, row_events(o), o.sort, o), o
end

--- The rows a listing shows, sorted by the sort events and cut at the threshold and the limit:
--- { {key=, file=, name=, object=, functions={fn...}, self={ev=n}, inclusive={ev=n}}, ... }.
function report.rows(prof, opts)
  return (select_rows(prof, options(prof, opts)))
end

-- The header, the totals and the listing (laid out and summed by the core: core.listing).
local function listing(prof, o, tree)
  local lines = {}
  if o.header then header(prof, o, lines) end
  totals_block(prof, o, lines)
  local query = rows.query(o.sort, o)
  query.show, query.percentages, query.tree = o.show, o.percentages, tree
  query.prefix = table.concat(lines, "\n") .. "\n"
  query.out = o.out
  return core.listing(prof, query)
end

--- callgrind_annotate's listing: program totals, then one row per function.
function report.flat(prof, opts)
  return listing(prof, options(prof, opts), "none")
end

--- Callers and callees of every listed function, like callgrind_annotate --tree.
-- opts.tree: "both" (default), "caller" (callers only) or "calling" (callees only).
function report.tree(prof, opts)
  local o = options(prof, opts)
  local mode = o.tree or "both"
  if mode ~= "both" and mode ~= "caller" and mode ~= "calling" then
    error("tree must be 'both', 'caller' or 'calling'", 2)
  end
  return listing(prof, o, mode)
end

local function by_cost(events)
  return function(a, b)
    for _, ev in ipairs(events) do
      if a.costs[ev] ~= b.costs[ev] then return a.costs[ev] > b.costs[ev] end
    end
    return a.key < b.key
  end
end

--- Each cycle with its inclusive cost and its members (KCachegrind's <cycle N>).
function report.cycles(prof, opts)
  local o = options(prof, opts)
  local cycles = prof:cycles()
  local lines = {}
  if #cycles == 0 then return "no cycles\n" end
  local block = new_block(o)
  for _, cycle in ipairs(cycles) do
    block:blank()
    block:add(cycle.inclusive, "*  " .. cycle.name .. " (" .. #cycle.members .. " functions)")
    local members = {}
    for _, fn in ipairs(cycle.members) do
      local costs = {}
      for _, ev in ipairs(o.show) do costs[ev] = fn:self(ev) end
      members[#members + 1] = { costs = costs, key = fn.name, fn = fn }
    end
    table.sort(members, by_cost(o.show))
    for _, m in ipairs(members) do
      block:add(m.costs, "    " .. format.location(m.fn.file, m.fn.name, m.fn.object) .. " (self)")
    end
  end
  lines[#lines + 1] = block:render("cycle / members")
  return table.concat(lines, "\n") .. "\n"
end

--- The biggest regressions and improvements between two runs of a program: for self and for
--- inclusive cost, the functions whose cost grew most and shrank most, with both runs' costs.
-- opts.event (default the first of `new`), opts.limit (rows per list, default 15). One row per
-- function (name, file and object), inlined code counting for its function.
-- The cost of `kind` ("self" or "inclusive") of event `ev` of the function of `prof` with the
-- name, file and object of `fn` (0 when it has none, or the profile lacks the event).
local function cost_in(prof, fn, kind, ev)
  local match = prof:has_event(ev) and prof:find(fn.name, fn.file, fn.object)
  if not match then return 0 end
  return kind == "self" and match:self(ev) or match:inclusive(ev)
end

-- The functions of the difference profile `diff` whose change of `kind` is the largest rise
-- (direction "regressions") or fall ("improvements"), `limit` of them, biggest change first,
-- ties by name. Ranked in C (falls by increasing change); only the functions shown come to Lua.
local function biggest_changes(diff, ev, kind, direction, limit)
  local falls = direction == "improvements"
  local list = {}
  for _, fn in ipairs(core.rank(diff, ev, kind == "inclusive", limit, falls)) do
    local change = kind == "self" and fn:self(ev) or fn:inclusive(ev)
    if (falls and change >= 0) or (not falls and change <= 0) then break end
    list[#list + 1] = fn
  end
  return list
end

function report.diff(base, new, opts)
  opts = opts or {}
  local ev = query.event(new, opts.event)
  local limit = opts.limit or 15
  -- the functions' self and inclusive costs are all a comparison reads: summed without the
  -- line records (core.combine's lines = false), which are most of a full difference's work
  local diff = assert(core.combine({ new, base }, { 1, -1 }, { lines = false }))
  local base_total = base:has_event(ev) and base:total(ev) or 0
  local new_total = new:total(ev)
  local lines = { format.rule, "Profile difference: " .. ev, format.rule }
  lines[#lines + 1] = ("Total: %s -> %s (%s%s)"):format(format.thousands(base_total), format.thousands(new_total),
    new_total >= base_total and "+" or "", format.thousands(new_total - base_total))
  lines[#lines + 1] = ""
  for _, kind in ipairs { "self", "inclusive" } do
    for _, direction in ipairs { "regressions", "improvements" } do
      lines[#lines + 1] = ("Biggest %s by %s cost"):format(direction, kind)
      local rows = { { "change", "%", "before", "after", "function" } }
      for _, fn in ipairs(biggest_changes(diff, ev, kind, direction, limit)) do
        local before, after = cost_in(base, fn, kind, ev), cost_in(new, fn, kind, ev)
        local change = kind == "self" and fn:self(ev) or fn:inclusive(ev)
        local pct = before ~= 0 and string.format("%+.1f%%", 100 * change / before) or "new"
        rows[#rows + 1] = { (change > 0 and "+" or "") .. format.thousands(change), pct,
          format.thousands(before), format.thousands(after), format.location(fn.file, fn.name, fn.object) }
      end
      if #rows == 1 then
        lines[#lines + 1] = "  (none)"
      else
        lines[#lines + 1] = format.table(rows, { true, true, true, true })
      end
      lines[#lines + 1] = ""
    end
  end
  return table.concat(lines, "\n")
end

function report.annotate(prof, opts)
  return require("callgrind.annotate").source(prof, opts)
end

function report.dot(prof, opts)
  return require("callgrind.dot").graph(prof, opts)
end

return report
