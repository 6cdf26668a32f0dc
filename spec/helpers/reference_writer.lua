-- The Callgrind writer as it was when it walked every record in Lua, kept as the reference the
-- streaming writer (the core's, behind callgrind.writer) must match byte for byte. Records at
-- the same position keep their order (lines, then calls, then jumps, each in the order the
-- profile gives them), where the old table.sort left ties in no particular order.
--
-- Its header lines repeat callgrind.writer's on purpose: a reference that called the module's
-- own code could not catch a change there, so it stays a copy that owes the module nothing.
local writer = {}

local concat, format = table.concat, string.format

-- The creator: line of what this module writes.
local WRITER = "the callgrind Lua module " .. require("callgrind.core")._VERSION

-- ---- names -----------------------------------------------------------------------------------

-- `kind` is one of the format's three name tables: "file", "fn" or "ob".
local function namer(compress)
  local tables = { file = {}, fn = {}, ob = {} }
  local next_id = { file = 0, fn = 0, ob = 0 }
  return function(kind, name)
    -- a name that starts with "(digit" can only be written compressed; an empty one only plain
    local must = name:find("^%(%d") ~= nil
    if name == "" or not (compress or must) then return name end
    local ids = tables[kind]
    local id = ids[name]
    if id then return "(" .. id .. ")" end
    next_id[kind] = next_id[kind] + 1
    id = next_id[kind]
    ids[name] = id
    return "(" .. id .. ") " .. name
  end
end

-- ---- positions -------------------------------------------------------------------------------

local function hex(v)
  return format("0x%x", v)
end

-- Encodes the position columns of the profile, relative to the last position line when
-- `compress` is set: "*" for the same value, "+N"/"-N" for small steps.
local function position_coder(columns, compress)
  local last, seen = {}, false
  local coder = {}

  local function encode(i, v, absolute)
    if compress and seen then
      local d = v - last[i]
      if d == 0 then return "*" end
      if d > 0 and d < 1000000 then return "+" .. format("%d", d) end
      if d < 0 and d > -1000000 then return format("%d", d) end
    end
    return absolute(v)
  end

  --- Text of a position line's columns; `update` makes it the new base (position lines do,
  --- call and jump targets do not).
  function coder.encode(values, update)
    local out = {}
    for i, col in ipairs(columns) do
      local v = values[col] or 0
      out[i] = encode(i, v, col == "instr" and hex or function(x) return format("%d", x) end)
    end
    if update then
      for i, col in ipairs(columns) do last[i] = values[col] or 0 end
      seen = true
    end
    return concat(out, " ")
  end

  return coder
end

-- ---- costs -------------------------------------------------------------------------------------

-- Costs of a record for the raw events, trailing zeros left out as callgrind does.
local function cost_text(record, method, events)
  local values, n = {}, 0
  for i, ev in ipairs(events) do
    local v = record[method](record, ev)
    values[i] = format("%d", v)
    if v ~= 0 then n = i end
  end
  return concat(values, " ", 1, n)
end

-- ---- one function ------------------------------------------------------------------------------

local KIND_ORDER = { line = 1, call = 2, jump = 3 }

local function items_of(fn, has_line, has_instr)
  local items = {}
  local function number(item)
    item.seq = #items
    return item
  end
  for line in fn:lines() do
    items[#items + 1] = number { kind = "line", record = line, file = line.file,
      line = line.line or 0, addr = line.addr or 0 }
  end
  for call in fn:callees() do
    items[#items + 1] = number { kind = "call", record = call, file = call.file,
      line = call.line or 0, addr = call.addr or 0 }
  end
  for jump in fn:jumps() do
    items[#items + 1] = number { kind = "jump", record = jump, file = jump.from_file,
      line = jump.from_line or 0, addr = jump.from_addr or 0 }
  end
  -- the function's own file first, then inlined files; by position within each
  local own = fn.file
  table.sort(items, function(a, b)
    if a.file ~= b.file then
      if a.file == own then return true end
      if b.file == own then return false end
      return a.file < b.file
    end
    if has_instr and a.addr ~= b.addr then return a.addr < b.addr end
    if has_line and a.line ~= b.line then return a.line < b.line end
    if a.addr ~= b.addr then return a.addr < b.addr end
    if a.kind ~= b.kind then return KIND_ORDER[a.kind] < KIND_ORDER[b.kind] end
    return a.seq < b.seq
  end)
  return items
end

