-- Test helper: builds the programs in spec/programs, profiles them with
-- valgrind (callgrind and cachegrind) and reads callgrind_annotate's output,
-- so specs can compare our numbers with the reference tools on real files.
--
--   local vg = require "helpers.valgrind"
--   if vg.available() then
--     local files = vg.profile("callgrind_default")   -- list of output paths
--     local ca = vg.annotate(files[1], { inclusive = true })
--   end
--
-- Everything lands in one private directory per run (removed when the Lua
-- state closes, unless CALLGRIND_SPEC_KEEP is set). Builds and profiles are
-- cached, so each program is compiled and each configuration run once.
--
-- Runs on Lua 5.1-5.4 and LuaJIT.

local fixtures = require "helpers.fixtures"
local run = require "helpers.run"

local M = {}

---------------------------------------------------------------------------
-- Shell helpers
---------------------------------------------------------------------------

local quote = run.quote
M.quote = quote

-- The tools run here (gcc, valgrind, callgrind_annotate) must not inherit a preloaded
-- sanitizer runtime: `make sanitize` preloads one for the Lua process only.
local function tool(command)
  if not os.getenv("LD_PRELOAD") then return command end
  return "env -u LD_PRELOAD sh -c " .. quote(command)
end

local function execute(command)
  return run.status(tool(command)) == 0
end

local read_file = fixtures.try_read
M.read_file = read_file

local function file_size(path)
  local fh = io.open(path, "rb")
  if not fh then
    return nil
  end
  local size = fh:seek("end")
  fh:close()
  return size
end

local function on_path(program)
  return execute("command -v " .. quote(program) .. " >/dev/null 2>&1")
end

local available_cache
function M.available()
  -- under memcheck the specs run without valgrind's own tools (valgrind does not nest)
  if os.getenv("CALLGRIND_SPEC_NO_VALGRIND") then return false end
  if available_cache == nil then
    available_cache = on_path("gcc") and on_path("valgrind") and on_path("callgrind_annotate")
  end
  return available_cache
end

---------------------------------------------------------------------------
-- Private work directory
---------------------------------------------------------------------------

local work_dir
local cleanup_sentinel

local function remove_tree(path, marker)
  execute("rm -rf " .. quote(path) .. " 2>/dev/null")
  os.remove(marker)
end

-- os.tmpname() creates (on 5.4 and LuaJIT) or reserves a unique name; we keep
-- that file as a marker and put the directory next to it, so no other process
-- can race us for the directory name.
local function get_work_dir()
  if work_dir then
    return work_dir
  end
  local marker = os.tmpname()
  local dir = marker .. ".d"
  assert(execute("mkdir -p " .. quote(dir .. "/ca-cwd")), "cannot create " .. dir)
  work_dir = dir
  if not os.getenv("CALLGRIND_SPEC_KEEP") then
    -- Finalizers run when the state closes (busted exits with os.exit(code, true)).
    local function cleanup()
      remove_tree(dir, marker)
    end
    if newproxy then -- Lua 5.1 / LuaJIT: tables have no __gc there
      cleanup_sentinel = newproxy(true)
      getmetatable(cleanup_sentinel).__gc = cleanup
    else
      cleanup_sentinel = setmetatable({}, { __gc = cleanup })
    end
    M._cleanup_sentinel = cleanup_sentinel
  end
  return dir
end
M.work_dir = get_work_dir

---------------------------------------------------------------------------
-- Programs
---------------------------------------------------------------------------

local function helper_dir()
  local source = debug.getinfo(1, "S").source
  local dir = source:match("^@(.*)/[^/]*$") or "."
  if dir:sub(1, 1) ~= "/" then
    local pipe = io.popen("pwd")
    local cwd = pipe:read("*l")
    pipe:close()
    dir = cwd .. "/" .. dir
  end
  return dir
end

local programs_dir = helper_dir():gsub("/helpers$", "") .. "/programs"
M.programs_dir = programs_dir

