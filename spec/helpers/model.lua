-- Everything a profile says, as plain tables, so that two profiles can be compared whole:
-- functions by identity (name, file, object) with self and inclusive costs per event, called
-- count, cycle membership, line records, calls and jumps (sorted, so that order does not count).
local model = {}

local function join(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  return table.concat(parts, "|")
end

-- A record's costs of every event ("12,0,3"), by its method "cost", "self" or "inclusive".
function model.costs(record, method, events)
  local out = {}
  for i, ev in ipairs(events) do out[i] = tostring(record[method](record, ev)) end
  return table.concat(out, ",")
end
local costs = model.costs

function model.snapshot(prof)
  local events = prof:events()
  local functions = {}
  for fn in prof:functions() do
    local key = join(fn.name, fn.file, fn.object)
    local lines, calls, jumps = {}, {}, {}
    for l in fn:lines() do lines[#lines + 1] = join(l.file, l.line, l.addr, costs(l, "cost", events)) end
    for c in fn:callees() do
      calls[#calls + 1] = join(c.callee.name, c.callee.file, c.callee.object, c.file, c.line, c.addr,
        c.count, costs(c, "inclusive", events))
    end
    for j in fn:jumps() do
      jumps[#jumps + 1] = join(j.from_file, j.from_line, j.from_addr, j.to_file, j.to_line, j.to_addr,
        j.to_function.name, j.executed, j.taken, j.conditional)
    end
    table.sort(lines)
    table.sort(calls)
    table.sort(jumps)
    assert(not functions[key], "two functions " .. key)
    functions[key] = {
      self = costs(fn, "self", events), inclusive = costs(fn, "inclusive", events),
      called = fn.called, cycle = fn.cycle or false, lines = lines, calls = calls, jumps = jumps,
    }
  end
  local totals = {}
  for _, ev in ipairs(events) do totals[ev] = prof:total(ev) end
  return { events = events, totals = totals, functions = functions, positions = prof:positions() }
end

--- The first difference between two snapshots as "path: a vs b", or nil when they are equal.
function model.difference(a, b, path)
  path = path or ""
  if type(a) ~= type(b) then return path .. ": " .. tostring(a) .. " vs " .. tostring(b) end
  if type(a) ~= "table" then
    if a ~= b then return path .. ": " .. tostring(a) .. " vs " .. tostring(b) end
    return nil
  end
  local keys = {}
  for k in pairs(a) do keys[#keys + 1] = k end
  for k in pairs(b) do if a[k] == nil then keys[#keys + 1] = k end end
  table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
  for _, k in ipairs(keys) do
    local d = model.difference(a[k], b[k], path .. "." .. tostring(k))
    if d then return d end
  end
  return nil
end

return model
