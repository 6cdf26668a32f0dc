-- callgrind.command.calls: what `callers` and `callees` share — a function's calls, one line
-- per call site, with counts and inclusive costs.
local format = require "callgrind.format"
local names = require "callgrind.names"
local query = require "callgrind.query"
local options = require "callgrind.command.options"

local calls = {}

--- The functions FN names: those called exactly FN, else those whose name matches FN as a Lua
--- pattern (sorted by name, file and object); ends the program when there is none.
function calls.matching_functions(ctx, prof, fn_name)
  local found = prof:find_all(fn_name)
  if #found > 0 then return found end
  local ok, err = pcall(string.find, "", fn_name)
  if not ok then
    ctx.cli:fail(("'%s' is no function name and no valid Lua pattern: %s"):format(fn_name,
      tostring(err):gsub("^.-:%d+: ", "")))
  end
  for fn in prof:functions() do
    if fn.name:find(fn_name) then found[#found + 1] = fn end
  end
  if #found == 0 then ctx.cli:fail(("no function is named or matches '%s'"):format(fn_name)) end
  table.sort(found, function(a, b)
    if a.name ~= b.name then return a.name < b.name end
    if a.file ~= b.file then return a.file < b.file end
    return a.object < b.object
  end)
  return found
end

local function where(file, line)
  file = names.file(file)
  return line and (file .. ":" .. line) or file
end

local is_recursive = query.is_recursive

local function heading(fn, event)
  local cycle = fn.cycle and (" " .. fn.cycle) or ""
  return ("%s%s (%s%s): self %s, inclusive %s %s, called %s time%s"):format(fn.name, cycle,
    names.file(fn.file), fn.object ~= "" and (", " .. fn.object) or "",
    format.thousands(fn:self(event)), format.thousands(fn:inclusive(event)), event, format.thousands(fn.called),
    fn.called == 1 and "" or "s")
end

-- One function's calls: `direction` is "callers" or "callees".
local function print_calls(ctx, prof, fn, direction, event, limit)
  local out = ctx.out
  local list = {}
  local iterate = direction == "callers" and fn.callers or fn.callees
  for call in iterate(fn) do list[#list + 1] = call end
  table.sort(list, function(a, b)
    local x, y = a:inclusive(event), b:inclusive(event)
    if x ~= y then return x > y end
    local p, q = direction == "callers" and a.caller or a.callee, direction == "callers" and b.caller or b.callee
    if p.name ~= q.name then return p.name < q.name end
    return (a.line or 0) < (b.line or 0)
  end)
  out:line(out:paint("bold", heading(fn, event)))
  if #list == 0 then
    out:line(direction == "callers" and "  no callers" or "  no callees")
    return
  end
  local total = prof:total(event)
  local rows = { { "count", "inclusive", "share", direction == "callers" and "caller" or "callee", "call site" } }
  for i, call in ipairs(list) do
    if limit and i > limit then break end
    local other = direction == "callers" and call.caller or call.callee
    local cost = call:inclusive(event)
    local name = other.name .. (is_recursive(call) and " (recursive)" or "")
    rows[#rows + 1] = { format.thousands(call.count), format.thousands(cost),
      total ~= 0 and string.format("%.2f%%", 100 * cost / total) or "n/a", name, where(call.file, call.line) }
  end
  for line in (format.table(rows, { true, true, true }) .. "\n"):gmatch("([^\n]*)\n") do out:line("  " .. line) end
end

--- The subcommand `direction` ("callers" or "callees").
function calls.command(direction)
  local sub = {}
  if direction == "callers" then
    sub.summary = "a function's callers, with counts and inclusive costs"
    sub.description = [[
Lists the calls made to FN: for each call site, how often it called FN and what FN cost there
(inclusive). FN is a function's name or, when no function has that name, a Lua pattern
('^str', 'alloc$'). A call within a recursion is marked: its cost is part of another one.]]
  else
    sub.summary = "a function's callees, with counts and inclusive costs"
    sub.description = [[
Lists the calls FN makes: for each call site, the function called, how often, and what it
cost there (inclusive). FN is a function's name or, when no function has that name, a Lua
pattern ('^str', 'alloc$'). A call within a recursion is marked: its cost is part of another
one.]]
  end

  function sub.define(cmd)
    options.event(cmd)
    cmd:option("-n --limit", "at most N calls per function [all]"):argname("N"):convert(options.count("--limit", 1))
    options.strict(cmd)
    cmd:argument("FN", "a function name or a Lua pattern")
    options.profiles(cmd)
  end

  function sub.run(args, ctx)
    local prof = ctx.cli:load(args.FILE, options.load_options(args))
    local event = ctx.cli:event(prof, args.event)
    for i, fn in ipairs(calls.matching_functions(ctx, prof, args.FN)) do
      if i > 1 then ctx.out:line() end
      print_calls(ctx, prof, fn, direction, event, args.limit)
    end
  end

  return sub
end

return calls