-- How each program is built. Sources are compiled by absolute path, so the
-- profiles name them as /.../spec/programs/<file>.
local programs = {
  -- -O0 keeps every recursive call a real call (gcc turns fact into a loop at -O2).
  recursion = { sources = { "recursion.c" }, flags = "-g -O0" },
  -- -O2 plus always_inline: mix() from inline.h is inlined (fi=/fe= lines).
  inline = { sources = { "inline.c" }, flags = "-g -O2" },
  threads = { sources = { "threads.c" }, flags = "-g -O1 -pthread" },
  -- work that grows with the program's argument in one function only
  workload = { sources = { "workload.c" }, flags = "-g -O1" },
  -- the same without the client-request dump: one dump holding all threads
  threads_nodump = { sources = { "threads.c" }, flags = "-g -O1 -pthread -DTHREADS_NO_DUMP" },
  -- a loop with branches and many calls of libc's string functions, for the machine-code view;
  -- -DREBUILT changes count_words (asm.c)
  asm = { sources = { "asm.c" }, flags = "-g -O1" },
  -- main program (two files) + libmulti.so, found through an rpath.
  multi = {
    sources = { "multi_main.c", "multi_util.c" },
    flags = "-g -O1",
    library = { name = "libmulti.so", sources = { "multi_lib.c" }, flags = "-g -O1 -fPIC -shared" },
  },
}

