-- callgrind.nvim.functions: where functions lie in their source files — the first line of a
-- function, and the function under a cursor — from the line records of the profile.
local functions = {}

--- The lowest line of a function's records in its own file (fn.file), or nil.
function functions.first_line(fn)
  local own, first = fn.file or "", nil
  for record in fn:lines() do
    local n = record.line
    if (record.file or "") == own and n and n > 0 and (not first or n < first) then
      first = n
    end
  end
  return first
end

--- Line ranges of every function in every file it has records in, in one pass:
--- { [file] = { {fn =, low =, high =}, ... } }. Inlined code gives the function a range in
--- the header too.
function functions.spans(prof)
  local spans = {}
  for fn in prof:functions() do
    local ranges = {}
    for record in fn:lines() do
      local n = record.line
      if n and n > 0 then
        local file = record.file or ""
        local range = ranges[file]
        if not range then
          ranges[file] = { fn = fn, low = n, high = n }
        elseif n < range.low then
          range.low = n
        elseif n > range.high then
          range.high = n
        end
      end
    end
    for file, range in pairs(ranges) do
      spans[file] = spans[file] or {}
      table.insert(spans[file], range)
    end
  end
  return spans
end

--- The function whose range in one of `files` holds `line`: the narrowest such range, then
--- the highest self cost in `event`, then the first name. nil when none does.
function functions.at(spans, files, line, event)
  local best, best_width, best_cost
  for _, file in ipairs(files) do
    for _, range in ipairs(spans[file] or {}) do
      if range.low <= line and line <= range.high then
        local width, cost = range.high - range.low, range.fn:self(event)
        local better = not best or width < best_width
          or (width == best_width and (cost > best_cost or (cost == best_cost and range.fn.name < best.name)))
        if better then
          best, best_width, best_cost = range.fn, width, cost
        end
      end
    end
  end
  return best
end

return functions
