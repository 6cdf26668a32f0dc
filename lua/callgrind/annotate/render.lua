-- callgrind.annotate.render: annotated source laid out as callgrind_annotate 3.19 lays it out:
-- the ranges of lines around costed lines, their calls, lines past the end of the file, code
-- without line information, and the total of what was annotated.
local format = require "callgrind.format"
local layout = require "callgrind.layout"
local costs = require "callgrind.annotate.costs"

local render = {}

local function separator(n)
  return "-- line " .. n .. " " .. string.rep("-", 40)
end

-- Merges call entries whose callees print alike (callgrind_annotate's "file:function" key,
-- which does not name the object).
local function call_rows(calls, events)
  local by_label, list = {}, {}
  for _, call in ipairs(calls) do
    local label = costs.callee_label(call)
    local row = by_label[label]
    if not row then
      row = { label = label, count = 0, inclusive = costs.zeros(events) }
      by_label[label] = row
      list[#list + 1] = row
    end
    row.count = row.count + call.count
    for _, ev in ipairs(events) do row.inclusive[ev] = row.inclusive[ev] + call.inclusive[ev] end
  end
  table.sort(list, costs.call_order(events, function(row) return row.label end))
  return list
end

local function add_calls(block, entry, events)
  if not entry or #entry.calls == 0 then return end
  for _, row in ipairs(call_rows(entry.calls, events)) do
    block:add(row.inclusive, "=> " .. row.label .. " (" .. format.thousands(row.count) .. "x)", true, true)
  end
end

-- The line numbers with line records, in order (line 0 left out), as callgrind_annotate's
-- line_nums.
local function costed_lines(lines)
  local numbers = {}
  for n, entry in pairs(lines) do
    if n > 0 and entry.self then numbers[#numbers + 1] = n end
  end
  table.sort(numbers)
  return numbers
end

-- Ranges of lines within `context` of a costed line: {low, high, low, high, ...}; a range is
-- joined with the next when no more than 2 * context lines lie between their costed lines.
local function ranges_of(numbers, context)
  local pairs_ = {}
  local i = 1
  while i <= #numbers do
    pairs_[#pairs_ + 1] = numbers[i] - context
    while i < #numbers and numbers[i] + 2 * context >= numbers[i + 1] do i = i + 1 end
    pairs_[#pairs_ + 1] = numbers[i] + context
    i = i + 1
  end
  if pairs_[1] and pairs_[1] < 1 then pairs_[1] = 1 end
  return pairs_
end

local function add_costs(into, self, events)
  for _, ev in ipairs(events) do into[ev] = into[ev] + self[ev] end
end

-- The warning callgrind_annotate prints after lines past the end of a file.
local function past_end_warning(block, name)
  local cause = name:find("%.h$") and {
    "@@ cause:    bug in the Valgrind's debug info reader that screws up with .h",
    "@@           files sometimes",
    "@@ solution: none, sorry",
  } or { "@@ cause:    not sure, sorry" }
  local at = string.rep("@", 79)
  block:line(at)
  block:line("@@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@ WARNING @@")
  block:line(at)
  block:line("@@")
  block:line("@@ Information recorded about lines past the end of '" .. name .. "'.")
  block:line("@@")
  block:line("@@ Probable cause and solution:")
  for _, line in ipairs(cause) do block:line(line) end
  block:line("@@")
  block:line(at)
end

-- The ranges of a file: source lines with their costs ("." where none) and calls, and
-- "-- line N" separators where a range starts after line 1 and where it ends before the end of
-- the file, as callgrind_annotate reads the file: a range that runs past the end ends the
-- annotation. Returns the costed lines not reached (past the end).
local function add_ranges(block, text, lines, numbers, settings, annotated)
  local events, last = settings.events, #text
  local bounds = ranges_of(numbers, settings.context)
  local pos, next_costed = 0, 1
  for r = 1, #bounds, 2 do
    local low, high = bounds[r], bounds[r + 1]
    while pos < low - 1 and pos < last do pos = pos + 1 end
    if low ~= 1 then block:line(separator(low)) end
    local read = false
    while pos < high do
      read = pos < last
      if not read then break end
      pos = pos + 1
      local entry = lines[pos]
      if numbers[next_costed] == pos then
        block:add(entry.self, text[pos], true)
        add_costs(annotated, entry.self, events)
        next_costed = next_costed + 1
      else
        block:add(nil, text[pos])
      end
      add_calls(block, entry, events)
    end
    if not read then break end
    block:line(separator(high))
  end
  local beyond = {}
  for k = next_costed, #numbers do beyond[#beyond + 1] = numbers[k] end
  return beyond
end

--- The annotated text of one file after its title: the heading, the ranges, lines past the
--- end, unidentified lines. `text` is the list of the file's lines, `lines` the costs as
--- costs.gather gives them; `annotated` ({ev = n}) adds the costs printed next to source lines.
function render.file(name, text, lines, settings, annotated)
  local events = settings.events
  local block = layout.block(events, settings.totals, settings.percentages)
  for _, entry in pairs(lines) do
    if entry.self then block:fit(entry.self) end
  end
  block:fix() -- callgrind_annotate sizes the columns by the line costs alone
  local numbers = costed_lines(lines)
  local beyond = add_ranges(block, text, lines, numbers, settings, annotated)
  if #beyond > 0 then
    for _, n in ipairs(beyond) do block:add(lines[n].self, "<bogus line " .. n .. ">", true) end
    block:blank()
    past_end_warning(block, name)
  end
  block:blank()
  local unknown = lines[0]
  if unknown and unknown.self then
    block:add(unknown.self, "<counts for unidentified lines in " .. name .. ">", true)
    block:blank()
  end
  return block:heading() .. "\n\n" .. block:render()
end

--- The list of files that could not be found.
function render.missing(out, missing, user)
  table.sort(missing)
  out[#out + 1] = format.rule
  out[#out + 1] = user and "The following files chosen for annotation could not be found:"
    or "The following files chosen for auto-annotation could not be found:"
  out[#out + 1] = format.rule
  for _, file in ipairs(missing) do out[#out + 1] = "  " .. file end
  out[#out + 1] = ""
end

--- The costs printed next to source lines, as shares of the profile's total (of what was
--- annotated where the total is zero or smaller: profiles whose costs do not add up).
function render.annotated(out, annotated, settings)
  local shares = {}
  for _, ev in ipairs(settings.events) do
    local total = settings.totals[ev]
    if total == 0 or annotated[ev] > total then total = annotated[ev] end
    shares[ev] = total
  end
  local block = layout.block(settings.events, shares, settings.percentages)
  block:add(annotated, "events annotated", true)
  out[#out + 1] = block:render(true)
  out[#out + 1] = ""
end

return render