local function compile(output, sources, flags, extra)
  local dir = get_work_dir()
  local parts = { "gcc", flags, "-o", quote(output) }
  for _, source in ipairs(sources) do
    parts[#parts + 1] = quote(programs_dir .. "/" .. source)
  end
  parts[#parts + 1] = extra or ""
  local log = dir .. "/gcc.log"
  local command = table.concat(parts, " ") .. " >" .. quote(log) .. " 2>&1"
  if not execute(command) then
    error("build failed: " .. command .. "\n" .. (read_file(log) or ""), 0)
  end
end

--- Builds `name` again with `extra_flags` added, as `name` + "." + `tag` in the work
--- directory (the program built by M.build stays as it is); returns its path.
function M.build_variant(name, tag, extra_flags)
  local program = programs[name]
  if not program or program.library then
    error("no variant of program '" .. tostring(name) .. "'", 2)
  end
  local binary = get_work_dir() .. "/" .. name .. "." .. tag
  compile(binary, program.sources, program.flags .. " " .. extra_flags)
  return binary
end

local built = {}
function M.build(name)
  if built[name] then
    return built[name]
  end
  local program = programs[name]
  if not program then
    error("unknown program '" .. tostring(name) .. "'", 2)
  end
  local dir = get_work_dir()
  local extra
  if program.library then
    local lib = program.library
    compile(dir .. "/" .. lib.name, lib.sources, lib.flags)
    local link_name = lib.name:match("^lib(.-)%.so$")
    extra = "-L" .. quote(dir) .. " -l" .. link_name .. " -Wl,-rpath," .. quote(dir)
  end
  local binary = dir .. "/" .. name
  compile(binary, program.sources, program.flags, extra)
  built[name] = binary
  return binary
end

---------------------------------------------------------------------------
-- Profiling configurations
---------------------------------------------------------------------------

-- Every configuration the specs run. `tool` is callgrind unless given;
-- `files` says how many non-empty output files valgrind writes.
local configs = {
  {
    name = "callgrind_default", program = "recursion", args = {},
    about = "line positions, self and mutual recursion ('2 names), one file",
    files = 1,
  },
  {
    name = "callgrind_instr_jumps", program = "recursion",
    args = { "--dump-instr=yes", "--collect-jumps=yes" },
    about = "positions: instr line, jump=/jcnd= with address targets",
    files = 1,
  },
  {
    name = "callgrind_line_jumps", program = "recursion", args = { "--collect-jumps=yes" },
    about = "positions: line, jump=/jcnd= with line-only targets",
    files = 1,
  },
  {
    name = "callgrind_cache_branch", program = "recursion",
    args = { "--cache-sim=yes", "--branch-sim=yes" },
    about = "13 events (Ir Dr Dw I1mr ... Bim), summary may exceed totals",
    files = 1,
  },
  {
    name = "callgrind_threads_separate", program = "threads", args = { "--separate-threads=yes" },
    about = "one file per thread (-01..-04) plus the client-request dump .1-01; empty base file",
    files = 5, empty_base = true,
  },
  {
    name = "callgrind_threads_combined", program = "threads",
    args = { "--separate-threads=yes", "--combine-dumps=yes" },
    about = "one file, five sections (part 1 thread 1, part 2 threads 1-4), IDs defined in earlier sections",
    files = 1,
  },
  {
    name = "callgrind_threads_combined_single", program = "threads_nodump",
    args = { "--separate-threads=yes", "--combine-dumps=yes" },
    about = "one file, four sections of part 1, each thread repeating the file header",
    files = 1,
  },
  {
    name = "callgrind_client_dump", program = "threads", args = {},
    about = "CALLGRIND_DUMP_STATS_AT: .1 file (part 1) and final file (part 2, calls=0 lines)",
    files = 2,
  },
  {
    name = "callgrind_inline", program = "inline", args = {},
    about = "fi=/fe= blocks for code inlined from inline.h",
    files = 1,
  },
  {
    name = "callgrind_multi_object", program = "multi", args = { "--dump-instr=yes" },
    about = "program + shared library, same static name in three files, clamp() in two objects",
    files = 1,
  },
  {
    name = "callgrind_asm", program = "asm",
    args = { "--dump-instr=yes", "--collect-jumps=yes" },
    about = "instruction costs and jumps of a loop and of libc's strlen and strcat, for the machine code",
    files = 1,
  },
  {
    name = "callgrind_workload_small", program = "workload", args = {}, program_args = { "10" },
    about = "a run with a small input, the base of a difference",
    files = 1,
  },
  {
    name = "callgrind_workload_large", program = "workload", args = {}, program_args = { "50" },
    about = "the same program with a larger input: scaled() does five times the work",
    files = 1,
  },
  {
    name = "cachegrind_sim", program = "recursion", tool = "cachegrind",
    args = { "--cache-sim=yes", "--branch-sim=yes" },
    about = "cachegrind.out with Ir I1mr ILmr Dr ... Bim, summary: last",
    files = 1,
  },
  {
    name = "cachegrind_plain", program = "inline", tool = "cachegrind", args = {},
    about = "cachegrind defaults (3.19: cache simulation on), inlined code as fl=<header> fn=main",
    files = 1,
  },
  {
    name = "cachegrind_no_sim", program = "multi", tool = "cachegrind", args = { "--cache-sim=no" },
    about = "cachegrind with only Ir",
    files = 1,
  },
}

local config_by_name = {}
for _, config in ipairs(configs) do
  config.tool = config.tool or "callgrind"
  config_by_name[config.name] = config
end

function M.configs()
  local list = {}
  for i, config in ipairs(configs) do
    list[i] = config
  end
  return list
end

function M.config(name)
  return config_by_name[name]
end

local function list_dir(dir, prefix)
  local pipe = io.popen("ls -1 " .. quote(dir) .. " 2>/dev/null")
  local found = {}
  for entry in pipe:lines() do
    if entry:sub(1, #prefix) == prefix then
      found[#found + 1] = dir .. "/" .. entry
    end
  end
  pipe:close()
  table.sort(found)
  return found
end

-- Runs valgrind once per configuration and returns the non-empty output
-- files sorted by name ("x.out.<pid>" < "x.out.<pid>-01" < "x.out.<pid>.1"
-- < "x.out.<pid>.1-01": '-' sorts before '.'), and as a second value the
-- empty files (with --separate-threads valgrind leaves the base file behind
-- with 0 bytes).
local profiled = {}
function M.profile(config_name)
  local cached = profiled[config_name]
  if cached then
    return cached.files, cached.empty
  end
  local config = config_by_name[config_name]
  if not config then
    error("unknown configuration '" .. tostring(config_name) .. "'", 2)
  end
  local dir = get_work_dir()
  local binary = M.build(config.program)
  local prefix = config.name .. ".out."
  local out_option = config.tool == "cachegrind" and "--cachegrind-out-file=" or "--callgrind-out-file="
  local log = dir .. "/" .. config.name .. ".log"
  local parts = { "cd", quote(dir), "&&", "valgrind", "--tool=" .. config.tool, "-q" }
  for _, arg in ipairs(config.args) do
    parts[#parts + 1] = quote(arg)
  end
  parts[#parts + 1] = quote(out_option .. dir .. "/" .. prefix .. "%p")
  parts[#parts + 1] = quote(binary)
  for _, arg in ipairs(config.program_args or {}) do
    parts[#parts + 1] = quote(arg)
  end
  local command = table.concat(parts, " ") .. " >" .. quote(log) .. " 2>&1"
  if not execute(command) then
    error("valgrind failed: " .. command .. "\n" .. (read_file(log) or ""), 0)
  end
  local files, empty = {}, {}
  for _, path in ipairs(list_dir(dir, prefix)) do
    if file_size(path) == 0 then
      empty[#empty + 1] = path
    else
      files[#files + 1] = path
    end
  end
  if #files == 0 then
    error("valgrind wrote no output for " .. config.name .. ": " .. command, 0)
  end
  profiled[config_name] = { files = files, empty = empty }
  return files, empty
end

---------------------------------------------------------------------------
-- callgrind_annotate output parser
---------------------------------------------------------------------------

-- "12,345" -> 12345, "." -> 0 (CA prints "." for an event never counted).
-- tonumber on the digits gives an integer on Lua 5.3+ (exact to 2^63) and
-- a double on 5.1/LuaJIT (exact to 2^53).
local function parse_count(text)
  if text == "." then
    return 0
  end
  local digits = text:gsub(",", "")
  local value = tonumber(digits)
  if value == nil then
    error("bad count '" .. text .. "'", 0)
  end
  return value
end
M.parse_count = parse_count

-- Reads `count` cost columns from `line` starting at `pos`. CA prints each
-- column right-aligned as `<count>` or `<count> (<percent>%)` (zero and "."
-- counts get blanks instead of a percentage), then one space. Percentages
-- look like "(11.94%)", "( 8.52%)", "(100.0%)" or "(-10.0%)".
local function read_columns(line, pos, events)
  local costs = {}
  for i = 1, #events do
    local s, e = line:find("^%s*%-?[%d,]+", pos)
    if not s then
      s, e = line:find("^%s*%.", pos)
    end
    if not s then
      return nil, "expected " .. #events .. " cost columns in: " .. line
    end
    costs[events[i]] = parse_count(line:sub(s, e):match("^%s*(.-)$"))
    pos = e + 1
    local _, pe = line:find("^ %(%s*%-?[%d%.]+%%%)", pos)
    if pe then
      pos = pe + 1
    end
  end
  return costs, pos
end

-- Splits CA's "file:function" key. CA builds it as file .. ":" .. function.
-- Function names may contain ':' (C++ "ns::f", PHP "php::strlen",
-- "require_once::D:\x.php"), and so may file names (Windows "D:\x.php",
-- Xdebug's pseudo-file "php:internal"), so no single rule is right for all:
--   1. if `known_files` (a set of file names) is given, the shortest prefix
--      that is a known file wins;
--   2. otherwise a leading Windows drive ("D:\" or "D:/") is skipped and the
--      key is split at the next ':';
--   3. otherwise at the first ':'. Callgrind output from Linux writes paths
--      without ':' (or "???"), so this is exact for the profiles we generate.
local function split_key(key, known_files)
  if known_files then
    local pos = 1
    while true do
      local colon = key:find(":", pos, true)
      if not colon then
        break
      end
      if known_files[key:sub(1, colon - 1)] then
        return key:sub(1, colon - 1), key:sub(colon + 1)
      end
      pos = colon + 1
    end
  end
  local start = 1
  if key:find("^%a:[\\/]") then
    start = 3
  end
  local colon = key:find(":", start, true)
  if not colon then
    return "", key
  end
  return key:sub(1, colon - 1), key:sub(colon + 1)
end
M.split_key = split_key

-- Parses what follows the cost columns: "file:function", then for
-- callers/callees " (<n>x)", then " [object]" when CA knows the object.
-- The object is taken as the last " [...]" that ends the line (function
-- names like "0x1040 [PLT]" keep their own brackets when an object follows);
-- opts.no_objects turns this off for files whose names end in brackets but
-- have no object (pprof's "line2000 [1/2]" under an empty ob=).
local function parse_name(text, with_count, opts)
  local object
  if not opts.no_objects and text:sub(-1) == "]" then
    local s = text:find(" %[[^%[%]]*%]$")
    if s then
      object = text:sub(s + 2, -2)
      text = text:sub(1, s - 1)
    end
  end
  local count
  if with_count then
    local rest, digits = text:match("^(.*) %(([%d,]+)x%)$")
    if rest then
      text, count = rest, parse_count(digits)
    end
  end
  local file, name = split_key(text, opts.files)
  return { key = text, file = file, name = name, object = object, count = count }
end

-- Parses the text printed by callgrind_annotate (flat or --tree) into
--   { events = {...}, recorded = {...}, totals = {ev = n}, calculated = bool,
--     rows = { {key=, file=, name=, object=, costs={ev = n},
--               callers = {...}, callees = {...}} ... },
--     by_key = { [key] = row } }
-- callers/callees (tree mode only) are lists of
--   {key=, file=, name=, object=, count=, costs=}.
-- opts: files = set of known file names (for split_key), no_objects.
function M.parse_annotate(text, opts)
  opts = opts or {}
  local result = { rows = {}, by_key = {}, totals = {}, calculated = false }
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    lines[#lines + 1] = line
  end
  local i = 1
  while i <= #lines and not result.events do
    local line = lines[i]
    local recorded = line:match("^Events recorded:%s*(.-)%s*$")
    if recorded then
      result.recorded = {}
      for ev in recorded:gmatch("%S+") do
        result.recorded[#result.recorded + 1] = ev
      end
    end
    local shown = line:match("^Events shown:%s*(.-)%s*$")
    if shown then
      result.events = {}
      for ev in shown:gmatch("%S+") do
        result.events[#result.events + 1] = ev
      end
    end
    i = i + 1
  end
  if not result.events then
    return nil, "no 'Events shown:' line"
  end
  local events = result.events

  -- PROGRAM TOTALS
  while i <= #lines and not lines[i]:find("PROGRAM TOTALS", 1, true) do
    i = i + 1
  end
  if i > #lines then
    return nil, "no PROGRAM TOTALS line"
  end
  local totals, pos = read_columns(lines[i], 1, events)
  if not totals then
    return nil, pos
  end
  result.totals = totals
  result.calculated = lines[i]:find("PROGRAM TOTALS (calculated)", pos, true) ~= nil
  i = i + 1

  -- Function listing: header "... file:function", a dashed line, then rows
  -- until the next dashed line or the end. In tree mode groups are
  -- separated by blank lines; callers ("< ") come before the function row
  -- ("* "), callees (">   ") after it.
  while i <= #lines and not lines[i]:find("file:function%s*$") do
    i = i + 1
  end
  i = i + 2
  local pending_callers = {}
  local current
  while i <= #lines do
    local line = lines[i]
    if line:find("^%-%-%-%-%-%-%-%-%-%-") then
      break
    end
    if line:find("%S") then
      local costs, rest = read_columns(line, 1, events)
      if not costs then
        return nil, "line " .. i .. ": " .. rest
      end
      rest = line:sub(rest):gsub("^ +", "")
      local marker, body = rest:match("^([%*<>])( .*)$")
      if opts.tree == false or not marker then
        marker, body = nil, rest
      end
      if marker == "<" or marker == ">" then
        local entry = parse_name(body:gsub("^ +", ""), true, opts)
        entry.costs = costs
        if marker == "<" then
          pending_callers[#pending_callers + 1] = entry
        else
          if not current then
            return nil, "line " .. i .. ": callee before any function"
          end
          current.callees = current.callees or {}
          current.callees[#current.callees + 1] = entry
        end
      else
        local row = parse_name(body:gsub("^ +", ""), false, opts)
        row.costs = costs
        if marker == "*" then
          row.callers = pending_callers
          row.callees = {}
          pending_callers = {}
        end
        result.rows[#result.rows + 1] = row
        result.by_key[row.key] = row
        current = row
      end
    end
    i = i + 1
  end
  return result
end

-- Runs callgrind_annotate on `path` and parses its output.
-- opts: inclusive (bool), tree ("caller"|"calling"|"both"), args (list of
-- extra arguments), plus the parse options above.
--
-- CA strips the current directory from fl=/fi=/fe= names (not from cfi=),
-- so running it from a directory that prefixes the profiled sources would
-- rename files and even split one function into two keys. It runs from an
-- empty directory of its own inside the work directory, which prefixes no
-- name in any profile, so file names stay exactly as written.
function M.annotate(path, opts)
  opts = opts or {}
  local dir = get_work_dir()
  local parts = { "cd", quote(dir .. "/ca-cwd"), "&&", "callgrind_annotate", "--threshold=100", "--auto=no" }
  if opts.inclusive then
    parts[#parts + 1] = "--inclusive=yes"
  end
  if opts.tree then
    parts[#parts + 1] = "--tree=" .. opts.tree
  end
  for _, arg in ipairs(opts.args or {}) do
    parts[#parts + 1] = quote(arg)
  end
  parts[#parts + 1] = quote(path)
  local err_path = dir .. "/ca.stderr"
  local command = table.concat(parts, " ") .. " 2>" .. quote(err_path)
  local pipe = io.popen(tool(command))
  local text = pipe:read("*a")
  pipe:close()
  local result, err = M.parse_annotate(text, opts)
  if not result then
    error("callgrind_annotate: " .. err .. "\n" .. command .. "\n" .. (read_file(err_path) or ""), 0)
  end
  result.stderr = read_file(err_path) or ""
  result.text = text
  return result
end

---------------------------------------------------------------------------
-- A small independent reader of the raw profile text
---------------------------------------------------------------------------

-- Specs work out expected values (recursion, calls=0 costs, which functions
-- callgrind_annotate can be compared with) from the records in the file
-- itself, not from the module under test. The rules it follows: three
-- name tables (files, functions, objects) for the whole file, since
-- callgrind's combined dumps use IDs defined in earlier sections (last
-- definition wins); one "last" value per position column, updated by every
-- position line (self cost, call cost, jump source) and never by
-- calls=/jump=/jcnd= targets; cob/cfi cleared after each call; fi/fe change
-- only the line file; fn= goes back to the fl= file. It raises on anything
-- it does not know.
--
-- Returns {
--   events = {...}            -- union of event names, in first-seen order
--   sections = { {events=, summary=, totals=, part=, thread=, events_line=,
--                 header = { key = trimmed value } (lines before events:)} }
--   functions = { [fkey] = fn }, function_list = { fn, ... }
--     fn = { key=, name=, file=, object=, self = {ev=n},
--            lines = { [file .. "\0" .. line .. "\0" .. addr] = {file=, line=, addr=, costs=} },
--            ca_self = { [ca_key] = {ev=n} },      -- self cost by CA key (fi/fe file:name)
--            calls_out = {call...}, calls_in = {call...}, jumps = {jump...} }
--   calls = { {caller=fn, callee=fn, count=, costs=, file=, line=, addr=, ca_key=} }
--   total = {ev = n}           -- sum of self costs
-- }
-- fkey = object .. "\0" .. fl-file .. "\0" .. name (object "" for cachegrind).
function M.read_raw(path)
  local text = assert(read_file(path), "cannot read " .. path)
  local tables = { file = {}, fn = {}, ob = {} }
  local line_no = 0
  local function fail(message)
    error(path .. ":" .. line_no .. ": " .. message, 0)
  end
  local function name_of(kind, value)
    local id, rest = value:match("^%((%d+)%)%s*(.*)$")
    if not id then
      return value
    end
    if rest == "" then
      local known = tables[kind][id]
      if known == nil then
        fail("undefined " .. kind .. " id " .. id)
      end
      return known
    end
    tables[kind][id] = rest
    return rest
  end

  local raw = { events = {}, sections = {}, functions = {}, function_list = {}, calls = {}, total = {} }
  local seen_event = {}
  local section
  local columns = { "line" }
  local last = {}
  local object, fl_file, file = "", nil, nil
  local current
  local callee_object, callee_file, callee_name
  local pending -- { kind = "call"|"jump", ... }
  local next_part, next_thread
  local header = {} -- header lines since the previous section's events: line

  local function get_function(name)
    local fobject, ffile = object, fl_file or "???"
    local key = fobject .. "\0" .. ffile .. "\0" .. name
    local fn = raw.functions[key]
    if not fn then
      fn = { key = key, name = name, file = ffile, object = fobject, self = {}, lines = {}, ca_self = {},
        calls_out = {}, calls_in = {}, jumps = {} }
      raw.functions[key] = fn
      raw.function_list[#raw.function_list + 1] = fn
    end
    return fn
  end

  local function add(into, costs)
    for ev, value in pairs(costs) do
      into[ev] = (into[ev] or 0) + value
    end
  end

  local function number(token)
    if token:find("^0x") then
      return tonumber(token:sub(3), 16)
    end
    return tonumber(token)
  end

  -- Decodes position tokens starting at index `first` against `last`.
  local function decode_positions(tokens, first)
    local pos = {}
    for c = 1, #columns do
      local token = tokens[first + c - 1]
      if token == nil then
        fail("missing position")
      end
      local value
      local base = last[c] or 0
      if token == "*" then
        value = base
      elseif token:find("^%+") then
        value = base + number(token:sub(2))
      elseif token:find("^%-") then
        value = base - number(token:sub(2))
      else
        value = number(token)
      end
      if value == nil then
        fail("bad position '" .. token .. "'")
      end
      pos[columns[c]] = value
    end
    return pos
  end

  local function costs_of(tokens, first)
    local costs = {}
    local names = section and section.events or fail("cost line before events:")
    for i = first, #tokens do
      local ev = names[i - first + 1] or fail("too many costs")
      costs[ev] = tonumber(tokens[i]) or fail("bad cost '" .. tokens[i] .. "'")
    end
    return costs
  end

  local function cost_list(value)
    local names = section and section.events or fail("summary/totals before events:")
    local costs, i = {}, 0
    for token in value:gmatch("%S+") do
      i = i + 1
      costs[names[i] or fail("too many costs")] = tonumber(token) or fail("bad cost")
    end
    for _, ev in ipairs(names) do
      costs[ev] = costs[ev] or 0
    end
    return costs
  end

  for line in (text:sub(-1) == "\n" and text or text .. "\n"):gmatch("([^\n]*)\n") do
    line_no = line_no + 1
    local first = line:sub(1, 1)
    if line:find("^%s*$") or first == "#" then
      -- blank or comment
    elseif first:find("[%d%+%-%*]") then
      local tokens = {}
      for token in line:gmatch("%S+") do
        tokens[#tokens + 1] = token
      end
      local pos = decode_positions(tokens, 1)
      for c = 1, #columns do
        last[c] = pos[columns[c]]
      end
      if not current then
        fail("cost line before fn=")
      end
      local ca_key = (file or "???") .. ":" .. current.name
      if pending and pending.kind == "jump" then
        local target = pending.target
        current.jumps[#current.jumps + 1] = {
          from_line = pos.line, from_addr = pos.instr, to_line = target.line, to_addr = target.instr,
          executed = pending.executed, taken = pending.taken, conditional = pending.conditional,
        }
        pending = nil
      else
        local costs = costs_of(tokens, #columns + 1)
        if pending and pending.kind == "call" then
          local callee_key_object = callee_object or object
          local cfile = callee_file or file or "???"
          local ckey = callee_key_object .. "\0" .. cfile .. "\0" .. pending.callee_name
          local callee = raw.functions[ckey]
          if not callee then
            callee = { key = ckey, name = pending.callee_name, file = cfile, object = callee_key_object,
              self = {}, lines = {}, ca_self = {}, calls_out = {}, calls_in = {}, jumps = {} }
            raw.functions[ckey] = callee
            raw.function_list[#raw.function_list + 1] = callee
          end
          local call = { caller = current, callee = callee, count = pending.count, costs = costs,
            file = file, line = pos.line, addr = pos.instr, ca_key = ca_key,
            callee_ca_key = cfile .. ":" .. pending.callee_name }
          raw.calls[#raw.calls + 1] = call
          current.calls_out[#current.calls_out + 1] = call
          callee.calls_in[#callee.calls_in + 1] = call
          callee_object, callee_file = nil, nil
          pending = nil
        else
          add(current.self, costs)
          add(raw.total, costs)
          current.ca_self[ca_key] = current.ca_self[ca_key] or {}
          add(current.ca_self[ca_key], costs)
          local lkey = (file or "???") .. "\0" .. tostring(pos.line) .. "\0" .. tostring(pos.instr)
          local record = current.lines[lkey]
          if not record then
            record = { file = file or "???", line = pos.line, addr = pos.instr, costs = {} }
            current.lines[lkey] = record
          end
          add(record.costs, costs)
        end
      end
    else
      local key, value = line:match("^(%a+)=(.*)$")
      if key then
        if pending then
          -- valgrind writes the position line right after calls=/jump=/jcnd=
          fail("'" .. key .. "=' while a " .. pending.kind .. " waits for its position line")
        end
        if key == "ob" then
          object = name_of("ob", value)
        elseif key == "fl" then
          fl_file = name_of("file", value)
          file = fl_file
        elseif key == "fi" or key == "fe" then
          file = name_of("file", value)
        elseif key == "fn" then
          file = fl_file
          current = get_function(name_of("fn", value))
        elseif key == "cob" then
          callee_object = name_of("ob", value)
        elseif key == "cfi" or key == "cfl" then
          callee_file = name_of("file", value)
        elseif key == "cfn" then
          callee_name = name_of("fn", value)
        elseif key == "jfi" then
          name_of("file", value)
        elseif key == "jfn" then
          name_of("fn", value)
        elseif key == "calls" then
          local count = value:match("^(%d+)")
          if not count then
            fail("bad calls= line")
          end
          pending = { kind = "call", count = tonumber(count), callee_name = callee_name }
        elseif key == "jump" or key == "jcnd" then
          local taken, executed, rest
          if key == "jump" then
            executed, rest = value:match("^(%d+)%s+(.*)$")
            taken = executed
          else
            taken, executed, rest = value:match("^(%d+)/(%d+)%s+(.*)$")
          end
          if not rest then
            fail("bad " .. key .. "= line")
          end
          local tokens = {}
          for token in rest:gmatch("%S+") do
            tokens[#tokens + 1] = token
          end
          pending = { kind = "jump", executed = tonumber(executed), taken = tonumber(taken),
            conditional = key == "jcnd", target = decode_positions(tokens, 1) }
        else
          fail("unknown line '" .. line .. "'")
        end
      else
        local hkey, hvalue = line:match("^([%w_]+):%s*(.-)%s*$")
        if not hkey then
          fail("unknown line '" .. line .. "'")
        end
        if hkey == "events" then
          section = { events = {}, header = header, events_line = line_no }
          header = {}
          raw.sections[#raw.sections + 1] = section
          for ev in hvalue:gmatch("%S+") do
            section.events[#section.events + 1] = ev
            if not seen_event[ev] then
              seen_event[ev] = true
              raw.events[#raw.events + 1] = ev
            end
          end
          section.part, section.thread = next_part, next_thread
          next_part, next_thread = nil, nil
          -- a new part starts with absolute positions in every writer we know
          last = {}
        elseif hkey == "positions" then
          columns = {}
          for column in hvalue:gmatch("%S+") do
            columns[#columns + 1] = column == "addr" and "instr" or column
          end
        elseif hkey == "part" then
          next_part = tonumber(hvalue)
        elseif hkey == "thread" then
          next_thread = tonumber(hvalue)
        elseif hkey == "summary" then
          section.summary = cost_list(hvalue)
        elseif hkey == "totals" then
          section.totals = cost_list(hvalue)
        end
        if hkey ~= "summary" and hkey ~= "totals" and hkey ~= "events" then
          header[hkey] = hvalue
        end
      end
    end
  end
  if pending then
    fail("file ends while a " .. pending.kind .. " waits for its cost line")
  end
  return raw
end

-- Strongly connected components of the raw call graph (Tarjan, self-edges
-- ignored). Returns { [fn] = component } for functions in a component with
-- at least two members, and { [fn] = true } for functions calling themselves.
function M.raw_cycles(raw)
  local index, low, on_stack, stack = {}, {}, {}, {}
  local counter = 0
  local in_cycle, self_calling = {}, {}
  local function connect(fn)
    counter = counter + 1
    index[fn], low[fn] = counter, counter
    stack[#stack + 1] = fn
    on_stack[fn] = true
    for _, call in ipairs(fn.calls_out) do
      local callee = call.callee
      if callee == fn then
        self_calling[fn] = true
      elseif not index[callee] then
        connect(callee)
        if low[callee] < low[fn] then
          low[fn] = low[callee]
        end
      elseif on_stack[callee] and index[callee] < low[fn] then
        low[fn] = index[callee]
      end
    end
    if low[fn] == index[fn] then
      local component = {}
      repeat
        local member = table.remove(stack)
        on_stack[member] = nil
        component[#component + 1] = member
      until member == fn
      if #component > 1 then
        for _, member in ipairs(component) do
          in_cycle[member] = component
        end
      end
    end
  end
  for _, fn in ipairs(raw.function_list) do
    if not index[fn] then
      connect(fn)
    end
  end
  return in_cycle, self_calling
end

return M
