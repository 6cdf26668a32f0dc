-- callgrind.format: how reports write numbers, percentages and aligned columns.
local names = require "callgrind.names"

local format = {}

local floor = math.floor

--- An integer with thousands separators: 1234567 -> "1,234,567", -1000 -> "-1,000". `n` may
--- also be a decimal string (as obj:exact gives), written exactly whatever its size.
function format.thousands(n)
  local s = type(n) == "string" and n or string.format("%d", n)
  if #s <= 3 then return s end -- most counts: nothing to separate
  local sign, digits = s:match("^(-?)(%d+)$")
  local out = digits:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  if out:sub(1, 1) == "," then out = out:sub(2) end
  return sign .. out
end

-- A share of 100 in callgrind_annotate's digits: two decimals, one from 99.995 on (where two
-- would round to 100.00); `padded`: five characters wide, in parentheses.
local function share_text(p, padded)
  local one = p >= 99.995 or p <= -99.995
  if padded then return string.format(one and "(%5.1f%%)" or "(%5.2f%%)", p) end
  return string.format(one and "%.1f%%" or "%.2f%%", p)
end

--- A share of a total as callgrind_annotate writes it: "(12.34%)", "( 0.04%)", "(100.0%)";
--- "(n/a)" when the total is 0.
function format.percent(n, total)
  if total == 0 then return "(n/a)" end
  return share_text(100 * n / total, true)
end

--- The same share without the padding and the parentheses: "12.34%", "0.04%", "100.0%", "n/a".
function format.share(n, total)
  if total == 0 then return "n/a" end
  return share_text(100 * n / total, false)
end

--- A cost cell: "1,234 (12.34%)" with percentages, "1,234" without; "." for zero, as
--- callgrind_annotate marks lines without cost.
function format.cost(n, total, with_percent, dot_for_zero)
  if n == 0 and dot_for_zero then return "." end
  if with_percent and n ~= 0 then return format.thousands(n) .. " " .. format.percent(n, total) end
  return format.thousands(n)
end

--- Pads every column of `rows` (lists of strings) to its widest cell; columns listed in
--- `right` are right-aligned. Returns the lines joined with "\n" (no final newline).
function format.table(rows, right)
  local widths = {}
  for _, row in ipairs(rows) do
    for i, cell in ipairs(row) do
      if not widths[i] or #cell > widths[i] then widths[i] = #cell end
    end
  end
  local lines = {}
  for r, row in ipairs(rows) do
    local cells = {}
    for i, cell in ipairs(row) do
      local pad = string.rep(" ", widths[i] - #cell)
      if i == #row and not (right and right[i]) then
        cells[i] = cell -- no trailing spaces on the last column
      elseif right and right[i] then
        cells[i] = pad .. cell
      else
        cells[i] = cell .. pad
      end
    end
    lines[r] = table.concat(cells, "  ")
  end
  return table.concat(lines, "\n")
end

--- "name (file) [object]"-style label of a function, the way callgrind_annotate writes
--- "file:name [object]".
function format.location(file, name, object)
  local label = names.file(file) .. ":" .. name
  if object and object ~= "" then label = label .. " [" .. object .. "]" end
  return label
end

--- Rounds toward zero for values that reach Lua as floats (Lua 5.1, LuaJIT).
function format.integer(n)
  if n >= 0 then return floor(n) end
  return -floor(-n)
end

format.rule = string.rep("-", 80)

return format
