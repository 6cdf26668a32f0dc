-- callgrind.annotate: source files printed with their costs line by line, the way
-- callgrind_annotate prints them with --auto=yes or for files named on its command line.
--
--   local annotate = require "callgrind.annotate"
--   io.write(annotate.source(prof, { include = { "src" }, context = 4 }))
--   local lines = annotate.file_costs(prof, "/home/me/prog/main.c", { "Ir" })
--
-- Built on the public userdata API only: line records give the self cost of each source
-- line (summed over every function with code there, inlined code under its header's name),
-- calls give the inclusive cost of each call site.
local format = require "callgrind.format"
local names = require "callgrind.names"
local query = require "callgrind.query"

local annotate = {}

local DEFAULT_CONTEXT = 8
local DEFAULT_THRESHOLD = 99

---------------------------------------------------------------------------
-- Events
---------------------------------------------------------------------------

-- Event names for a list of names or indexes (nil: every raw event, in file order).
-- Unknown events raise the profile's own error.
local function event_names(prof, list)
  return query.events(prof, list, nil, 3)
end

local function zero_costs(events)
  local costs = {}
  for _, ev in ipairs(events) do
    costs[ev] = 0
  end
  return costs
end

---------------------------------------------------------------------------
-- Gathering costs by file and line
---------------------------------------------------------------------------

-- A call whose caller can be reached again from its callee: a self-call, or a call
-- between two members of one cycle.
local is_recursive = query.is_recursive

-- Orders call entries (or merged rows) by their costs in `events`, highest first, then by
-- the callee's label; `label(entry)` gives that label.
local function call_order(events, label)
  return function(a, b)
    for _, ev in ipairs(events) do
      local x, y = a.inclusive[ev], b.inclusive[ev]
      if x ~= y then
        return x > y
      end
    end
    local la, lb = label(a), label(b)
    if la ~= lb then
      return la < lb
    end
    return a.count > b.count
  end
end

local function callee_label(entry)
  return format.location(entry.callee.file or "", entry.callee.name)
end

-- The calls of one source line, one entry per callee:
-- { {callee = fn, count = n, inclusive = {ev = cost}}, ... }, sorted by `order`.
-- Where a line holds both a call into a recursion and the recursive calls made from the
-- same line further down (callgrind's fact -> fact'2 and fact'2 -> fact'2), the recursive
-- ones are left out: their cost is already part of the call that entered the recursion.
local function line_calls(records, events, order)
  local plain = false
  for _, call in ipairs(records) do
    if not is_recursive(call) then
      plain = true
      break
    end
  end
  local groups = query.groups(events, "inclusive")
  for _, call in ipairs(records) do
    if not (plain and is_recursive(call)) then
      local entry, new = groups:add(call.callee, function(ev) return call:inclusive(ev) end, call.count)
      if new then entry.callee = call.callee end
    end
  end
  local list = groups.list
  if #list > 1 then
    table.sort(list, order)
  end
  return list
end

-- One pass over the profile.
--   wanted: set of file names to collect line data for (nil: every file)
--   events: events of the line data
--   sort:   when given, also sums the self cost of every (file, function) pair for these
--           events, for the file selection below
-- Returns files = { [file] = { [line] = { self = {ev = cost}, records = {call, ...} or nil } } },
-- and keys = { [label] = { label =, file =, costs = {cost per sort event} } }.
-- Line records can be millions: their self costs are summed by prof:line_costs, and the
-- per-function keys, when asked for, read events by index.
local function gather(prof, wanted, events, sort)
  local index = {}
  for i, ev in ipairs(events) do
    index[i] = prof:event_info(ev).index
  end
  local sort_index = {}
  for i, ev in ipairs(sort or {}) do
    sort_index[i] = prof:event_info(ev).index
  end
  local nsort = #sort_index

  local files, keys = {}, {}
  local function line_entry(file, n)
    local lines = files[file]
    if not lines then
      lines = {}
      files[file] = lines
    end
    local entry = lines[n]
    if not entry then
      entry = { self = zero_costs(events) }
      lines[n] = entry
    end
    return entry
  end

  -- self costs: summed per line by the C core, one pass per event
  local only
  for file in pairs(wanted or {}) do
    only = only == nil and file or false
  end
  for i, ev in ipairs(events) do
    for file, lines in pairs(prof:line_costs(index[i], only or nil)) do
      if not wanted or wanted[file] then
        for n, cost in pairs(lines) do
          local self = line_entry(file, n).self
          self[ev] = self[ev] + cost
        end
      end
    end
  end

  for fn in prof:functions() do
    if nsort > 0 then
      -- callgrind_annotate's key: the line's file (the header for inlined code) and the
      -- function's name, whatever the object
      local name = fn.name
      for record in fn:lines() do
        local file = record.file or ""
        local label = file .. ":" .. name
        local key = keys[label]
        if not key then
          key = { label = label, file = file, costs = {} }
          for i = 1, nsort do
            key.costs[i] = 0
          end
          keys[label] = key
        end
        local costs = key.costs
        for i = 1, nsort do
          costs[i] = costs[i] + record:cost(sort_index[i])
        end
      end
    end
    for call in fn:callees() do
      local file = call.file or ""
      if not wanted or wanted[file] then
        local entry = line_entry(file, call.line or 0)
        local records = entry.records
        if not records then
          records = {}
          entry.records = records
        end
        records[#records + 1] = call
      end
    end
  end
  return files, keys
end

-- Turns gathered lines into file_costs() entries: { self = {...}, calls = {...} }.
local function finish_lines(lines, events)
  local order = call_order(events, callee_label)
  local result = {}
  for n, entry in pairs(lines or {}) do
    local records = entry.records
    entry.records = nil
    entry.calls = records and line_calls(records, events, order) or {}
    result[n] = entry
  end
  return result
end

--- Self and call costs of one source file, by line number:
--- { [line] = { self = {ev = cost}, calls = { {callee = fn, count = n, inclusive = {ev = cost}}, ... } } }.
--- `file` is the name as the profile writes it (line.file, call.file); `events` a list of
--- events (default: every raw event). Line 0 holds costs of code without line information.
--- A line's self cost sums every function's records there; its calls are summed per callee,
--- highest cost first, recursive calls left out where the recursion is entered on the same line.
function annotate.file_costs(prof, file, events)
  if type(file) ~= "string" then
    error("bad argument #2 to 'file_costs' (string expected, got " .. type(file) .. ")", 2)
  end
  events = event_names(prof, events)
  local files = gather(prof, { [file] = true }, events, nil)
  return finish_lines(files[file], events)
end

--- file_costs() for every file of the profile at once, in one pass:
--- { [file] = { [line] = { self = {ev = cost}, calls = {...} } } }, keyed by the names the
--- profile writes (line.file, call.file; "" for records without a file).
function annotate.costs_by_file(prof, events)
  events = event_names(prof, events)
  local by_file = {}
  for file, lines in pairs((gather(prof, nil, events, nil))) do
    by_file[file] = finish_lines(lines, events)
  end
  return by_file
end

--- The per-line sums of one event for every file, in the shape an editor draws them:
--- self = { [file] = { [line] = self cost } } (prof:line_costs), and
--- calls = { [file] = { [line] = inclusive cost } } for the lines that make calls: the sum of
--- what file_costs lists for them, worked out without a table per line or per call.
function annotate.line_totals(prof, event)
  local info = prof:event_info(event)
  local index = info.index
  -- file_costs' rule (line_calls): a line's recursive calls count only when it makes no
  -- other call
  local plain, recursive = {}, {}
  for fn in prof:functions() do
    for call in fn:callees() do
      local sums = is_recursive(call) and recursive or plain
      local file, line = call.file or "", call.line or 0
      local lines = sums[file]
      if not lines then
        lines = {}
        sums[file] = lines
      end
      lines[line] = (lines[line] or 0) + call:inclusive(index)
    end
  end
  for file, lines in pairs(recursive) do
    local into = plain[file]
    if not into then
      into = {}
      plain[file] = into
    end
    for line, cost in pairs(lines) do
      if into[line] == nil then into[line] = cost end
    end
  end
  return prof:line_costs(index), plain
end

---------------------------------------------------------------------------
-- Choosing files
---------------------------------------------------------------------------

-- callgrind_annotate's rule: (file, function) pairs sorted by cost in the sort events,
-- taken until `threshold` percent of the first sort event's total is covered; every
-- file of a pair taken is chosen, except unknown files.
local function threshold_files(prof, keys, sort, threshold)
  local list = {}
  for _, key in pairs(keys) do
    list[#list + 1] = key
  end
  table.sort(list, function(a, b)
    for i = 1, #sort do
      if a.costs[i] ~= b.costs[i] then
        return a.costs[i] > b.costs[i]
      end
    end
    return a.label < b.label
  end)
  local total = prof:total(sort[1])
  local chosen, covered = {}, 0
  for _, key in ipairs(list) do
    if threshold < 100 then
      local share = covered * 100
      if total > 0 then
        share = share / total
      end
      if share >= threshold then
        break
      end
    end
    if not names.is_unknown(key.file) then
      chosen[key.file] = true
    end
    covered = covered + key.costs[1]
  end
  local names = {}
  for file in pairs(chosen) do
    names[#names + 1] = file
  end
  table.sort(names)
  return names
end

---------------------------------------------------------------------------
-- Finding source text
---------------------------------------------------------------------------

local function read_path(path)
  local fh = io.open(path, "rb")
  if not fh then
    return nil
  end
  local text = fh:read("*a")
  fh:close()
  return text
end

--- The text of a source file the profile names: the name as written (absolute, or relative to
--- the current directory), then each include directory in turn with the name appended, as
--- callgrind_annotate's -I does. `include` a list of directories (default none), `reader` a
--- function(path) -> text or nil (default: reads the file). Returns the text and the label
--- for the header, or nil.
function annotate.find_source(file, include, reader)
  include = include or {}
  reader = reader or read_path
  local text = reader(file)
  if text then
    return text, file
  end
  for _, dir in ipairs(include) do
    if dir ~= "" then
      local prefix = dir:sub(-1) == "/" and dir or dir .. "/"
      text = reader(prefix .. file)
      if text then
        return text, prefix .. " + " .. file
      end
    end
  end
  return nil
end

local function split_lines(text)
  local lines = {}
  for line in text:gmatch("([^\n]*)\n") do
    lines[#lines + 1] = line
  end
  local last = text:match("([^\n]+)$")
  if last then
    lines[#lines + 1] = last
  end
  for i, line in ipairs(lines) do
    lines[i] = line:gsub("\r$", "")
  end
  return lines
end

---------------------------------------------------------------------------
-- Writing
---------------------------------------------------------------------------

local function separator(n)
  return "-- line " .. n .. " " .. string.rep("-", 40)
end

-- Collects the rows of one aligned block and lays them out at the end: per event a cell
-- holding the count ("." for zero) and, with percentages, its share of the total, counts
-- right-aligned and shares aligned after them; then the text. Rows that are a whole line
-- of their own (separators, blank lines) are put in place after alignment.
local function new_block(events, totals, percentages)
  local block = {}
  local rows = {} -- { kind = "costs", costs =, text = } | { kind = "header" } | { kind = "line", text = }

  function block.costs(costs, text)
    rows[#rows + 1] = { kind = "costs", costs = costs, text = text }
  end

  function block.header()
    rows[#rows + 1] = { kind = "header" }
  end

  function block.line(text)
    rows[#rows + 1] = { kind = "line", text = text }
  end

  function block.render()
    -- the text of every count and share, and the widest of each per event
    local count_width, share_width = {}, {}
    for _, ev in ipairs(events) do
      count_width[ev], share_width[ev] = 1, 0
    end
    for _, row in ipairs(rows) do
      if row.kind == "costs" then
        row.counts, row.shares = {}, {}
        for _, ev in ipairs(events) do
          local n = row.costs[ev] or 0
          local count, share = ".", ""
          if n ~= 0 then
            count = format.thousands(n)
            if percentages then
              share = format.percent(n, totals[ev])
            end
          end
          row.counts[ev], row.shares[ev] = count, share
          count_width[ev] = math.max(count_width[ev], #count)
          share_width[ev] = math.max(share_width[ev], #share)
        end
      end
    end

    local cells, whole, right = {}, {}, {}
    for i = 1, #events do
      right[i] = true
    end
    for r, row in ipairs(rows) do
      local cell_row = {}
      if row.kind == "costs" then
        for i, ev in ipairs(events) do
          local count, share = row.counts[ev], row.shares[ev]
          local cell = string.rep(" ", count_width[ev] - #count) .. count
          if share_width[ev] > 0 then
            cell = cell .. " " .. share .. string.rep(" ", share_width[ev] - #share)
          end
          cell_row[i] = cell
        end
        cell_row[#events + 1] = row.text
      elseif row.kind == "header" then
        for i, ev in ipairs(events) do
          local width = count_width[ev] + (share_width[ev] > 0 and share_width[ev] + 1 or 0)
          cell_row[i] = ev .. string.rep(" ", width - #ev)
        end
        cell_row[#events + 1] = ""
      else
        cell_row[1] = ""
        whole[r] = row.text
      end
      cells[r] = cell_row
    end

    local out = {}
    local r = 0
    for line in (format.table(cells, right) .. "\n"):gmatch("([^\n]*)\n") do
      r = r + 1
      out[r] = whole[r] or line:gsub("%s+$", "")
    end
    return table.concat(out, "\n")
  end

  return block
end

-- Merges file_costs() call entries whose callees print alike (callgrind_annotate's
-- "file:function" key, which does not name the object).
local function call_rows(calls, events)
  local groups = query.groups(events, "inclusive")
  for _, call in ipairs(calls) do
    local label = callee_label(call)
    local row, new = groups:add(label, call.inclusive, call.count)
    if new then row.label = label end
  end
  local rows = groups.list
  table.sort(rows, call_order(events, function(row)
    return row.label
  end))
  return rows
end

local function has_cost(self, events)
  for _, ev in ipairs(events) do
    if self[ev] ~= 0 then
      return true
    end
  end
  return false
end

-- The annotated text of one file (without its header), adding the costs shown next to
-- source lines to `annotated`.
local function annotate_file(name, source, lines, settings, annotated)
  local events, context = settings.events, settings.context
  local block = new_block(events, settings.totals, settings.percentages)
  local text = split_lines(source)
  local last = #text

  local function add_calls(entry)
    for _, row in ipairs(call_rows(entry.calls, events)) do
      block.costs(row.inclusive, "=> " .. row.label .. " (" .. format.thousands(row.count) .. "x)")
    end
  end

  -- lines worth showing: a cost in a shown event, or a call
  local numbers = {}
  for n, entry in pairs(lines) do
    if n > 0 and (has_cost(entry.self, events) or #entry.calls > 0) then
      numbers[#numbers + 1] = n
    end
  end
  table.sort(numbers)

  block.header()
  block.line("")

  -- ranges of lines within `context` of a shown line, merged when no line lies between
  local ranges = {}
  local i = 1
  while i <= #numbers do
    local low = numbers[i] - context
    while i < #numbers and numbers[i] + 2 * context + 1 >= numbers[i + 1] do
      i = i + 1
    end
    ranges[#ranges + 1] = { low < 1 and 1 or low, numbers[i] + context }
    i = i + 1
  end

  local beyond = {}
  for _, n in ipairs(numbers) do
    if n > last then
      beyond[#beyond + 1] = n
    end
  end

  for _, range in ipairs(ranges) do
    local low, high = range[1], range[2]
    if low > last then
      break
    end
    if low ~= 1 then
      block.line(separator(low))
    end
    for n = low, math.min(high, last) do
      local entry = lines[n]
      if entry and (has_cost(entry.self, events) or #entry.calls > 0) then
        block.costs(entry.self, text[n])
        for _, ev in ipairs(events) do
          annotated[ev] = annotated[ev] + entry.self[ev]
        end
        add_calls(entry)
      else
        block.costs({}, text[n])
      end
    end
    if high < last then
      block.line(separator(high))
    end
  end

  if #beyond > 0 then
    block.line("")
    for _, n in ipairs(beyond) do
      block.costs(lines[n].self, "<bogus line " .. n .. ">")
      add_calls(lines[n])
    end
    block.line("")
    block.line("-- " .. #beyond .. " line" .. (#beyond == 1 and "" or "s") .. " past the end of "
      .. name .. ": the source may have changed since the profile was made")
  end

  local unknown = lines[0]
  if unknown and (has_cost(unknown.self, events) or #unknown.calls > 0) then
    block.line("")
    block.costs(unknown.self, "<counts for unidentified lines in " .. name .. ">")
    add_calls(unknown)
  end

  return block.render()
end

--- The annotated source text of the chosen files, as callgrind_annotate prints it.
--- opts:
---   files        list of file names as the profile writes them; when given, only these
---                (plus the automatic choice when `auto` is set explicitly)
---   auto         choose files by the threshold rule (default: true without `files`)
---   threshold    percent of the first sort event covered by the chosen functions (99)
---   sort         events ordering functions for that choice (default: all raw events)
---   show         events shown (default: all raw events)
---   context      lines shown around costed lines (8)
---   include      directories searched for the files, after the name as written
---   percentages  show each cost's share of the total (true)
---   read_file    function(path) -> text or nil (default: reads the file)
function annotate.source(prof, opts)
  opts = opts or {}
  local events = event_names(prof, opts.show)
  local sort = event_names(prof, opts.sort)
  local context = opts.context or DEFAULT_CONTEXT
  if type(context) ~= "number" or context < 0 then
    error("context must be a number >= 0", 2)
  end
  context = math.floor(context)
  local threshold = opts.threshold or DEFAULT_THRESHOLD
  local auto = opts.auto
  if auto == nil then
    auto = opts.files == nil
  end
  local reader = opts.read_file or read_path
  local include = opts.include or {}
  if type(include) == "string" then
    include = { include }
  end
  local named = opts.files
  if type(named) == "string" then
    named = { named }
  end

  -- the files to annotate: those named, then those the threshold chooses
  local order, user, wanted = {}, {}, {}
  for _, file in ipairs(named or {}) do
    if not wanted[file] then
      order[#order + 1] = file
      user[file] = true
      wanted[file] = true
    end
  end
  local files, keys = gather(prof, (not auto) and wanted or nil, events, auto and sort or nil)
  if auto then
    for _, file in ipairs(threshold_files(prof, keys, sort, threshold)) do
      if not wanted[file] then
        order[#order + 1] = file
        wanted[file] = true
      end
    end
  end

  local totals, annotated = {}, zero_costs(events)
  for _, ev in ipairs(events) do
    totals[ev] = prof:total(ev)
  end
  local settings = {
    events = events,
    totals = totals,
    context = context,
    percentages = opts.percentages ~= false,
  }

  local out, missing, missing_user = {}, {}, false
  local did_annotate = false
  for _, file in ipairs(order) do
    local source, label = annotate.find_source(file, include, reader)
    if not source then
      missing[#missing + 1] = file
      missing_user = missing_user or user[file] == true
    else
      out[#out + 1] = format.rule
      out[#out + 1] = "-- " .. (user[file] and "User" or "Auto") .. "-annotated source: " .. label
      out[#out + 1] = format.rule
      if not files[file] then
        out[#out + 1] = "  No information has been collected for " .. file
      else
        did_annotate = true
        out[#out + 1] = annotate_file(file, source, finish_lines(files[file], events), settings, annotated)
      end
      out[#out + 1] = ""
    end
  end

  if #missing > 0 then
    table.sort(missing)
    out[#out + 1] = format.rule
    out[#out + 1] = missing_user and "The following files chosen for annotation could not be found:"
      or "The following files chosen for auto-annotation could not be found:"
    out[#out + 1] = format.rule
    for _, file in ipairs(missing) do
      out[#out + 1] = "  " .. file
    end
    out[#out + 1] = ""
  end

  if did_annotate then
    -- shares of the profile's total; 100% where the total is zero or smaller than what
    -- was annotated (profiles whose costs do not add up)
    local shares = {}
    for _, ev in ipairs(events) do
      local total = totals[ev]
      if total == 0 or annotated[ev] > total then
        total = annotated[ev]
      end
      shares[ev] = total
    end
    local block = new_block(events, shares, settings.percentages)
    block.header()
    block.line(format.rule)
    block.costs(annotated, "events annotated")
    out[#out + 1] = format.rule
    out[#out + 1] = block.render()
    out[#out + 1] = ""
  end

  return table.concat(out, "\n")
end

--- A function's machine code with its costs (callgrind.asm.text): the instructions objdump
--- disassembles from the profile's object, each with its costs, source line, calls and jumps.
function annotate.asm(prof, fn, opts)
  return require("callgrind.asm").text(prof, fn, opts)
end

return annotate