local function write_function(out, fn, state)
  local name, events, pos = state.name, state.events, state.pos
  if fn.object ~= state.ob then
    out[#out + 1] = "ob=" .. name("ob", fn.object)
    state.ob = fn.object
  end
  if fn.file ~= state.fl then
    out[#out + 1] = "fl=" .. name("file", fn.file)
    state.fl = fn.file
  end
  out[#out + 1] = "fn=" .. name("fn", fn.name)
  local current = fn.file
  for _, item in ipairs(items_of(fn, state.has_line, state.has_instr)) do
    if item.file ~= current then
      out[#out + 1] = (item.file == fn.file and "fe=" or "fi=") .. name("file", item.file)
      current = item.file
    end
    local r = item.record
    local where = { instr = item.addr, line = item.line }
    if item.kind == "line" then
      local costs = cost_text(r, "cost", events)
      out[#out + 1] = pos.encode(where, true) .. (costs ~= "" and " " .. costs or "")
    elseif item.kind == "call" then
      local callee = r.callee
      if callee.object ~= state.ob then out[#out + 1] = "cob=" .. name("ob", callee.object) end
      -- always named, so that the callee never depends on the reader's defaults
      out[#out + 1] = "cfi=" .. name("file", callee.file)
      out[#out + 1] = "cfn=" .. name("fn", callee.name)
      local target = pos.encode({ instr = r.target_addr or 0, line = r.target_line or 0 }, false)
      out[#out + 1] = format("calls=%d %s", r.count, target)
      local costs = cost_text(r, "inclusive", events)
      out[#out + 1] = pos.encode(where, true) .. (costs ~= "" and " " .. costs or "")
    else
      if r.to_file ~= item.file then out[#out + 1] = "jfi=" .. name("file", r.to_file) end
      if r.to_function ~= fn then out[#out + 1] = "jfn=" .. name("fn", r.to_function.name) end
      local target = pos.encode({ instr = r.to_addr or 0, line = r.to_line or 0 }, false)
      if r.conditional then
        out[#out + 1] = format("jcnd=%d/%d %s", r.taken, r.executed, target)
      else
        out[#out + 1] = format("jump=%d %s", r.executed, target)
      end
      out[#out + 1] = pos.encode(where, true)
    end
  end
  -- back to the function's own file before the next block, as callgrind does: some readers do
  -- not restore it at fn=
  if current ~= fn.file then out[#out + 1] = "fe=" .. name("file", fn.file) end
  out[#out + 1] = ""
end

-- ---- the file ------------------------------------------------------------------------------

local HEADER_KEYS = { version = true, creator = true, pid = true, cmd = true, part = true,
  thread = true, desc = true }

local function header_lines(prof, out, columns, events)
  local sections = prof:sections()
  local first = sections[1]
  out[#out + 1] = "# callgrind format"
  out[#out + 1] = "version: 1"
  local creator = first and first.creator
  out[#out + 1] = "creator: " .. (creator and (creator .. "; rewritten by " .. WRITER) or WRITER)
  if first then
    for _, h in ipairs(first.headers) do
      if HEADER_KEYS[h.key] and h.key ~= "version" and h.key ~= "creator" then
        out[#out + 1] = h.key .. ": " .. h.value
      end
    end
  end
  out[#out + 1] = "positions: " .. concat(columns, " ")
  for _, ev in ipairs(prof:events(true)) do
    local info = prof:event_info(ev)
    if info.formula and not info.builtin then
      out[#out + 1] = "event: " .. ev .. " = " .. info.formula
        .. (info.long_name and (" : " .. info.long_name) or "")
    elseif info.long_name and not info.builtin then
      out[#out + 1] = "event: " .. ev .. " : " .. info.long_name
    end
  end
  out[#out + 1] = "events: " .. concat(events, " ")
  -- the summary of a single section stays; several are summed when they all have one
  local summary = {}
  for _, s in ipairs(sections) do
    if not s.summary then summary = nil break end
    for _, ev in ipairs(events) do summary[ev] = (summary[ev] or 0) + s.summary[ev] end
  end
  if summary and #sections > 0 then
    local values = {}
    for i, ev in ipairs(events) do values[i] = format("%d", summary[ev]) end
    out[#out + 1] = "summary: " .. concat(values, " ")
  end
  out[#out + 1] = ""
end

--- The profile in the Callgrind format, as a list of lines.
local function lines_of(prof, opts)
  local events = prof:events()
  local columns = {}
  local positions = {}
  for _, p in ipairs(prof:positions()) do positions[p] = true end
  if positions.instr then columns[#columns + 1] = "instr" end
  if positions.line or not positions.instr then columns[#columns + 1] = "line" end
  local out = {}
  header_lines(prof, out, columns, events)
  local state = {
    ob = "", -- a reader starts with no object: an empty one needs no ob= line
    name = namer(opts.compress_names ~= false),
    pos = position_coder(columns, opts.compress_positions ~= false),
    events = events, has_line = positions.line or not positions.instr, has_instr = positions.instr,
  }
  for fn in prof:functions() do write_function(out, fn, state) end
  local totals = {}
  for i, ev in ipairs(events) do totals[i] = format("%d", prof:total(ev)) end
  out[#out + 1] = "totals: " .. concat(totals, " ")
  return out
end

--- The profile as a string in the Callgrind format.
function writer.text(prof, opts)
  return concat(lines_of(prof, opts or {}), "\n") .. "\n"
end

return writer
