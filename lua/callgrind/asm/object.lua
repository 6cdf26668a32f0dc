-- callgrind.asm.object: the object file a profile names (`ob=`), its symbols, and where a
-- function's instructions lie in it.
--
-- Addresses: valgrind's callgrind writes each instruction's run-time address minus the load
-- offset of its object (the format's rule), that is the address objdump shows in the file, so a
-- function's callers enter it at its symbol's address as written. Writers that keep run-time
-- addresses are placed by the function's symbol: the load offset is the distance from the
-- symbol to the entry the profile names (its callers' call target, else its lowest address),
-- and must be a whole number of pages, as loaders map objects. A function no symbol places is
-- not the code that was profiled.
local tools = require "callgrind.asm.tools"

local object = {}

local PAGE = 4096
local DEBUG_DIR = "/usr/lib/debug"

local function dirname(path)
  return path:match("^(.*)/[^/]*$") or "."
end

local function basename(path)
  return path:match("[^/]*$")
end

-- The directory of the file the profile was read from, when it was read from a file.
local function profile_dir(prof)
  local section = prof:sections()[1]
  local source = section and section.source
  if source and tools.readable(source) then return dirname(source) end
  return nil
end

--- The path of the object `name` (as `ob=` writes it): `opts.object` when given; else the name
--- as written (absolute, or relative to the current directory), relative to the profile's
--- directory, then its base name in each of `opts.dirs`. Returns the path, or nil and the list
--- of paths tried.
function object.find(prof, name, opts)
  local tried, seen = {}, {}
  -- a name like "-x" would reach objdump as an option
  local function safe(path)
    return path:sub(1, 1) == "-" and "./" .. path or path
  end
  name = safe(name)
  local function try(path)
    if seen[path] then return false end
    seen[path] = true
    tried[#tried + 1] = path
    return tools.readable(path)
  end
  if opts.object then
    local path = safe(opts.object)
    if try(path) then return path end
    return nil, tried
  end
  if try(name) then return name end
  local dir = profile_dir(prof)
  if dir and name:sub(1, 1) ~= "/" then
    local beside = dir .. "/" .. name:gsub("^%./", "")
    if try(beside) then return beside end
  end
  for _, search in ipairs(opts.dirs or {}) do
    local path = search .. "/" .. basename(name)
    if try(path) then return path end
  end
  return nil, tried
end

---------------------------------------------------------------------------
-- Sections read as bytes
---------------------------------------------------------------------------

-- The bytes of one section as objdump -s dumps them, as a string of hex digits; nil when the
-- object has no such section.
local function section_hex(objdump, path, name)
  local out, _, status = tools.run(objdump, { "-s", "-j", name, path })
  if status ~= 0 or not out:find("Contents of section", 1, true) then return nil end
  local hex = {}
  for row in out:gmatch("[^\n]+") do
    -- " 0370 04000000 14000000 03000000 474e5500  ............GNU."
    local words = row:match("^ %x+ ([%x ]-)  ")
    if words then hex[#hex + 1] = words:gsub("%s", "") end
  end
  return table.concat(hex)
end

local function hex_bytes(hex)
  return (hex:gsub("%x%x", function(byte) return string.char(tonumber(byte, 16)) end))
end

-- The GNU build id (hex) from the .note.gnu.build-id section: namesz, descsz and type as
-- 32-bit words, the name "GNU\0", then descsz bytes of id.
local function build_id(objdump, path)
  local hex = section_hex(objdump, path, ".note.gnu.build-id")
  if not hex or hex:sub(25, 32) ~= "474e5500" then return nil end
  local size = tonumber(hex:sub(9, 10), 16)
  if size == 0 then size = tonumber(hex:sub(15, 16), 16) end -- big-endian words
  local id = hex:sub(33, 32 + 2 * size)
  return #id == 2 * size and id:lower() or nil
end

--- The separate debug file of the object at `path` (Debian's -dbg and -dbgsym packages): by
--- build id under `debug_dir` (default /usr/lib/debug), else by the .gnu_debuglink name beside
--- the object, in its .debug directory, or under debug_dir. Nil when there is none.
function object.debug_file(objdump, path, debug_dir)
  debug_dir = debug_dir or DEBUG_DIR
  local id = build_id(objdump, path)
  if id and #id > 2 then
    local candidate = debug_dir .. "/.build-id/" .. id:sub(1, 2) .. "/" .. id:sub(3) .. ".debug"
    if tools.readable(candidate) then return candidate end
  end
  local link = section_hex(objdump, path, ".gnu_debuglink")
  local name = link and hex_bytes(link):match("^([^%z]+)")
  if name then
    local dir = dirname(path)
    for _, candidate in ipairs { dir .. "/" .. name, dir .. "/.debug/" .. name, debug_dir .. dir .. "/" .. name } do
      if candidate ~= path and tools.readable(candidate) then return candidate end
    end
  end
  return nil
end

---------------------------------------------------------------------------
-- Symbols
---------------------------------------------------------------------------

-- Every symbol in objdump's -t (or, with `dynamic`, -T) table, by name, each with its row:
-- "0000000000001159 l     F .text\t0000000000000043              count_words", where the
-- dynamic table puts a version before the name ("GLIBC_2.2.5 strlen").
local function symbol_table(objdump, path, dynamic)
  local out = tools.run(objdump, { dynamic and "-T" or "-t", "-C", path })
  local by_name, row_number = {}, 0
  for row in out:gmatch("[^\n]+") do
    local addr, section, size, rest = row:match("^(%x+) .......%s(%S+)\t(%x+)%s+(.-)%s*$")
    if addr and section ~= "*UND*" and section ~= "*ABS*" then
      local name = rest:gsub("^%.hidden%s+", ""):gsub("^%.protected%s+", ""):gsub("^%.internal%s+", "")
      if dynamic then name = name:match("^%S+%s+(.+)$") or name end
      name = name:gsub("@.*$", "")
      row_number = row_number + 1
      local list = by_name[name]
      if not list then
        list = {}
        by_name[name] = list
      end
      list[#list + 1] = { name = name, addr = tonumber(addr, 16), size = tonumber(size, 16), row = row_number }
    end
  end
  return by_name
end

-- The symbols called `wanted[name]`, in the table's order, added to `into`. `cache` (a table,
-- or nil) keeps each table read, so that the functions of one object read it once (a big
-- program's dynamic table is tens of thousands of rows).
local function read_symbols(objdump, path, wanted, dynamic, into, cache)
  local key = objdump .. "\0" .. path .. (dynamic and "\0T" or "\0t")
  local by_name = cache and cache[key] or symbol_table(objdump, path, dynamic)
  if cache then cache[key] = by_name end
  local found = {}
  for name in pairs(wanted) do
    for _, symbol in ipairs(by_name[name] or {}) do found[#found + 1] = symbol end
  end
  table.sort(found, function(a, b) return a.row < b.row end)
  for _, symbol in ipairs(found) do
    into[#into + 1] = { name = symbol.name, addr = symbol.addr, size = symbol.size }
  end
end

-- The names a function may have in a symbol table: as the profile writes it, and without the
-- suffixes callgrind adds ("fact'2" for recursion levels, "f'caller" with --separate-callers)
-- or the symbol version valgrind keeps ("_IO_file_sync@@GLIBC_2.2.5").
local function symbol_names(name)
  local names = { [name] = true }
  local plain = name:match("^(.-)'") or name
  plain = plain:gsub("@.*$", "")
  if plain ~= "" then names[plain] = true end
  return names
end

--- The symbols of the object at `path` that may be the function `name`: from its symbol
--- table, else from its separate debug file, else from its dynamic symbols. Returns the list
--- ({name =, addr =, size =}, ...) and the debug file read, if any. `cache` (a table, or nil)
--- keeps what was read of the object for the next call with the same cache.
function object.symbols(objdump, path, name, debug_dir, cache)
  local wanted, list = symbol_names(name), {}
  read_symbols(objdump, path, wanted, false, list, cache)
  if #list > 0 then return list end
  local debug
  local debug_key = objdump .. "\0" .. path .. "\0debug"
  if cache and cache[debug_key] ~= nil then
    debug = cache[debug_key] or nil
  else
    debug = object.debug_file(objdump, path, debug_dir)
    if cache then cache[debug_key] = debug or false end
  end
  if debug then
    read_symbols(objdump, debug, wanted, false, list, cache)
    if #list > 0 then return list, debug end
  end
  read_symbols(objdump, path, wanted, true, list, cache)
  return list
end

---------------------------------------------------------------------------
-- Placing the function
---------------------------------------------------------------------------

-- The load offsets worth trying: the one given, else none (0), then every whole number of
-- pages between a symbol and an address the profile gives for the function's start.
local function offsets(symbols, starts, offset)
  if offset then return { offset } end
  local list, seen = { 0 }, { [0] = true }
  for _, start in ipairs(starts) do
    for _, symbol in ipairs(symbols) do
      local shift = start - symbol.addr
      if shift > 0 and shift % PAGE == 0 and not seen[shift] then
        seen[shift] = true
        list[#list + 1] = shift
      end
    end
  end
  return list
end

local function holds(symbol, addr)
  return addr >= symbol.addr and (symbol.size == 0 or addr < symbol.addr + symbol.size)
end

--- Which symbol is the function's, and the load offset of the profile's addresses:
--- `span` = {low =, entries = {...}} (profile addresses: the lowest one, and where callers
--- enter the function), `symbols` from object.symbols, `offset` a load offset the caller knows
--- (nil: find it). A called function's symbol starts where its callers enter it; one nobody
--- calls must hold its lowest address. Returns { symbol =, offset = }, or nil.
function object.place(span, symbols, offset)
  local entries = span.entries or {}
  local starts = #entries > 0 and entries or { span.low }
  for _, shift in ipairs(offsets(symbols, starts, offset)) do
    for _, symbol in ipairs(symbols) do
      if #entries > 0 then
        for _, entry in ipairs(entries) do
          if entry - shift == symbol.addr then return { symbol = symbol, offset = shift } end
        end
      elseif holds(symbol, span.low - shift) then
        return { symbol = symbol, offset = shift }
      end
    end
  end
  return nil
end

return object
