-- callgrind.asm: a function's machine code with its costs, the way KCachegrind's machine-code
-- view shows it: the instructions objdump disassembles from the object the profile names
-- (`ob=`), each with its self costs, its source line, the calls made from it and the jumps that
-- leave or reach it.
--
--   local asm = require "callgrind.asm"
--   io.write(asm.text(prof, prof:find("parse"), { show = "Ir", context = 4 }))
--   local rows, info = asm.instructions(prof, prof:find("parse"))
--
-- Needs a profile with instruction positions (valgrind --dump-instr=yes; jumps with
-- --collect-jumps=yes) and binutils' objdump. The object is checked against the profile before
-- any cost is shown (asm/join.lua): a missing object, a rebuilt one or a missing objdump is
-- said in words, never shown as costs against the wrong code.
local records = require "callgrind.asm.records"
local object = require "callgrind.asm.object"
local disassemble = require "callgrind.asm.disassemble"
local join = require "callgrind.asm.join"
local render = require "callgrind.asm.render"
local ranges = require "callgrind.asm.ranges"
local tools = require "callgrind.asm.tools"
local core = require "callgrind.core"
local names = require "callgrind.names"
local query = require "callgrind.query"

local asm = {}

local DEFAULT_HOT = 1

---------------------------------------------------------------------------
-- Arguments
---------------------------------------------------------------------------

local function check_number(opts, key, default)
  local value = opts[key]
  if value == nil then return default end
  if type(value) ~= "number" or value < 0 then error(key .. " must be a number >= 0", 4) end
  return value
end

local function is_a(value, kind, method)
  return type(value) == "userdata" and value[method] == core.methods[kind][method]
end

-- The function and the options checked; errors are raised at the caller of the public
-- function (level 3 from here).
local function options(prof, fn, opts)
  if not is_a(prof, "profile", "total") then error("bad argument #1 (a profile expected)", 3) end
  if type(fn) == "string" then
    local found = prof:find(fn)
    if not found then error("no function named '" .. fn .. "' in the profile", 3) end
    fn = found
  elseif not is_a(fn, "function", "self") then
    error("bad argument #2 (a function of the profile, or a name, expected)", 3)
  end
  opts = opts or {}
  if type(opts) ~= "table" then error("bad argument #3 (a table of options expected)", 3) end
  local o = {
    events = query.events(prof, opts.show, nil, 3),
    hot = check_number(opts, "hot", DEFAULT_HOT),
    context = opts.context ~= nil and math.floor(check_number(opts, "context")) or nil,
    offset = opts.offset ~= nil and check_number(opts, "offset") or nil,
    objdump = opts.objdump or "objdump",
    object = opts.object,
    dirs = opts.dirs,
    debug_dir = opts.debug_dir,
    percentages = opts.percentages,
    cache = opts.cache,
  }
  return fn, o
end

---------------------------------------------------------------------------
-- The steps
---------------------------------------------------------------------------

