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
local core = require "callgrind.core"
local query = require "callgrind.query"
local writer = require "callgrind.writer"

local webgrind = {}

local VERSION = 7

local byte = string.byte

-- The header lines: the first section's, with the written event in events:, and summary: and
-- totals: when that section has them for this event.
local function header_text(prof, ev)
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
  return table.concat(headers)
end

-- Sends the preprocessed file to `put(data)` (true, or nil and a message): the functions
-- streamed by the core, then the header lines. Nothing is sent when a number does not fit.
local function emit(prof, opts, put)
  opts = opts or {}
  local ev = query.event(prof, opts.event, 3)
  local ok, err = core.write_webgrind(prof, put, ev)
  if not ok then return nil, err end
  return put(header_text(prof, ev))
end

--- The preprocessed file as a string.
function webgrind.encode(prof, opts)
  local parts = {}
  local ok, err = emit(prof, opts, function(data)
    parts[#parts + 1] = data
    return true
  end)
  if not ok then return nil, err end
  return table.concat(parts)
end

--- Writes the preprocessed file; returns true, or nil and a message. Like prof:write, through a
--- temporary file renamed at the end; the file is made with the first bytes, so a profile whose
--- numbers do not fit leaves nothing behind.
function webgrind.write(prof, path, opts)
  if type(path) ~= "string" then error("write_webgrind: a path expected", 2) end
  return writer.to_path(path, function(put) return emit(prof, opts, put) end)
end

---------------------------------------------------------------------------
-- Reading
---------------------------------------------------------------------------

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
