-- callgrind.nvim.functions: where functions lie in their source files — the first line of a
-- function, and the function under a cursor — from the line records and calls of the profile.
local functions = {}

-- The line its callers enter a function at (callgrind writes the line of the callee's first
-- instruction on each calls= line): the one most calls name, of those in `own_lines`.
local function entry_line(fn, own_lines)
  local votes, best = {}, nil
  for call in fn:callers() do
    local n = call.target_line
    if n and own_lines[n] then
      votes[n] = (votes[n] or 0) + 1
      if not best or votes[n] > votes[best] or (votes[n] == votes[best] and n < best) then
        best = n
      end
    end
  end
  return best
end

--- Where a function starts in its own file (fn.file), or nil when it has no line there.
--- Its lowest line is not always it: code inlined from the same file (a static helper
--- defined above) gives the function lines of the helper. So the first of: the line its
--- callers enter it at, the line of its lowest address (instruction-level profiles), its
--- lowest line; always one of its lines in its own file.
function functions.first_line(fn)
  local own, own_lines, lowest, lowest_addr, addr_line = fn.file or "", {}, nil, nil, nil
  for record in fn:lines() do
    local n = record.line
    if (record.file or "") == own and n and n > 0 then
      own_lines[n] = true
      if not lowest or n < lowest then lowest = n end
      local addr = record.addr
      if addr and (not lowest_addr or addr < lowest_addr) then lowest_addr, addr_line = addr, n end
    end
  end
  if not lowest then return nil end
  return entry_line(fn, own_lines) or addr_line or lowest
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
        if better then best, best_width, best_cost = range.fn, width, cost end
      end
    end
  end
  return best
end

return functions
