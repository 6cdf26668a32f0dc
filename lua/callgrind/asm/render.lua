-- callgrind.asm.render: the printed form of a function's machine code with its costs, laid out
-- like the annotated source: one column per event (count, then share of the profile's total),
-- a mark for hot instructions, the address, the bytes, the instruction and its source line;
-- under an instruction, the calls made from it (with their inclusive costs) and the jumps that
-- leave or reach it.
local format = require "callgrind.format"

local render = {}

local function hex(n)
  return string.format("%x", n)
end

local function count_text(n)
  return format.thousands(n) .. "x"
end

local function jump_counts(jump)
  if jump.conditional then
    return format.thousands(jump.taken) .. " of " .. format.thousands(jump.executed) .. " taken"
  end
  return count_text(jump.executed)
end

local function jump_out_text(jump, fn)
  local kind = jump.conditional and "jcnd" or "jump"
  if jump.to_function ~= fn then
    local where = jump.to and (" at " .. hex(jump.to)) or ""
    return kind .. " -> " .. jump.to_function.name .. where .. ": " .. jump_counts(jump)
  end
  return kind .. " -> " .. (jump.to and hex(jump.to) or "?") .. ": " .. jump_counts(jump)
end

local function jump_in_text(jump)
  local kind = jump.conditional and "jcnd" or "jump"
  if jump.from_function then
    return kind .. " <- " .. jump.from_function.name .. " at " .. hex(jump.from) .. ": " .. jump_counts(jump)
  end
  return kind .. " <- " .. hex(jump.from) .. ": " .. jump_counts(jump)
end

local function call_text(call)
  return "=> " .. format.location(call.callee.file or "", call.callee.name) .. " (" .. count_text(call.count) .. ")"
end

-- The source position shown beside an instruction: the line alone in the function's own file.
local function source_text(row, fn_file)
  if not row.line then return "" end
  if row.file == nil or row.file == fn_file then return tostring(row.line) end
  return row.file .. ":" .. row.line
end

---------------------------------------------------------------------------
-- Which rows to show
---------------------------------------------------------------------------

--- The indexes of the rows shown: all of them when `context` is nil, else the hot rows and
--- `context` rows on either side of each.
function render.shown(rows, context)
  local shown = {}
  if context == nil then
    for i = 1, #rows do shown[i] = true end
    return shown
  end
  for i, row in ipairs(rows) do
    if row.hot then
      for j = math.max(1, i - context), math.min(#rows, i + context) do shown[j] = true end
    end
  end
  return shown
end

---------------------------------------------------------------------------
-- Columns
---------------------------------------------------------------------------

-- Collects rows, then lays them out: per event one cell holding the count ("." for zero) and,
-- with percentages, its share of the profile's total, counts right-aligned and shares aligned
-- after them, as the annotated source does; then the mark, address, bytes, instruction and
-- source. Rows without costs (jumps, the heading) leave the cost cells empty; whole-width rows
-- (gaps) are put in place after alignment.
local function new_table(events, totals, percentages)
  local t = { rows = {} }

  function t.costs(costs, rest)
    t.rows[#t.rows + 1] = { costs = costs, rest = rest }
  end

  function t.heading(rest)
    t.rows[#t.rows + 1] = { heading = true, rest = rest }
  end

  function t.line(text)
    t.rows[#t.rows + 1] = { whole = text }
  end

  local function texts(row)
    local counts, shares = {}, {}
    for _, ev in ipairs(events) do
      local n = row.costs[ev] or 0
      counts[ev] = n ~= 0 and format.thousands(n) or "."
      shares[ev] = (percentages and n ~= 0) and format.percent(n, totals[ev]) or ""
    end
    return counts, shares
  end

  function t.render()
    local count_width, share_width = {}, {}
    for _, ev in ipairs(events) do count_width[ev], share_width[ev] = #ev, 0 end
    for _, row in ipairs(t.rows) do
      if row.costs then
        row.counts, row.shares = texts(row)
        for _, ev in ipairs(events) do
          count_width[ev] = math.max(count_width[ev], #row.counts[ev])
          share_width[ev] = math.max(share_width[ev], #row.shares[ev])
        end
      end
    end
    local cells, right = {}, {}
    for i = 1, #events do right[i] = true end
    right[#events + 2] = true -- addresses
    for r, row in ipairs(t.rows) do
      local cell_row = {}
      for i, ev in ipairs(events) do
        local cell = row.heading and ev or ""
        if row.costs then
          local share = row.shares[ev]
          cell = row.counts[ev]
          if share_width[ev] > 0 then cell = cell .. " " .. share .. string.rep(" ", share_width[ev] - #share) end
        elseif share_width[ev] > 0 then
          cell = cell .. string.rep(" ", share_width[ev] + 1)
        end
        cell_row[i] = cell
      end
      for i, cell in ipairs(row.rest or {}) do cell_row[#events + i] = cell end
      cells[r] = cell_row
    end
    local out, r = {}, 0
    for line in (format.table(cells, right) .. "\n"):gmatch("([^\n]*)\n") do
      r = r + 1
      out[r] = t.rows[r].whole or line:gsub("%s+$", "")
    end
    return table.concat(out, "\n")
  end

  return t
end

local function add_row(t, row, fn)
  t.costs(row.costs, { row.hot and "*" or "", hex(row.addr), row.bytes, row.text, source_text(row, fn.file) })
  for _, call in ipairs(row.calls) do t.costs(call.inclusive, { "", "", "", "  " .. call_text(call) }) end
  for _, jump in ipairs(row.jumps_out) do t.costs(nil, { "", "", "", "  " .. jump_out_text(jump, fn) }) end
  for _, jump in ipairs(row.jumps_in) do t.costs(nil, { "", "", "", "  " .. jump_in_text(jump) }) end
end

local function gap_text(rows, first, last)
  local n = last - first + 1
  return string.format("-- %d instruction%s not shown, %s-%s ", n, n == 1 and "" or "s",
    hex(rows[first].addr), hex(rows[last].addr)) .. string.rep("-", 30)
end

-- Between two stretches of the function's code lies code that is not its own.
local function apart_text(from, to)
  return string.format("-- %s-%s: not this function's code ", hex(from), hex(to - 1)) .. string.rep("-", 30)
end

local function header(rows, info, lines)
  local fn = info.fn
  local symbol = info.symbol
  lines[#lines + 1] = format.rule
  lines[#lines + 1] = "-- Machine code: " .. fn.name
  lines[#lines + 1] = format.rule
  lines[#lines + 1] = "Function:     " .. format.location(fn.file, fn.name)
  lines[#lines + 1] = "Object:       " .. info.path
  if info.debug_file then lines[#lines + 1] = "Debug file:   " .. info.debug_file end
  if symbol then
    lines[#lines + 1] = string.format("Symbol:       %s at 0x%s, %s", symbol.name, hex(symbol.addr),
      symbol.size > 0 and format.thousands(symbol.size) .. " bytes" or "size unknown")
  end
  if info.offset ~= 0 then
    lines[#lines + 1] = "Addresses:    the profile's minus a load offset of 0x" .. hex(info.offset)
  else
    lines[#lines + 1] = "Addresses:    as the profile writes them"
  end
  lines[#lines + 1] = "Events shown: " .. table.concat(info.events, " ")
  local any_hot = false
  for _, row in ipairs(rows) do any_hot = any_hot or row.hot end
  lines[#lines + 1] = string.format("Hot (*):      %s %s%% of the function's self %s",
    any_hot and "at least" or "none: no instruction has", tostring(info.hot), info.events[1])
  for _, note in ipairs(info.notes) do lines[#lines + 1] = "Note:         " .. note end
  lines[#lines + 1] = ""
end

--- The printed form of asm.instructions' result. opts: context (nil: every instruction),
--- percentages (default true).
function render.text(rows, info, opts)
  local fn, events = info.fn, info.events
  local lines = {}
  header(rows, info, lines)
  local t = new_table(events, info.totals, opts.percentages ~= false)
  t.heading({ "", "addr", "bytes", "instruction", "line" })

  local shown = render.shown(rows, opts.context)
  local gap_start
  for i, row in ipairs(rows) do
    local previous = rows[i - 1]
    local apart = previous and previous.addr + previous.size ~= row.addr
    if gap_start and (shown[i] or apart) then
      t.line(gap_text(rows, gap_start, i - 1))
      gap_start = nil
    end
    if apart then t.line(apart_text(previous.addr + previous.size, row.addr)) end
    if shown[i] then
      add_row(t, row, fn)
    elseif not gap_start then
      gap_start = i
    end
  end
  if gap_start then t.line(gap_text(rows, gap_start, #rows)) end
  t.line("")
  t.costs(info.self, { "", "", "", "self cost of " .. fn.name })
  lines[#lines + 1] = t.render()
  return table.concat(lines, "\n") .. "\n"
end

return render