-- The function's symbol, the load offset and what to disassemble: { symbol = (nil without
-- one), offset =, debug_file =, plan = ranges.plan(...) }; or nil and why no symbol fits.
local function placement(o, path, fn, recs)
  local symbols, debug_file = object.symbols(o.objdump, path, fn.name, o.debug_dir, o.cache)
  local place
  if #symbols == 0 then
    -- stripped objects, and functions callgrind names by address ("0x00000000000010a0")
    place = { offset = o.offset or 0 }
  else
    place = object.place(recs, symbols, o.offset)
    if not place then
      local list = {}
      for _, s in ipairs(symbols) do list[#list + 1] = string.format("0x%x", s.addr) end
      local at = o.offset and string.format(" (less the load offset 0x%x)", o.offset) or ""
      local where = #recs.entries > 0 and string.format("its callers enter %s at 0x%x", fn.name, recs.entries[1])
        or string.format("the profile puts %s at 0x%x-0x%x", fn.name, recs.low, recs.high)
      return nil, string.format("%s%s, the object's symbol %s starts at %s", where, at, symbols[1].name,
        table.concat(list, " and "))
    end
  end
  place.debug_file = debug_file
  local addrs = {}
  for i, addr in ipairs(recs.positions) do addrs[i] = addr - place.offset end
  place.plan = ranges.plan(addrs, place.symbol)
  return place
end

-- The instructions of the plan's ranges that are the function's, in address order; or nil and
-- objdump's message.
local function disassembled(o, path, plan)
  local list = {}
  local function kept(addr) return ranges.kept(plan, addr) end
  for _, run in ipairs(plan.runs) do
    local instructions, err = disassemble.range(o.objdump, path, run.start, run.stop, kept)
    if not instructions then return nil, err end
    for _, instruction in ipairs(instructions) do list[#list + 1] = instruction end
  end
  return list
end

-- objdump labels branch targets by the nearest symbol it knows, which in a library without its
-- symbol table is some exported name far away ("<__nss_database_lookup@GLIBC_2.2.5+0x4310>");
-- targets inside the function are labelled by the function's own symbol.
local function relabel(instructions, symbol)
  if not symbol then return end
  for _, instruction in ipairs(instructions) do
    local target = instruction.target
    if target and target >= symbol.addr and (symbol.size == 0 or target < symbol.addr + symbol.size) then
      local label = target == symbol.addr and "<" .. symbol.name .. ">"
        or string.format("<%s+0x%x>", symbol.name, target - symbol.addr)
      instruction.text = instruction.text:gsub("<[^>]*>$", function() return label end)
    end
  end
end

local function mark_hot(rows, events, self, hot)
  local first = events[1]
  local whole = self[first]
  for _, row in ipairs(rows) do
    local cost = row.costs[first]
    row.hot = cost > 0 and whole > 0 and cost * 100 >= hot * whole
  end
end

local function notes_for(prof, fn, path, place, other_lines)
  local notes = {}
  if place.symbol == nil then
    notes[#notes + 1] = "no symbol " .. fn.name
      .. " in the object: its addresses are checked against the instructions only"
  elseif place.plan.outside > 0 then
    notes[#notes + 1] = string.format("%d of the profile's addresses of %s lie outside its symbol"
      .. " (code it jumps or falls into, which valgrind counts as the function's)", place.plan.outside, fn.name)
  end
  local source = prof:sections()[1].source
  if source and tools.readable(source) and tools.newer(path, source) then
    notes[#notes + 1] = "the object is newer than the profile; its code matches the profile's addresses"
  end
  if other_lines > 0 then
    notes[#notes + 1] = string.format(other_lines == 1
      and "%d instruction's source line differs from the object's debug information"
      or "%d instructions' source lines differ from the object's debug information", other_lines)
  end
  return notes
end

local function failure(path, why)
  return nil, string.format("%s is not the file that was profiled (rebuilt since?): %s."
    .. " No costs are shown against its code.", path, why), "mismatch"
end

-- What the profile holds about the function's instructions (records.collect), once the
-- profile, the function and the tools allow a disassembly; or nil, a message and its kind.
local function profiled_code(prof, fn, o)
  if not query.has_position(prof, "instr") then
    return nil, "the profile has no instruction addresses: record it with valgrind --tool=callgrind --dump-instr=yes"
      .. " (and --collect-jumps=yes for jumps)", "positions"
  end
  local recs, without = records.collect(fn, o.events)
  if not recs then
    if without > 0 then
      return nil, string.format("%d records of %s have no instruction address", without, fn.name), "positions"
    end
    return nil, "the profile holds no instruction of " .. fn.name, "positions"
  end
  if names.is_unknown(fn.object) then
    return nil, "the profile names no object file for " .. fn.name .. " (ob=" .. fn.object .. ")", "object"
  end
  if not tools.found(o.objdump) then
    return nil, "'" .. o.objdump .. "' was not found: the machine code needs objdump, from GNU binutils", "objdump"
  end
  return recs
end

-- The instructions of the function in the object at `path`, and where they lie; or nil, a
-- message and its kind.
local function object_code(o, path, fn, recs)
  local place, why = placement(o, path, fn, recs)
  if not place then return failure(path, why) end
  local instructions, err = disassembled(o, path, place.plan)
  if not instructions then return nil, "objdump could not read " .. path .. ": " .. err, "objdump" end
  if #instructions == 0 then
    return failure(path, string.format("it has no code at 0x%x-0x%x", recs.low - place.offset,
      recs.high - place.offset))
  end
  relabel(instructions, place.symbol)
  return instructions, place
end

local function build(prof, fn, o)
  local recs, message, kind = profiled_code(prof, fn, o)
  if not recs then return nil, message, kind end
  local path, tried = object.find(prof, fn.object, o)
  if not path then
    return nil, "the object " .. fn.object .. " of " .. fn.name .. " was not found (looked for "
      .. table.concat(tried, ", ") .. ")", "object"
  end
  local instructions, place, failure_kind = object_code(o, path, fn, recs)
  if not instructions then return nil, place, failure_kind end
  local rows, other_lines = join.rows(instructions, recs, place.offset, fn, o.events)
  if not rows then return failure(path, other_lines) end

  local self, totals = {}, {}
  for _, ev in ipairs(o.events) do
    self[ev], totals[ev] = fn:self(ev), prof:total(ev)
  end
  mark_hot(rows, o.events, self, o.hot)
  return rows, {
    fn = fn, path = path, debug_file = place.debug_file, symbol = place.symbol, offset = place.offset,
    events = o.events, totals = totals, self = self, hot = o.hot,
    notes = notes_for(prof, fn, path, place, other_lines),
  }
end

--- The machine code of `fn` (a function of `prof`, or its name) with the profile's costs: a
--- list of rows, one per instruction in address order, and a table about the whole; or nil, a
--- message and its kind ("positions", "object", "objdump", "mismatch").
--- Row: { addr =, profile_addr =, size =, bytes =, text =, file =, line =, costs = {ev = n},
---   executed =, hot =, calls = { {callee =, count =, inclusive = {ev = n}}, ... },
---   jumps_out = { {from =, to =, executed =, taken =, conditional =, to_function =}, ... },
---   jumps_in = {...} }.
--- Info: { fn =, path =, debug_file =, symbol = {name =, addr =, size =} or nil, offset =,
---   events =, totals = {ev = n}, self = {ev = n}, hot =, notes = {...} }.
--- opts: show (events, default all), hot (percent of the function's self cost of the first
--- event from which an instruction is hot, default 1), object (the object's path), dirs
--- (directories searched for it), offset (a load offset to take off the profile's addresses),
--- objdump (the program, default "objdump"), debug_dir (default /usr/lib/debug), cache (a
--- table kept between calls, in which the symbol tables read are kept for the next).
function asm.instructions(prof, fn, opts)
  local o
  fn, o = options(prof, fn, opts)
  return build(prof, fn, o)
end

--- The printed form: a header (object, symbol, how addresses were mapped, notes), then one
--- line per instruction with its costs, hot ones marked with `*`, and under it its calls and
--- jumps. When the code cannot be shown, the text says why, and the kind of failure is the
--- second value. opts: those of asm.instructions, plus context (only the hot instructions and
--- this many on either side; default every instruction) and percentages (default true).
function asm.text(prof, fn, opts)
  local o
  fn, o = options(prof, fn, opts)
  local rows, info, kind = build(prof, fn, o)
  if not rows then return "No machine code for " .. fn.name .. ": " .. info .. "\n", kind end
  return render.text(rows, info, o)
end

return asm
