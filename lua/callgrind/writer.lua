-- callgrind.writer: a profile back to the Callgrind format.
--
--   prof:write("out.callgrind" [, {compress_names = true, compress_positions = true}])
--   prof:write(io.stdout)
--
-- Everything the model holds is written: events with long names and formulas, the first
-- section's description, positions, every function's line (or instruction) costs with inlined
-- code under fi=/fe=, calls with counts, call sites, targets and inclusive costs, and jumps.
-- Loading the output again gives the same numbers. Written to a path, the text goes to a
-- temporary file beside it that is renamed at the end, so a failed write leaves no half file.
local core = require "callgrind.core"

local writer = {}

local concat, format = table.concat, string.format

-- The creator: line of what this module writes.
local WRITER = "the callgrind Lua module " .. core._VERSION

---------------------------------------------------------------------------
-- The file
---------------------------------------------------------------------------

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

-- The position columns the core writes: instr and/or line (line when the profile has neither).
local function columns_of(prof)
  local positions = {}
  for _, p in ipairs(prof:positions()) do positions[p] = true end
  local columns = {}
  if positions.instr then columns[#columns + 1] = "instr" end
  if positions.line or not positions.instr then columns[#columns + 1] = "line" end
  return columns
end

-- Sends the profile in the Callgrind format to `put(text)`, which returns true, or nil and a
-- message: the header from here, the function blocks streamed by the core, the totals.
local function emit(prof, opts, put)
  local events = prof:events()
  local head = {}
  header_lines(prof, head, columns_of(prof), events)
  local ok, err = put(concat(head, "\n") .. "\n")
  if not ok then return nil, err end
  ok, err = core.write(prof, put, {
    compress_names = opts.compress_names ~= false,
    compress_positions = opts.compress_positions ~= false,
  })
  if not ok then return nil, err end
  local totals = {}
  for i, ev in ipairs(events) do totals[i] = format("%d", prof:total(ev)) end
  return put("totals: " .. concat(totals, " ") .. "\n")
end

local function check_options(opts)
  opts = opts or {}
  if type(opts) ~= "table" then error("options must be a table", 3) end
  return opts
end

-- Sends what `send(put)` produces straight into `path`, which is not a regular file (a device
-- such as /dev/null, a pipe): a rename would put a file in its place.
local function to_special(path, send)
  local f, open_error = io.open(path, "wb")
  if not f then return nil, open_error end
  local ok, err = send(function(text) return f:write(text) end)
  local closed, cerr = f:close()
  if not ok or not closed then return nil, path .. ": " .. tostring(err or cerr) end
  return true
end

--- Sends what `send(put)` produces to the file `path` through a temporary file beside it,
--- renamed over `path` at the end. `send` calls `put(text)` (true, or nil and a message) and
--- returns true, or nil and a message. The temporary file is made with the first text, so a
--- `send` that fails before it writes anything leaves no file; one that fails later, or a
--- failed close or rename, leaves none either. A path that names a device or a pipe is written
--- in place. Returns true, or nil and a message.
function writer.to_path(path, send)
  if core.file_kind(path) == "other" then return to_special(path, send) end
  local temporary = path .. ".tmp-" .. format("%08x", math.random(0, 0x7fffffff))
  local f, open_error
  local ok, err = send(function(text)
    if not f then
      f, open_error = io.open(temporary, "wb")
      if not f then return nil, open_error end
    end
    return f:write(text)
  end)
  if open_error then return nil, open_error end
  if not f then
    if not ok then return nil, path .. ": " .. tostring(err) end
    f, open_error = io.open(temporary, "wb") -- nothing was sent: an empty file
    if not f then return nil, open_error end
  end
  local closed, cerr = f:close()
  if not ok or not closed then
    os.remove(temporary)
    return nil, path .. ": " .. tostring(err or cerr)
  end
  local renamed, rerr = os.rename(temporary, path)
  if not renamed then
    os.remove(temporary)
    return nil, rerr
  end
  return true
end

--- Writes `prof` to a path or an open file; returns true, or nil and a message.
function writer.write(prof, target, opts)
  opts = check_options(opts)
  if type(target) ~= "string" then
    if io.type(target) ~= "file" then error("a path or an open file expected", 2) end
    local ok, err = emit(prof, opts, function(text) return target:write(text) end)
    if not ok then return nil, err end
    return true
  end
  return writer.to_path(target, function(put) return emit(prof, opts, put) end)
end

--- The profile as a string in the Callgrind format.
function writer.text(prof, opts)
  opts = check_options(opts)
  local parts = {}
  assert(emit(prof, opts, function(text)
    parts[#parts + 1] = text
    return true
  end))
  return concat(parts)
end

return writer
