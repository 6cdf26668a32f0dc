-- callgrind.asm.records: what the profile says about one function's instructions, by the
-- address the profile writes: self costs and source line per instruction, its jumps, the calls
-- made from each instruction, and the entry address its callers name.
--
-- Walks fn:lines(), fn:jumps(), fn:jumps_in(), fn:callees() and fn:callers() of that one function: the
-- records of one function are the rows printed.
local query = require "callgrind.query"

local records = {}

-- Self costs and the first source position of every address (records of one address are
-- summed: merged profiles may hold one per source file).
local function instructions(fn, events)
  local groups, addrs, without_addr = query.groups(events), {}, 0
  for record in fn:lines() do
    local addr = record.addr
    if addr == nil then
      without_addr = without_addr + 1
    else
      local entry, new = groups:add(addr, function(ev) return record:cost(ev) end)
      if new then
        entry.file, entry.line = record.file, record.line
        addrs[#addrs + 1] = addr
      end
    end
  end
  return groups.index, addrs, without_addr
end

local function jump_entry(jump)
  return {
    from = jump.from_addr, to = jump.to_addr, executed = jump.executed, taken = jump.taken,
    conditional = jump.conditional, from_function = jump["function"], to_function = jump.to_function,
  }
end

local function jumps_of(fn)
  local list = {}
  for jump in fn:jumps() do list[#list + 1] = jump_entry(jump) end
  return list
end

-- Jumps from other functions into this one (a tail call, a jump into a split-off part).
local function jumps_from_others(fn)
  local list = {}
  for jump in fn:jumps_in() do
    if jump["function"] ~= fn and jump.to_addr then list[#list + 1] = jump_entry(jump) end
  end
  return list
end

-- The calls made from each address, one entry per callee: { [addr] = { {callee =, count =,
-- inclusive = {ev = n}}, ... } }, highest first cost first.
local function calls_of(fn, events)
  local by_addr = {}
  for call in fn:callees() do
    local addr = call.addr
    if addr then
      local groups = by_addr[addr]
      if not groups then
        groups = query.groups(events, "inclusive")
        by_addr[addr] = groups
      end
      local entry, new = groups:add(call.callee, function(ev) return call:inclusive(ev) end, call.count)
      if new then entry.callee = call.callee end
    end
  end
  for addr, groups in pairs(by_addr) do by_addr[addr] = groups.list end
  local first = events[1]
  for _, list in pairs(by_addr) do
    table.sort(list, function(a, b)
      if a.inclusive[first] ~= b.inclusive[first] then return a.inclusive[first] > b.inclusive[first] end
      return a.callee.name < b.callee.name
    end)
  end
  return by_addr
end

-- The entry addresses the profile gives for the function: where its callers' calls go
-- (`calls=N TARGET`), the most frequent first; empty when nobody calls it.
local function entries_of(fn)
  local counts, list = {}, {}
  for call in fn:callers() do
    local target = call.target_addr
    if target then
      if not counts[target] then list[#list + 1] = target end
      counts[target] = (counts[target] or 0) + call.count
    end
  end
  table.sort(list, function(a, b)
    if counts[a] ~= counts[b] then return counts[a] > counts[b] end
    return a < b
  end)
  return list
end

--- Everything the profile holds about the instructions of `fn`, for the events listed:
--- { by_addr = { [addr] = {costs =, file =, line =} }, addrs = {addr, ... ascending},
---   jumps = { {from =, to =, executed =, taken =, conditional =, from_function =,
---   to_function =}, ... }, jumps_in = {the same, for jumps from other functions into it},
---   calls = { [addr] = { {callee =, count =, inclusive =}, ... } },
---   positions = {every address a record names, ascending}, low =, high = (the first and last
---   of them), entries = {entry addresses from the callers, most used first} }.
--- Addresses are those the profile writes. Returns nil and the number of line records without
--- an address when there are any (a profile written without instruction positions).
function records.collect(fn, events)
  local by_addr, addrs, without_addr = instructions(fn, events)
  if without_addr > 0 then return nil, without_addr end
  local jumps = jumps_of(fn)
  local calls = calls_of(fn, events)
  local seen, positions = {}, {}
  local function add(addr)
    if addr ~= nil and not seen[addr] then
      seen[addr] = true
      positions[#positions + 1] = addr
    end
  end
  for _, addr in ipairs(addrs) do add(addr) end
  for _, jump in ipairs(jumps) do add(jump.from) end
  for addr in pairs(calls) do add(addr) end
  if #positions == 0 then return nil, 0 end
  table.sort(addrs)
  table.sort(positions)
  return { by_addr = by_addr, addrs = addrs, jumps = jumps, jumps_in = jumps_from_others(fn),
    calls = calls, positions = positions,
    low = positions[1], high = positions[#positions], entries = entries_of(fn) }
end

return records
