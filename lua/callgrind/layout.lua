-- callgrind.layout: callgrind_annotate's cost columns, for the blocks of lines the Lua layer
-- writes (program totals, annotated source, cycles). The columns themselves (widths, counts
-- with separators, percentages) are the core's (core.columns), which also lays out the
-- function listing (core.listing), so that every report has one layout.
--
--   local block = layout.block({ "Ir", "Dr" }, { Ir = 820, Dr = 82 }, true)
--   block:add({ Ir = 700, Dr = 70 }, "file2.c:func2")
--   io.write(block:render("file:function"), "\n")
local core = require "callgrind.core"
local format = require "callgrind.format"

local layout = { rule = format.rule }

local Block = {}
Block.__index = Block

--- A block with one column per event of `events`; `totals` ({ev = n}) are what percentages
--- are of; `percentages` (default true) adds them.
function layout.block(events, totals, percentages)
  local list = {}
  for i, ev in ipairs(events) do list[i] = totals[ev] or 0 end
  return setmetatable({ events = events, columns = core.columns(events, list, percentages ~= false),
    lines = {} }, Block)
end

local function values_of(events, costs)
  local values = {}
  for i, ev in ipairs(events) do values[i] = costs[ev] or 0 end
  return values
end

--- Widens the columns for a row of costs ({ev = n}) that is not printed.
function Block:fit(costs)
  self.columns:fit(costs)
end

--- A line of costs ({ev = n}; nil: "." in every column) followed by `text`; zero_dot: zero
--- counts as "." (annotated source); overflow: the columns are not widened for it, a wider
--- count pushes the rest of its line (callgrind_annotate's call lines).
function Block:add(costs, text, zero_dot, overflow)
  local lines = self.lines
  if self.dots then -- fixed: laid out now (the core reads the costs by event name)
    local cells = costs and self.columns:cells(costs, zero_dot) or self.dots
    lines[#lines + 1] = cells .. " " .. text
    return
  end
  local values
  if costs then
    values = values_of(self.events, costs)
    if not overflow then self.columns:fit(values) end
  end
  lines[#lines + 1] = { values = values, text = text, zero_dot = zero_dot }
end

--- Says that the columns are final (every row was fitted, lines to come overflow): the lines
--- added from now on are laid out at once.
function Block:fix()
  self.dots = self.columns:cells(nil)
end

--- A line of its own, outside the columns.
function Block:line(text)
  self.lines[#self.lines + 1] = text
end

function Block:blank()
  self.lines[#self.lines + 1] = ""
end

--- The cells of one row of costs as the block lays them out now.
function Block:cells(costs, zero_dot)
  return self.columns:cells(costs and values_of(self.events, costs), zero_dot)
end

--- The event names, each padded to its column.
function Block:heading()
  return self.columns:heading()
end

--- The block's text (no final newline). heading: a string puts the rule, the event names and
--- the string, and the rule first (true: the names alone); nil: no heading.
function Block:render(heading)
  local out = {}
  if heading then
    out[1] = format.rule
    out[2] = self.columns:heading() .. (heading == true and "" or " " .. heading)
    out[3] = format.rule
  end
  local columns = self.columns
  for _, line in ipairs(self.lines) do
    if type(line) == "string" then
      out[#out + 1] = line
    else
      out[#out + 1] = columns:cells(line.values, line.zero_dot) .. " " .. line.text
    end
  end
  return table.concat(out, "\n")
end

return layout
