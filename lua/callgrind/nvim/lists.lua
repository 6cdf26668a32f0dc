-- callgrind.nvim.lists: quickfix entries for the hottest functions, and for the callers and
-- callees of one function.
--
-- Each list takes a context: { prof =, event =, format =, total =, resolver = } and returns
-- its title and its items ({filename =, lnum =, text =}; text only for unknown files).
local format = require "callgrind.format"
local names = require "callgrind.names"
local functions = require "callgrind.nvim.functions"
local marks = require "callgrind.nvim.marks"
local resolve = require "callgrind.nvim.resolve"

local lists = {}

-- A quickfix item at a profile file name's source, or without a place for unknown files.
local function at(ctx, file, line)
  local item = {}
  if not resolve.is_unknown(file or "") then
    item.filename = ctx.resolver:locate(file) or file
    if line and line > 0 then item.lnum = line end
  end
  return item
end

local function cost(ctx, value)
  return marks.cost_text(value, ctx.total, ctx.format)
end

local function calls_text(count)
  count = format.integer(count)
  return format.thousands(count) .. (count == 1 and " call" or " calls")
end

local function pad_left(text, width)
  return string.rep(" ", width - vim.fn.strdisplaywidth(text)) .. text
end

--- The `limit` functions with the highest self cost, highest first:
--- "<self> self  <inclusive> incl  <name>", at the function's first line in its own file.
function lists.top(ctx, limit)
  local rows, self_width, incl_width = {}, 0, 0
  for i, fn in ipairs(ctx.prof:top { event = ctx.event, limit = limit }) do
    local row = { fn = fn, self = cost(ctx, fn:self(ctx.event)), incl = cost(ctx, fn:inclusive(ctx.event)) }
    self_width = math.max(self_width, #row.self)
    incl_width = math.max(incl_width, #row.incl)
    rows[i] = row
  end
  local items = {}
  for i, row in ipairs(rows) do
    local fn = row.fn
    local item = at(ctx, fn.file, functions.first_line(fn))
    item.text = pad_left(row.self, self_width) .. " self  " .. pad_left(row.incl, incl_width) .. " incl  " .. fn.name
    items[i] = item
  end
  local title = ("callgrind: top %d functions by self %s"):format(#items, ctx.event)
  return title, items
end

-- The calls, by decreasing inclusive cost in the context's event, then by name and line.
local function sorted_calls(ctx, iterator, name_of)
  local list = {}
  for call in iterator do
    list[#list + 1] = { call = call, cost = call:inclusive(ctx.event), name = name_of(call) }
  end
  table.sort(list, function(a, b)
    if a.cost ~= b.cost then return a.cost > b.cost end
    if a.name ~= b.name then return a.name < b.name end
    return (a.call.line or 0) < (b.call.line or 0)
  end)
  return list
end

--- The calls made to `fn`, at their call sites: "caller → fn  N calls  inclusive X".
function lists.callers(ctx, fn)
  local items = {}
  local calls = sorted_calls(ctx, fn:callers(), function(call) return call.caller.name end)
  for i, entry in ipairs(calls) do
    local call = entry.call
    local item = at(ctx, call.file, call.line)
    item.text = ("%s → %s  %s  inclusive %s"):format(call.caller.name, fn.name, calls_text(call.count),
      cost(ctx, entry.cost))
    items[i] = item
  end
  return ("callgrind: callers of %s (%s)"):format(fn.name, ctx.event), items
end

--- The calls `fn` makes, at each callee's first line:
--- "fn → callee  N calls  inclusive X  from FILE:LINE" (the call site).
function lists.callees(ctx, fn)
  local items = {}
  local calls = sorted_calls(ctx, fn:callees(), function(call) return call.callee.name end)
  for i, entry in ipairs(calls) do
    local call = entry.call
    local callee = call.callee
    local item = at(ctx, callee.file, functions.first_line(callee))
    item.text = ("%s → %s  %s  inclusive %s  from %s:%s"):format(fn.name, callee.name, calls_text(call.count),
      cost(ctx, entry.cost), resolve.basename(names.file(call.file)), format.integer(call.line or 0))
    items[i] = item
  end
  return ("callgrind: callees of %s (%s)"):format(fn.name, ctx.event), items
end

return lists
