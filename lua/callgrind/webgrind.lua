-- callgrind.webgrind: webgrind's preprocessed format (version 7), written and read.
--
-- webgrind (a web front end for Xdebug profiles) keeps one binary file per profile: little-
-- endian unsigned 32-bit numbers and newline-terminated strings —
--   version, headers_offset, function_count, function_offset * function_count,
--   per function: line, self, inclusive, invocations, called_from_count, sub_call_count,
--                 called_from * (function, line, calls, cost), sub_call * (same), file\n, name\n
--   header lines ("key: value\n") to the end.
-- One event is written (the first, or opts.event). Numbers must fit in 32 bits: a cost that does
-- not is an error naming the function, never a wrapped value.
local webgrind = {}

local VERSION = 7
local LIMIT = 4294967296 -- 2^32

local floor, char, byte = math.floor, string.char, string.byte

local function u32(v, what)
  if v < 0 or v >= LIMIT or v ~= floor(v) then
    error({ message = what .. " (" .. string.format("%d", v) .. ") does not fit in 32 bits" })
  end
  return char(v % 256, floor(v / 256) % 256, floor(v / 65536) % 256, floor(v / 16777216) % 256)
end

local function group_calls(iter, key_of, events_of)
  local index, list = {}, {}
  for call in iter do
    local fn, line = key_of(call)
    local key = fn.id .. ":" .. line
    local g = index[key]
    if not g then
      g = { fn = fn, line = line, count = 0, cost = 0 }
      index[key] = g
      list[#list + 1] = g
    end
    g.count = g.count + call.count
    g.cost = g.cost + events_of(call)
  end
  return list
end

--- The preprocessed file as a string.
function webgrind.encode(prof, opts)
  opts = opts or {}
  local ev = opts.event or prof:events()[1]
  if not ev then error("the profile has no events", 2) end
  ev = prof:event_info(ev).name
  local functions, number = {}, {}
  for fn in prof:functions() do
    functions[#functions + 1] = fn
    number[fn] = #functions - 1
  end
  local records = {}
  local ok, err = pcall(function()
    for i, fn in ipairs(functions) do
      local label = "function '" .. fn.name .. "'"
      local first_line = 0
      for line in fn:lines() do
        first_line = line.line or 0
        break
      end
      local called_from = group_calls(fn:callers(), function(c) return c.caller, c.line or 0 end,
        function(c) return c:inclusive(ev) end)
      local sub_calls = group_calls(fn:callees(), function(c) return c.callee, c.line or 0 end,
        function(c) return c:inclusive(ev) end)
      -- invocations: the calls into it; a root that ran counts once
      local invocations = fn.called
      if invocations == 0 and (fn:self(ev) ~= 0 or #sub_calls > 0) then invocations = 1 end
      local parts = {
        u32(first_line, label .. ": line"), u32(fn:self(ev), label .. ": self cost"),
        u32(fn:inclusive(ev), label .. ": inclusive cost"), u32(invocations, label .. ": invocations"),
        u32(#called_from, label .. ": callers"), u32(#sub_calls, label .. ": calls"),
      }
      for _, list in ipairs { called_from, sub_calls } do
        for _, c in ipairs(list) do
          parts[#parts + 1] = u32(number[c.fn], label .. ": function number")
          parts[#parts + 1] = u32(c.line, label .. ": call line")
          parts[#parts + 1] = u32(c.count, label .. ": call count")
          parts[#parts + 1] = u32(c.cost, label .. ": call cost")
        end
      end
      parts[#parts + 1] = fn.file .. "\n" .. fn.name .. "\n"
      records[i] = table.concat(parts)
    end
  end)
  if not ok then
    if type(err) == "table" then return nil, err.message end
    error(err, 0)
  end
  -- header lines: the first section's, with the written event in events:, and summary: and
  -- totals: when that section has them for this event
  local headers = {}
  local first = prof:sections()[1]
  local has_event = false
  for _, name in ipairs(first and first.events or {}) do
    if name == ev then has_event = true end
  end
  for _, h in ipairs(first and first.headers or {}) do
    if h.key == "events" then
      headers[#headers + 1] = "events: " .. ev .. "\n"
    elseif h.key == "summary" or h.key == "totals" then
      local costs = first[h.key]
      if has_event and costs and costs[ev] then
        headers[#headers + 1] = h.key .. ": " .. string.format("%d", costs[ev]) .. "\n"
      end
    elseif not h.value:find("\n") then
      headers[#headers + 1] = h.key .. ": " .. h.value .. "\n"
    end
  end
  local offset = 12 + 4 * #records
  local offsets = {}
  for i, r in ipairs(records) do
    offsets[i] = offset
    offset = offset + #r
  end
  if offset >= LIMIT then return nil, "the preprocessed file would exceed 4 GiB" end
  local table_part = {}
  for i, o in ipairs(offsets) do table_part[i] = u32(o, "offset") end
  return u32(VERSION, "version") .. u32(offset, "offset") .. u32(#records, "function count")
    .. table.concat(table_part) .. table.concat(records) .. table.concat(headers)
end

--- Writes the preprocessed file; returns true, or nil and a message. Like prof:write, through a
--- temporary file renamed at the end.
function webgrind.write(prof, path, opts)
  if type(path) ~= "string" then error("write_webgrind: a path expected", 2) end
  local data, err = webgrind.encode(prof, opts)
  if not data then return nil, path .. ": " .. err end
  local temporary = path .. ".tmp-" .. string.format("%08x", math.random(0, 0x7fffffff))
  local f, oerr = io.open(temporary, "wb")
  if not f then return nil, oerr end
  local ok, werr = f:write(data)
  local closed, cerr = f:close()
  if not ok or not closed then
    os.remove(temporary)
    return nil, tostring(werr or cerr)
  end
  local renamed, rerr = os.rename(temporary, path)
  if not renamed then
    os.remove(temporary)
    return nil, rerr
  end
  return true
end

-- ---- reading ---------------------------------------------------------------------------------

local function reader(data, name)
  local r = { pos = 1 }
  function r.fail(what, at)
    error({ message = name .. ": " .. what .. " at byte " .. (at or r.pos - 1) }, 0)
  end
  function r.u32()
    local a, b, c, d = byte(data, r.pos, r.pos + 3)
    if not d then r.fail("unexpected end of data") end
    r.pos = r.pos + 4
    return a + b * 256 + c * 65536 + d * 16777216
  end
  function r.line()
    local nl = data:find("\n", r.pos, true)
    if not nl then r.fail("unterminated string") end
    local s = data:sub(r.pos, nl - 1)
    r.pos = nl + 1
    return s
  end
  return r
end

--- Decodes a preprocessed file held in a string:
--- { version = 7, headers = {"key: value", ...}, functions = { {number = 0, name =, file =,
---   line =, self =, inclusive =, invocations =, called_from = { {fn = number, line =,
---   count =, cost =}, ... }, sub_calls = {...} }, ... } }
function webgrind.decode(data, name)
  name = name or "(webgrind data)"
  local ok, result = pcall(function()
    local r = reader(data, name)
    local version = r.u32()
    if version ~= VERSION then
      r.fail("unsupported version " .. version .. " (this reader knows " .. VERSION .. ")", 0)
    end
    local headers_offset, count = r.u32(), r.u32()
    if 12 + 4 * count > #data then r.fail("function count " .. count .. " beyond the data", 8) end
    local offsets = {}
    for i = 1, count do offsets[i] = r.u32() end
    local functions = {}
    for i = 1, count do
      if offsets[i] + 1 ~= r.pos then
        r.fail("function " .. (i - 1) .. " at offset " .. offsets[i] .. " where the previous one ends",
          8 + 4 * i)
      end
      local f = { number = i - 1 }
      f.line, f.self, f.inclusive, f.invocations = r.u32(), r.u32(), r.u32(), r.u32()
      local nfrom, nsub = r.u32(), r.u32()
      for _, list in ipairs { { "called_from", nfrom }, { "sub_calls", nsub } } do
        local calls = {}
        for k = 1, list[2] do
          local at = r.pos - 1
          local fnr, line, calls_count, cost = r.u32(), r.u32(), r.u32(), r.u32()
          if fnr >= count then r.fail("function number " .. fnr .. " out of range", at) end
          calls[k] = { fn = fnr, line = line, count = calls_count, cost = cost }
        end
        f[list[1]] = calls
      end
      f.file = r.line()
      f.name = r.line()
      functions[i] = f
    end
    if headers_offset ~= r.pos - 1 then
      r.fail("headers offset " .. headers_offset .. " does not follow the last function (byte "
        .. (r.pos - 1) .. ")", 4)
    end
    local headers = {}
    while r.pos <= #data do
      local nl = data:find("\n", r.pos, true)
      if not nl then r.fail("unterminated header line") end
      headers[#headers + 1] = data:sub(r.pos, nl - 1)
      r.pos = nl + 1
    end
    return { version = version, headers = headers, functions = functions }
  end)
  if ok then return result end
  if type(result) == "table" then return nil, result.message end
  error(result, 0)
end

--- Reads a preprocessed file; returns the decoded table, or nil and a message.
function webgrind.load(path)
  if type(path) ~= "string" then error("load_webgrind: a path expected", 2) end
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local data = f:read("*a")
  f:close()
  if not data then return nil, path .. ": cannot read" end
  return webgrind.decode(data, path)
end

return webgrind
