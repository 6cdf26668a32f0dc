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
-- up to the function's inclusive cost when nobody calls it.
local rows = {}

local function zeros(events)
  local t = {}
  for _, ev in ipairs(events) do t[ev] = 0 end
  return t
end

local function add(into, events, cost_of)
  for _, ev in ipairs(events) do into[ev] = into[ev] + cost_of(ev) end
end

--- Is `fn` called by another function with a positive count (and so costs what its callers
--- spent in it)?
function rows.is_called(fn)
  if fn.cycle then return false end
  for call in fn:callers() do
    if call.count > 0 and call.caller ~= fn then return true end
  end
  return false
end

local function leaves(fn, call)
  local callee = call.callee
  return callee ~= fn and not (fn.cycle and callee.cycle == fn.cycle)
end

local function row_for(index, list, file, name, object, events)
  local key = file .. "\0" .. name .. "\0" .. object
  local row = index[key]
  if not row then
    row = {
      key = (file ~= "" and file or "???") .. ":" .. name,
      file = file, name = name, object = object, functions = {},
      self = zeros(events), inclusive = zeros(events), called = 0, primary = false,
    }
    index[key] = row
    list[#list + 1] = row
  end
  return row
end

local function merged_rows(prof, events)
  local list = {}
  for fn in prof:functions() do
    local row = {
      key = (fn.file ~= "" and fn.file or "???") .. ":" .. fn.name,
      file = fn.file, name = fn.name, object = fn.object, functions = { fn },
      self = {}, inclusive = {}, called = fn.called, primary = true, merged = true,
    }
    for _, ev in ipairs(events) do
      row.self[ev] = fn:self(ev)
      row.inclusive[ev] = fn:inclusive(ev)
    end
    list[#list + 1] = row
  end
  return list
end

local function split_rows(prof, events)
  local index, list = {}, {}
  for fn in prof:functions() do
    local files, order = {}, {}
    local function file_entry(file)
      local e = files[file]
      if not e then
        e = { self = zeros(events), calls = {} }
        files[file] = e
        order[#order + 1] = file
      end
      return e
    end
    file_entry(fn.file)
    for line in fn:lines() do
      add(file_entry(line.file).self, events, function(ev) return line:cost(ev) end)
    end
    for call in fn:callees() do
      local calls = file_entry(call.file).calls
      calls[#calls + 1] = call
    end
    local called = rows.is_called(fn)
    for _, file in ipairs(order) do
      local e = files[file]
      local row = row_for(index, list, file, fn.name, fn.object, events)
      row.functions[#row.functions + 1] = fn
      add(row.self, events, function(ev) return e.self[ev] end)
      if file == fn.file then
        row.primary = true
        row.called = row.called + fn.called
      end
      if file == fn.file and called then
        add(row.inclusive, events, function(ev) return fn:inclusive(ev) end)
      else
        add(row.inclusive, events, function(ev) return e.self[ev] end)
        for _, call in ipairs(e.calls) do
          if leaves(fn, call) then add(row.inclusive, events, function(ev) return call:inclusive(ev) end) end
        end
      end
    end
  end
  return list
end

--- The rows of a profile for `events` (a list of event names).
-- opts.inlined: "split" (default, callgrind_annotate's rows) or "merge" (one per function).
function rows.build(prof, events, opts)
  local inlined = opts and opts.inlined or "split"
  if inlined == "merge" then return merged_rows(prof, events) end
  if inlined ~= "split" then error("inlined must be 'split' or 'merge'", 3) end
  return split_rows(prof, events)
end

local function group_calls(entries, events, keyof, fields)
  local index, list = {}, {}
  for _, e in ipairs(entries) do
    local key = keyof(e)
    local g = index[key]
    if not g then
      g = fields(e)
      g.count, g.costs = 0, zeros(events)
      index[key] = g
      list[#list + 1] = g
    end
    g.count = g.count + e.count
    add(g.costs, events, function(ev) return e:inclusive(ev) end)
  end
  return list
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
      key = (file ~= "" and file or "???") .. ":" .. caller.name }
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
      key = (callee.file ~= "" and callee.file or "???") .. ":" .. callee.name }
  end)
end

return rows
