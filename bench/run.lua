-- bench/run.lua: the benchmark suite behind `make bench` (see bench/README.md).
--
-- Makes the data files once (bench/data/, kept between runs and remade only when their
-- generator's source changes), measures the C loader, the bare tokenizer, the Lua module,
-- `wc -l` and callgrind_annotate on each, the reports and writers on three of them
-- (bench/report_speed.lua), prints the tables and writes bench/results.md (a quick run writes
-- bench/data/results-quick.md instead, so that it never replaces the full results).
--
-- Environment: BENCH_QUICK=1 (only the files of 100 MB and less, the gzip copy and the valgrind
-- profiles), BENCH_BIG=1 (adds a 2 GB file), BENCH_BIN (where gen, driver, tokenize, workload and roundtrip
-- are built), BENCH_CA_TIMEOUT (seconds allowed to callgrind_annotate, 300),
-- BENCH_REPORT_TIMEOUT (seconds allowed to each step of the reports table, 60), BENCH_LUA
-- (interpreter, lua5.4), BENCH_COMMAND (the installed `callgrind` command), BENCH_RESULTS (where
-- the results go), BENCH_ONLY (Lua patterns separated by commas: only the files whose name one
-- of them matches), BENCH_THREADS (the thread counts the loader is also measured with, beyond
-- the one thread of the main tables: "2" by default, "" for none), BENCH_LOAD_ONLY=1 (the C
-- loader, the tokenizer and wc -l only: no Lua, no callgrind_annotate, no reports),
-- BENCH_RUNS (at most this many runs of each program per file).
-- Run from the repository root with LUA_PATH and LUA_CPATH set as the Makefile's test target
-- sets them.

local QUICK = os.getenv("BENCH_QUICK") == "1"
local BIG = os.getenv("BENCH_BIG") == "1"
local BIN = os.getenv("BENCH_BIN") or "build/5.4/bench"
local LUA = os.getenv("BENCH_LUA") or "lua5.4"
local CA_TIMEOUT = tonumber(os.getenv("BENCH_CA_TIMEOUT") or "") or 300
-- the `callgrind` command as installed by `make rock`
local COMMAND = os.getenv("BENCH_COMMAND") or (BIN:gsub("/bench$", "") .. "/rock/bin/callgrind")
-- where the results go (default: results.md, or data/results-quick.md for a quick run)
local RESULTS = os.getenv("BENCH_RESULTS")
local DATA = "bench/data"
local MB = 1000000
-- The threads a load takes by default (opts.threads): the cores, at most 8.
local DEFAULT_THREADS = (function()
  local pipe = io.popen("nproc 2>/dev/null")
  local n = pipe and tonumber(pipe:read("*l") or "")
  if pipe then pipe:close() end
  return math.min(n or 1, 8)
end)()

-- An entry's load with the default threads when the bench measured it (nil on one core).
local function default_load(x)
  return DEFAULT_THREADS > 1 and x.threaded[DEFAULT_THREADS] or nil
end

-- A target's figure on the default load, one thread's beside it.
local function with_one_thread(figure, one)
  return ("%s (%d threads, the default here; one thread %s)"):format(figure, DEFAULT_THREADS, one)
end

local THREADS = {}
for n in (os.getenv("BENCH_THREADS") or "2"):gmatch("%d+") do
  if tonumber(n) > 1 then table.insert(THREADS, tonumber(n)) end
end
local LOAD_ONLY = os.getenv("BENCH_LOAD_ONLY") == "1"
local MAX_RUNS = tonumber(os.getenv("BENCH_RUNS") or "")

-- ---- shell helpers ------------------------------------------------------------------------

local function quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- Runs a shell command; gives its output, and whether it exited with status 0.
local function run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end

local function must(cmd)
  local out, ok = run(cmd)
  if not ok then error("command failed: " .. cmd .. "\n" .. out, 0) end
  return out
end

-- Wall time of a command (bash's `time`, millisecond resolution) and its exit status.
local function timed(cmd)
  local script = "TIMEFORMAT=%3R; { time " .. cmd .. " >/dev/null 2>&1 ; } 2>&1; echo \"rc=$?\""
  local out = run("bash -c " .. quote(script))
  local seconds, rc = out:match("([%d.]+)%s*rc=(%d+)")
  if not seconds then error("cannot time: " .. cmd .. "\n" .. out, 0) end
  return tonumber(seconds), tonumber(rc)
end

-- `key value` lines into a table (numbers where they are numbers); repeated keys into lists.
local function parse_keys(text)
  local t = {}
  for key, value in text:gmatch("(%S+) ([^\n]*)") do
    value = tonumber(value) or value
    if t[key] == nil then
      t[key] = value
    elseif type(t[key]) == "table" then
      table.insert(t[key], value)
    else
      t[key] = { t[key], value }
    end
  end
  return t
end

local function list(v)
  return type(v) == "table" and v or { v }
end

local function median(values)
  local v = {}
  for i, x in ipairs(values) do v[i] = x end
  table.sort(v)
  local n = #v
  if n % 2 == 1 then return v[(n + 1) // 2] end
  return (v[n // 2] + v[n // 2 + 1]) / 2
end

local function file_size(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local size = f:seek("end")
  f:close()
  return size
end

local function exists(path)
  return file_size(path) ~= nil
end

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function write_file(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

local function log(fmt, ...)
  io.stderr:write(fmt:format(...), "\n")
end

-- ---- data files ---------------------------------------------------------------------------

local function md5(paths)
  local out = must("cat " .. table.concat(paths, " ") .. " | md5sum")
  return out:match("^(%x+)")
end

-- Each file is made by a command from some sources; `NAME.stamp` remembers the checksum of the
-- sources and the command, so a file is remade only when they change. Files are made under a
-- temporary name and renamed, so an interrupted run never leaves half a file behind.
local function ensure(path, sources, make)
  local stamp = md5(sources) .. " " .. make.what
  if exists(path) and read_file(path .. ".stamp") == stamp then return false end
  os.remove(path .. ".stamp")
  local tmp = path .. ".part"
  log("making %s (%s)", path, make.what)
  local t0 = os.time()
  make.run(tmp)
  assert(os.rename(tmp, path))
  write_file(path .. ".stamp", stamp)
  log("  %s: %.0f MB in %d s", path, file_size(path) / MB, os.time() - t0)
  return true
end

local function generated(kind, mb)
  local path = ("%s/%s-%d.callgrind"):format(DATA, kind, mb)
  ensure(path, { "bench/gen.c" }, {
    what = ("gen %s %d"):format(kind, mb),
    run = function(tmp) must(("%s/gen %s %d %s"):format(BIN, kind, mb, quote(tmp))) end,
  })
  return path
end

local function gzipped(source)
  local path = source .. ".gz"
  ensure(path, { "bench/gen.c" }, {
    what = "gzip -6 " .. source,
    run = function(tmp) must(("gzip -6 -c %s > %s"):format(quote(source), quote(tmp))) end,
  })
  return path
end

local VALGRIND_OPTIONS = "--dump-instr=yes --collect-jumps=yes --cache-sim=yes --branch-sim=yes "
  .. "--dump-every-bb=10000 --combine-dumps=yes"

local function real_profile()
  local path = DATA .. "/real-workload.callgrind"
  ensure(path, { "bench/workload.c" }, {
    what = "valgrind --tool=callgrind " .. VALGRIND_OPTIONS .. " workload 512",
    run = function(tmp)
      must(("valgrind --tool=callgrind %s --callgrind-out-file=%s %s/workload 512"):format(
        VALGRIND_OPTIONS, quote(tmp), BIN))
    end,
  })
  return path
end

-- A real profile of a big program: valgrind on gcc's compiler proper (cc1) compiling a C file of
-- GCC_FUNCTIONS functions (bench/ccsource.lua), with the options of a thorough run. A few
-- minutes under valgrind; the file is made again when the source's generator or gcc changes.
local GCC_FUNCTIONS = 150
local GCC_VALGRIND_OPTIONS = "--dump-instr=yes --collect-jumps=yes --separate-callers=3 "
  .. "--cache-sim=yes --branch-sim=yes"

local function gcc_profile()
  local cc1 = must("gcc -print-prog-name=cc1"):match("[^\n]+")
  local version = must("gcc -dumpfullversion"):match("[^\n]+")
  local path = DATA .. "/gcc.callgrind"
  local source = DATA .. "/gcc-input.c"
  ensure(path, { "bench/ccsource.lua" }, {
    what = ("valgrind --tool=callgrind %s cc1 (gcc %s) -O2 on %d functions"):format(
      GCC_VALGRIND_OPTIONS, version, GCC_FUNCTIONS),
    run = function(tmp)
      must(("%s bench/ccsource.lua %d %s"):format(LUA, GCC_FUNCTIONS, quote(source)))
      must(("valgrind --tool=callgrind %s --callgrind-out-file=%s --log-file=%s %s -quiet -O2 %s -o /dev/null")
        :format(GCC_VALGRIND_OPTIONS, quote(tmp), quote(DATA .. "/gcc.valgrind.log"), quote(cc1),
          quote(source)))
    end,
  })
  return path
end

-- ---- measurements -------------------------------------------------------------------------

local function warm(path)
  must("cat " .. quote(path) .. " > /dev/null")
end

local function count_lines(path)
  local cmd = path:match("%.gz$") and ("gzip -dc %s | wc -l") or "wc -l < %s"
  return tonumber(must(cmd:format(quote(path))):match("(%d+)"))
end

-- ---- cores -------------------------------------------------------------------------------

-- The cores this process may run on (taskset's list: "0-1", "0,2-3"), or {} without taskset.
local function allowed_cores()
  local out, ok = run("taskset -cp $$")
  local cores = {}
  if not ok then return cores end
  for first, last in (out:match(":%s*([%d,%-]+)") or ""):gmatch("(%d+)%-?(%d*)") do
    for c = tonumber(first), tonumber(last ~= "" and last or first) do cores[#cores + 1] = c end
  end
  return cores
end
local CORES = allowed_cores()

-- The prefix that runs a command on one core (nil: wherever the scheduler puts it).
local function pinned(core)
  return core and ("taskset -c %d "):format(core) or ""
end

-- One run of the C driver on `threads` threads, in a process of its own; `per_thread` adds
-- each thread's processor time (a sampler thread, which would slow the timed runs).
local function run_driver(path, threads, per_thread, core)
  local out, ok = run(("%s%s/driver --threads %d%s %s 1"):format(pinned(core), BIN, threads,
    per_thread and " --per-thread" or "", quote(path)))
  local r = parse_keys(out)
  if not ok or r.error then error("driver failed on " .. path .. ":\n" .. out, 0) end
  return r
end

-- What the runs of the C driver on `threads` threads gave, one run at a time (c_add), and
-- their medians (c_summary).
local function c_runs(threads)
  return { threads = threads, times = {}, reads = {}, cpus = {}, mains = {}, sys_times = {},
    peak = 0 }
end

local function c_add(acc, r)
  table.insert(acc.times, r.load_seconds)
  table.insert(acc.reads, r.read_seconds)
  table.insert(acc.cpus, r.cpu_seconds)
  table.insert(acc.mains, r.main_cpu_seconds)
  table.insert(acc.sys_times, r.sys_seconds)
  acc.peak = math.max(acc.peak, r.peak_rss_kb)
  acc.last = r
end

-- The medians of the runs, and as many runs again for the busiest thread's processor time when
-- there are several threads.
local function c_summary(acc, path)
  local last, longest = acc.last, {}
  -- the busiest thread: the calling one's time on one thread, else the sampler's largest (the
  -- driver prints the largest first)
  if acc.threads == 1 then
    longest = acc.mains
  else
    for _ = 1, #acc.times do
      local r = run_driver(path, acc.threads, true)
      table.insert(longest, list(r.thread_cpu_seconds or r.main_cpu_seconds)[1])
    end
  end
  last.median = median(acc.times)
  last.read_median = median(acc.reads)
  last.cpu_median = median(acc.cpus)
  last.sys_median = median(acc.sys_times)
  -- the calling thread's processor time, the others' and the busiest thread's: what the load
  -- takes on cores of its own is at least the busiest thread's time, and on two cores at least
  -- half the whole
  last.main_median = median(acc.mains)
  last.other_median = last.cpu_median - last.main_median
  last.longest_median = median(longest)
  last.two_cores = math.max(last.longest_median, last.cpu_median / 2)
  last.times = acc.times
  last.peak_rss_kb = acc.peak
  return last
end

-- One run of the bare tokenizer (bench/tokenize.c: the core's reader, every number parsed,
-- nothing kept), in a process of its own: the floor a loader is measured against.
local function run_tokenizer(path, core)
  local out, ok = run(("%s%s/tokenize %s 1"):format(pinned(core), BIN, quote(path)))
  local r = parse_keys(out)
  if not ok or r.error then error("tokenize failed on " .. path .. ":\n" .. out, 0) end
  return r
end

-- The core the runs on one thread are pinned to: of the cores this process may use, the one
-- where the tokenizer reads `path` fastest (median of ROUNDS runs on each, in turns). A virtual
-- machine's cores are not equally fast at all times (this host's first core at times took
-- 1.4-1.5x the second's time for the same run, alone or beside the other): a load over the
-- tokenizer, and one thread over two, compare runs on one core, the faster. Gives the core (nil
-- where the cores cannot be chosen) and the tokenizer's median time on each.
local function fastest_core(path)
  local ROUNDS = 3
  if #CORES < 2 then return nil, {} end
  local times = {}
  for _, core in ipairs(CORES) do times[core] = {} end
  for _ = 1, ROUNDS do
    for _, core in ipairs(CORES) do table.insert(times[core], run_tokenizer(path, core).seconds) end
  end
  local best
  for _, core in ipairs(CORES) do
    times[core] = median(times[core])
    if not best or times[core] < times[best] then best = core end
  end
  return best, times
end

-- The tokenizer, the C driver on one thread and on each of THREADS, and (`also`) the loads of
-- other files on one thread and on the default threads, in `runs` rounds of one run each: a
-- ratio of two of them (a load over the tokenizer, one thread over two, gzip over plain)
-- compares runs made seconds apart, so the other work of a shared host, which comes and goes
-- over minutes, weighs on both alike. The runs on one thread are on `core` (fastest_core).
-- Gives the tokenizer's runs, the C loads on one thread, on each of THREADS, and the medians of
-- `also`'s loads by file.
local function measure_loads(path, runs, also, core)
  local toks, one, threaded, others = {}, c_runs(1), {}, {}
  for _, n in ipairs(THREADS) do threaded[n] = c_runs(n) end
  for _, other in ipairs(also or {}) do others[other] = { one = {}, default = {} } end
  local tok
  for _ = 1, runs do
    tok = run_tokenizer(path, core)
    table.insert(toks, tok.seconds)
    c_add(one, run_driver(path, 1, false, core))
    for _, n in ipairs(THREADS) do c_add(threaded[n], run_driver(path, n, false)) end
    for other, o in pairs(others) do
      table.insert(o.one, run_driver(other, 1, false, core).load_seconds)
      if DEFAULT_THREADS > 1 then
        table.insert(o.default, run_driver(other, DEFAULT_THREADS, false).load_seconds)
      end
    end
  end
  tok.median = median(toks)
  for n, acc in pairs(threaded) do threaded[n] = c_summary(acc, path) end
  for other, o in pairs(others) do
    others[other] = { one = median(o.one), default = #o.default > 0 and median(o.default) or nil }
  end
  return tok, c_summary(one, path), threaded, others
end

local function measure_lua(path, runs)
  local loads, callees, lines, last = {}, {}, {}, nil
  for _ = 1, runs do
    local out, ok = run(("%s bench/lua_walk.lua %s"):format(LUA, quote(path)))
    if not ok then error("bench/lua_walk.lua failed on " .. path .. ":\n" .. out, 0) end
    local r = parse_keys(out)
    table.insert(loads, r.load_seconds)
    table.insert(callees, r.callees_seconds)
    table.insert(lines, r.lines_seconds)
    last = r
  end
  return { load = median(loads), callees = median(callees), lines = median(lines), stats = last }
end

-- Two tokenizers at once on the same file, against one alone on `core` (the one-thread
-- runs' core): how much of a second core a second thread gets on this machine (cores that
-- share their execution units or their memory bandwidth, or one slower than the other, give
-- less than 2×), the ceiling of any two-thread load.
local function measure_pair(path, runs, core)
  local tok = ("%s/tokenize %s 1"):format(BIN, quote(path))
  local ones, pairs_ = {}, {}
  for i = 1, runs do
    ones[i] = timed(pinned(core) .. tok)
    pairs_[i] = timed("{ " .. tok .. " & " .. tok .. "; wait; }")
  end
  return { one = median(ones), pair = median(pairs_), ceiling = 2 * median(ones) / median(pairs_) }
end

-- The round trip of a cache line between the first two cores (bench/roundtrip.c), in ns: a
-- virtual machine's cores may share a last-level cache at one time and not at another.
local function measure_roundtrip()
  local r = parse_keys(must(BIN .. "/roundtrip"))
  return tonumber(r.roundtrip_ns)
end

local function measure_wc(path)
  if path:match("%.gz$") then return nil end
  local times = {}
  for i = 1, 3 do times[i] = timed("wc -l " .. quote(path)) end
  return median(times)
end

-- Numbers of a callgrind_annotate line ("3,178,231,802 (100.0%)  PROGRAM TOTALS"), percentages
-- left out.
local function ca_numbers(line)
  local values = {}
  for n in line:gsub("%(%s*[%d.]+%%%)", ""):gmatch("[%d,]+") do
    values[#values + 1] = tonumber((n:gsub(",", "")))
  end
  return values
end

-- The totals of each event the driver printed ("total Ir 123" lines), in the file's order.
local function driver_totals(c)
  local totals = {}
  for i, v in ipairs(list(c.total)) do totals[i] = tonumber(tostring(v):match("(%-?%d+)$")) end
  return totals
end

-- callgrind_annotate with its default options, once; its output is kept so that its PROGRAM
-- TOTALS can be compared with the loader's totals.
local CA_OUTPUT = DATA .. "/callgrind_annotate.out"

local function measure_ca(path)
  local seconds, rc = timed(("{ timeout %d callgrind_annotate %s > %s; }"):format(CA_TIMEOUT,
    quote(path), quote(CA_OUTPUT)))
  if rc == 124 then return "timeout" end
  if rc ~= 0 then return "failed" end
  local text = read_file(CA_OUTPUT) or ""
  os.remove(CA_OUTPUT)
  return seconds, ca_numbers(text:match("([^\n]*)PROGRAM TOTALS") or "")
end

-- callgrind_annotate reads every record of a generated file as the loader does: at
-- --threshold=100 its rows (one per file and function) add up to the loader's total of the
-- first event, and its PROGRAM TOTALS (the file's summary: line) is the same.
local function check_with_ca(entry)
  local out = must(("callgrind_annotate --threshold=100 --auto=no --show-percs=no %s"):format(
    quote(entry.path)))
  local rows, sum, listing = 0, 0, false
  for line in out:gmatch("[^\n]*") do
    if line:match("file:function%s*$") then
      listing = "header"
    elseif listing == "header" then
      listing = true -- the rule under the heading
    elseif listing and line:match("^%s*$") then
      break
    elseif listing then
      rows = rows + 1 -- a function without cost of the first event shows "."
      sum = sum + (line:match("^%s*%.%s") and 0 or ca_numbers(line)[1])
    end
  end
  local program = ca_numbers(out:match("([^\n]*)PROGRAM TOTALS") or "")[1]
  local total = driver_totals(entry.c)[1]
  if sum ~= total or program ~= total then
    error(("%s: callgrind_annotate's rows add up to %s and its total is %s, the loader's is %s")
      :format(entry.path, tostring(sum), tostring(program), tostring(total)), 0)
  end
  entry.ca_check = { rows = rows, total = total }
end

-- ---- the suite ----------------------------------------------------------------------------

-- The files measured: name, how the file is made, its kind, how many timed runs, whether
-- callgrind_annotate runs (ca), whether the reports table covers it (reports), whether its
-- records are checked against callgrind_annotate's (check). BENCH_ONLY (Lua patterns separated
-- by commas) keeps the files whose name one of them matches, and makes no other.
local ONLY = os.getenv("BENCH_ONLY") or ""

local function wanted(name)
  if ONLY == "" then return true end
  for pattern in ONLY:gmatch("[^,]+") do
    if name:match(pattern) then return true end
  end
  return false
end

local function suite()
  local s = {}
  local function add(entry, make)
    if not wanted(entry.name) then return end
    entry.path, entry.text = make()
    table.insert(s, entry)
  end
  local function gen(kind, mb) return function() return generated(kind, mb) end end
  add({ name = "instr 100 MB", kind = "instr", runs = 5, ca = true }, gen("instr", 100))
  if not QUICK then
    add({ name = "instr 300 MB", kind = "instr", runs = 5 }, gen("instr", 300))
    add({ name = "instr 1 GB", kind = "instr", runs = 3 }, gen("instr", 1000))
    if BIG then add({ name = "instr 2 GB", kind = "instr", runs = 3 }, gen("instr", 2000)) end
  end
  add({ name = "line13 100 MB", kind = "line", runs = 5, ca = true }, gen("line13", 100))
  if not QUICK then add({ name = "line13 1 GB", kind = "line", runs = 3 }, gen("line13", 1000)) end
  -- Xdebug writes the peak memory in summary:, not the sum of the memory costs, which the
  -- loader says in a warning
  local xdebug_summary = "summary: Memory_%(bytes%) is %d+ but the section's costs sum to %d+$"
  add({ name = "xdebug 100 MB", kind = "line", runs = 5, ca = true, expected_warning = xdebug_summary },
    gen("xdebug", 100))
  if not QUICK then
    add({ name = "xdebug 500 MB", kind = "line", runs = 3, expected_warning = xdebug_summary },
      gen("xdebug", 500))
  end
  -- text: the file it inflates to
  add({ name = "instr 100 MB .gz", kind = "gz", runs = 5 }, function()
    local text = generated("instr", 100)
    return gzipped(text), text
  end)
  -- every function in one block, as valgrind writes a run without --separate-callers
  add({ name = "single 10 MB", kind = "single", runs = 5, ca = true, reports = true, check = true },
    gen("single", 10))
  add({ name = "single 100 MB", kind = "single", runs = 5, ca = true, reports = true },
    gen("single", 100))
  if not QUICK then add({ name = "single 1 GB", kind = "single", runs = 3 }, gen("single", 1000)) end
  add({ name = "valgrind workload", kind = "real", runs = 5, ca = true }, real_profile)
  add({ name = "gcc cc1", kind = "real", runs = 5, ca = true, reports = true }, gcc_profile)
  return s
end

-- Whether the file's summary: line (what callgrind_annotate shows) says what its last totals:
-- line says, or one of them is missing.
local function summary_is_totals(path)
  local summary = run("grep -m1 '^summary:' " .. quote(path)):match("^summary:%s*(.-)%s*\n")
  local totals = run("grep '^totals:' " .. quote(path) .. " | tail -1"):match("^totals:%s*(.-)%s*\n")
  return summary == nil or totals == nil or summary == totals
end

local function measure(entry)
  local path = entry.path
  log("measuring %s (%s)", entry.name, path)
  if MAX_RUNS then entry.runs = math.max(1, math.min(entry.runs, MAX_RUNS)) end
  if LOAD_ONLY then entry.reports = nil end
  entry.bytes = file_size(path)
  entry.text_bytes = entry.text and file_size(entry.text) or entry.bytes
  warm(entry.text or path)
  warm(path)
  entry.lines = count_lines(path)
  entry.wc = measure_wc(path)
  entry.roundtrip = { measure_roundtrip() }
  -- a compressed file's text, loaded in the same rounds: the gzip target's plain load
  local plain = entry.kind == "gz" and entry.text or nil
  local others
  entry.core, entry.core_seconds = fastest_core(path)
  entry.tok, entry.c, entry.threaded, others = measure_loads(path, entry.runs, { plain }, entry.core)
  entry.plain = plain and others[plain]
  entry.roundtrip[2] = measure_roundtrip()
  if entry.tok.lines ~= entry.lines and entry.tok.lines ~= entry.lines + 1 then
    error(("%s: the tokenizer read %d lines, wc -l counts %d"):format(path, entry.tok.lines, entry.lines), 0)
  end
  if #THREADS > 0 then entry.pair = measure_pair(path, entry.runs, entry.core) end
  local warnings = entry.c.warning and list(entry.c.warning) or {}
  local expected = 0
  for _, w in ipairs(warnings) do
    if entry.expected_warning and w:match(entry.expected_warning) then expected = expected + 1 end
  end
  if entry.c.warnings ~= expected then
    error(("%s: %d warnings, first: %s"):format(path, entry.c.warnings, warnings[1]), 0)
  end
  entry.expected_warnings = expected
  if not LOAD_ONLY then entry.lua = measure_lua(path, math.min(entry.runs, 3)) end
  if entry.ca and not LOAD_ONLY then
    entry.ca_seconds, entry.ca_totals = measure_ca(path)
    local totals = driver_totals(entry.c)
    -- callgrind_annotate shows the summary: line of the file, which in a file of several parts
    -- (the workload's periodic dumps) is the last part's, and in an Xdebug file holds the peak
    -- memory, and valgrind's summary: may differ from the totals: of the same part by a few
    -- counts (the cache simulator's summary of the gcc run), where the loader checks totals:
    local comparable = entry.c.sections == 1 and entry.expected_warnings == 0 and summary_is_totals(path)
    for i, v in ipairs(comparable and entry.ca_totals or {}) do
      if v ~= totals[i] then
        error(("%s: callgrind_annotate's total of event %d is %d, the loader's %s"):format(path, i,
          v, tostring(totals[i])), 0)
      end
    end
  end
  if entry.check and not LOAD_ONLY then check_with_ca(entry) end
  local c = entry.c
  entry.records = c.functions + c.calls + c.lines + c.jumps
  entry.mb_per_s = entry.text_bytes / MB / c.median
  entry.lines_per_s = entry.lines / c.median
  entry.rss_ratio = c.peak_rss_kb * 1024 / entry.bytes
  entry.bytes_per_record = c.model_bytes / entry.records
end

-- ---- report -------------------------------------------------------------------------------

local function fmt_s(x)
  if type(x) ~= "number" then return x or "-" end
  if x >= 100 then return ("%.0f s"):format(x) end
  if x >= 10 then return ("%.1f s"):format(x) end
  if x >= 0.1 then return ("%.2f s"):format(x) end
  return ("%.1f ms"):format(x * 1000)
end

local function fmt_n(x, digits)
  if type(x) ~= "number" then return x or "-" end
  return ("%." .. (digits or 0) .. "f"):format(x)
end

local function fmt_count(n)
  local s = ("%d"):format(n)
  return s:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
end

local function markdown_table(header, rows)
  local out = { "| " .. table.concat(header, " | ") .. " |" }
  local sep = {}
  for i = 1, #header do sep[i] = i == 1 and "---" or "---:" end
  table.insert(out, "| " .. table.concat(sep, " | ") .. " |")
  for _, r in ipairs(rows) do table.insert(out, "| " .. table.concat(r, " | ") .. " |") end
  return table.concat(out, "\n")
end

-- The probe's tokenizer time on each core, the one-thread runs' core marked.
local function core_speeds(e)
  local parts = {}
  for _, core in ipairs(CORES) do
    local t = e.core_seconds and e.core_seconds[core]
    if t then parts[#parts + 1] = ("cpu%d %s%s"):format(core, fmt_s(t), core == e.core and "*" or "") end
  end
  return #parts > 0 and table.concat(parts, ", ") or "-"
end

local function loader_table(entries)
  local rows = {}
  for _, e in ipairs(entries) do
    table.insert(rows, {
      e.name, fmt_n(e.bytes / MB, 1), fmt_count(e.lines), fmt_s(e.c.median),
      fmt_n(100 * (e.c.median - e.c.read_median) / e.c.median) .. "%",
      fmt_s(e.c.sys_median), fmt_n(e.mb_per_s),
      fmt_n(e.lines_per_s / 1e6, 1), fmt_n(e.c.peak_rss_kb / 1024), fmt_n(e.rss_ratio, 2),
      fmt_n(e.bytes_per_record, 1), fmt_s(e.tok.median), fmt_n(e.c.median / e.tok.median, 1),
      fmt_s(e.wc), e.wc and fmt_n(e.c.median / e.wc, 1) or "-",
    })
  end
  return markdown_table({ "file", "MB", "lines", "load (median)", "after reading",
    "system time", "MB/s", "M lines/s", "peak RSS MB", "RSS / size", "model B / record",
    "tokenizer", "load / tok", "wc -l", "load / wc" }, rows)
end

-- The loads on several threads against the load on one: wall time, and the processor time of
-- the calling thread and of the others, whose larger is the load's time on cores of its own
-- (the wall time also counts what else ran on the machine).
local function threads_table(entries)
  local rows = {}
  for _, e in ipairs(entries) do
    local one = e.c
    table.insert(rows, { e.name, "1", fmt_s(one.median), "1.00×", fmt_s(one.cpu_median),
      fmt_s(one.main_median), "-", fmt_s(one.longest_median), "1.00×", "1.00×",
      fmt_n(one.peak_rss_kb / 1024) })
    for _, n in ipairs(THREADS) do
      local t = e.threaded[n]
      table.insert(rows, { e.name, tostring(n), fmt_s(t.median), fmt_n(one.median / t.median, 2) .. "×",
        fmt_s(t.cpu_median), fmt_s(t.main_median), fmt_s(t.other_median), fmt_s(t.longest_median),
        fmt_n(one.cpu_median / t.two_cores, 2) .. "×", fmt_n(one.cpu_median / t.longest_median, 2) .. "×",
        fmt_n(t.peak_rss_kb / 1024) })
    end
  end
  return markdown_table({ "file", "threads", "load (median)", "speed-up", "processor time",
    "calling thread", "other threads", "busiest thread", "speed-up, 2 cores of its own",
    "speed-up, cores of its own", "peak RSS MB" }, rows)
end

local function model_table(entries)
  local rows = {}
  for _, e in ipairs(entries) do
    table.insert(rows, {
      e.name, fmt_count(e.c.functions), fmt_count(e.c.calls), fmt_count(e.c.lines),
      fmt_count(e.c.jumps), fmt_count(e.c.cycles), fmt_count(e.c.sections),
      fmt_n(e.c.model_bytes / MB, 1),
    })
  end
  return markdown_table({ "file", "functions", "calls", "line records", "jumps", "cycles",
    "sections", "model MB" }, rows)
end

-- The speed-up of the load of `seconds` over callgrind_annotate: the figure and the ratio (nil
-- when callgrind_annotate did not run).
local function over_ca(x, seconds)
  if type(x.ca_seconds) == "number" then
    return fmt_n(x.ca_seconds / seconds) .. "×", x.ca_seconds / seconds
  elseif x.ca_seconds == "timeout" then
    return "> " .. fmt_n(CA_TIMEOUT / seconds) .. "×", CA_TIMEOUT / seconds
  end
  return "-"
end

local function lua_table(entries)
  local rows = {}
  for _, e in ipairs(entries) do
    local ca, speedup, default = "-", "-", "-"
    if e.ca then
      ca = fmt_s(e.ca_seconds)
      speedup = over_ca(e, e.c.median)
      local t = default_load(e)
      default = t and over_ca(e, t.median) or speedup
    end
    table.insert(rows, {
      e.name, fmt_s(e.lua.load), fmt_n(e.lua.load / e.tok.median, 1),
      e.wc and fmt_n(e.lua.load / e.wc, 1) or "-", fmt_s(e.lua.callees), fmt_s(e.lua.lines), ca,
      speedup, default,
    })
  end
  return markdown_table({ "file", "Lua load", "/ tok", "/ wc", "Lua: functions and callees",
    "Lua: line records", "callgrind_annotate", "C load speed-up, one thread",
    "C load speed-up, default threads" }, rows)
end

local function by_name(entries)
  local t = {}
  for _, e in ipairs(entries) do t[e.name] = e end
  return t
end

local report_speed = dofile("bench/report_speed.lua")

-- What bench/report_speed.lua needs of this file.
local function speed_env()
  return {
    lua = LUA, command = COMMAND, data = DATA, run = run, timed = timed, quote = quote,
    parse_keys = parse_keys, median = median, log = log, fmt_s = fmt_s, fmt_n = fmt_n,
    fmt_count = fmt_count, markdown_table = markdown_table,
  }
end

-- The speed-up of a load over callgrind_annotate: whether it reaches `times`, and the figure.
-- Judged on the load a caller gets by default (`opts.threads`: the machine's cores, at most 8,
-- when the bench measured that many), with one thread's beside it.
local function ca_speedup(x, times)
  if not x or not x.ca_seconds then return nil end
  local t = default_load(x)
  local figure, ratio = over_ca(x, t and t.median or x.c.median)
  if t then figure = with_one_thread(figure, (over_ca(x, x.c.median))) end
  return ratio and ratio >= times, figure
end

-- The entry of `kinds` (of at least `min_bytes` of text, when given) with the highest value of
-- `key`.
local function worst_of(entries, kinds, key, min_bytes)
  local worst
  for _, x in ipairs(entries) do
    if kinds[x.kind] and x.text_bytes >= (min_bytes or 0) and (not worst or key(x) > key(worst)) then
      worst = x
    end
  end
  return worst
end

-- Each target: what, the figure, PASS/MISS (or "not measured").
local function targets(entries)
  local e = by_name(entries)
  local out = {}
  local function add(what, ok, figure)
    local verdict = ok == nil and "not measured" or (ok and "PASS" or "MISS")
    table.insert(out, { what, figure or "-", verdict })
  end
  for _, name in ipairs { "instr 1 GB", "line13 1 GB" } do
    local x = e[name]
    add("load ≥ 400 MB/s, " .. name, x and x.mb_per_s >= 400, x and (fmt_n(x.mb_per_s) .. " MB/s"))
  end
  for _, name in ipairs { "instr 100 MB", "line13 100 MB", "single 100 MB" } do
    add("≥ 100× faster than callgrind_annotate, " .. name, ca_speedup(e[name], 100))
  end
  for _, name in ipairs { "instr 1 GB", "line13 1 GB" } do
    local x = e[name]
    add("load within 4× of wc -l, " .. name, x and x.c.median <= 4 * x.wc,
      x and (fmt_n(x.c.median / x.wc, 1) .. "×"))
  end
  local tok = worst_of(entries, { instr = true, line = true, single = true, real = true, gz = true },
    function(x) return x.c.median / x.tok.median end)
  if tok then
    add("one thread: load within 2× of the tokenizer, every file (worst: " .. tok.name .. ")",
      tok.c.median <= 2 * tok.tok.median, fmt_n(tok.c.median / tok.tok.median, 1) .. "×")
  end
  local slowest
  for _, x in ipairs(entries) do
    local t = x.threaded[2]
    if t and x.text_bytes >= 100 * MB and (not slowest or x.c.median / t.median <
        slowest.c.median / slowest.threaded[2].median) then
      slowest = x
    end
  end
  if slowest then
    local ratio = slowest.c.median / slowest.threaded[2].median
    add("two threads: load ≥ 1.7× as fast as one, files of 100 MB and more (worst: " .. slowest.name
      .. ")", ratio >= 1.7, fmt_n(ratio, 2) .. "×")
  else
    add("two threads: load ≥ 1.7× as fast as one, files of 100 MB and more", nil)
  end
  -- gzip against plain: among the two-thread targets of the issue, judged on the default load
  -- (as the speed-up over callgrind_annotate), one thread's beside it
  -- against the plain text's loads made in the same rounds as the compressed file's
  local gz = e["instr 100 MB .gz"]
  local plain = gz and gz.plain
  if plain then
    local one = plain.one / gz.c.median
    local tg = default_load(gz)
    if plain.default and tg then
      local ratio = plain.default / tg.median
      add("gzip input ≥ 0.9× as fast as plain, instr 100 MB", ratio >= 0.9,
        with_one_thread(fmt_n(ratio, 2) .. "×", fmt_n(one, 2) .. "×"))
    else
      add("gzip input ≥ 0.9× as fast as plain, instr 100 MB", one >= 0.9, fmt_n(one, 2) .. "×")
    end
  else
    add("gzip input ≥ 0.9× as fast as plain, instr 100 MB", nil)
  end
  for _, kind in ipairs { "instr", "single" } do
    local small, big = e[kind .. " 100 MB"], e[kind .. " 1 GB"]
    local ratio = small and big and big.c.median / small.c.median
    add(("scaling: load(%s 1 GB) / load(%s 100 MB) ≤ 11"):format(kind, kind), ratio and ratio <= 11,
      ratio and fmt_n(ratio, 2))
  end
  local groups = {
    { "peak RSS ≤ 1.0× file size, instr files", { instr = true }, 1.0 },
    { "peak RSS ≤ 1.0× file size, one block per function (single)", { single = true }, 1.0 },
    { "peak RSS ≤ 0.5× file size, line-level files", { line = true }, 0.5 },
  }
  -- judged on the files of 100 MB and more, as the issue sets them; a smaller file's peak is
  -- mostly what its functions and names cost whatever the size of their records (single 10 MB:
  -- 50,000 functions, half the file names), shown beside the verdict
  local function rss_ratio(x) return x.rss_ratio end
  for _, g in ipairs(groups) do
    local worst = worst_of(entries, g[2], rss_ratio, 100 * MB)
    local small = worst_of(entries, g[2], rss_ratio)
    if worst then
      local figure = fmt_n(worst.rss_ratio, 2) .. "×"
      if small ~= worst then figure = figure .. (" (%s: %s×)"):format(small.name, fmt_n(small.rss_ratio, 2)) end
      add(g[1] .. " of 100 MB and more (worst: " .. worst.name .. ")", worst.rss_ratio <= g[3], figure)
    end
  end
  local x = e["instr 1 GB"]
  x = x and x.lua and x
  add("Lua walk of all functions and callees < 1 s, instr 1 GB", x and x.lua.callees < 1,
    x and fmt_s(x.lua.callees))
  local _, passed, judged = report_speed.section(entries, speed_env())
  if judged > 0 then
    add("reports, writers and annotation at their targets (see below)", passed == judged,
      ("%d of %d"):format(passed, judged))
  end
  return out
end

local function machine()
  local cpu = (read_file("/proc/cpuinfo") or ""):match("model name%s*:%s*([^\n]+)") or "?"
  local mem_kb = tonumber((read_file("/proc/meminfo") or ""):match("MemTotal:%s*(%d+)") or "0")
  local function first_line(cmd)
    local out = run(cmd)
    return (out:match("[^\n]*") or "?")
  end
  return {
    { "CPU", cpu },
    { "cores", first_line("nproc") },
    { "RAM", ("%.1f GiB"):format(mem_kb / 1024 / 1024) },
    { "kernel", first_line("uname -sr") },
    { "compiler", first_line("${CC:-cc} --version") },
    { "valgrind", first_line("valgrind --version") },
    { "Lua", first_line(LUA .. " -v") },
    { "commit", first_line("git rev-parse --short HEAD") ..
      (first_line("git status --porcelain -- csrc lua") ~= "" and " (with local changes)" or "") },
    { "date", os.date("!%Y-%m-%d %H:%M UTC") },
  }
end

local function report(entries)
  local lines = {}
  local function add(s) table.insert(lines, s or "") end
  add("# Benchmarks")
  add()
  add("Made by `make bench" .. (QUICK and " BENCH_QUICK=1" or "") .. (BIG and " BENCH_BIG=1" or "")
    .. (ONLY ~= "" and (" BENCH_ONLY='" .. ONLY .. "'") or "")
    .. "`; bench/README.md says what each file is and what is measured.")
  add()
  add("## Machine")
  add()
  local m = {}
  for _, kv in ipairs(machine()) do table.insert(m, { kv[1], kv[2] }) end
  add(markdown_table({ "", "" }, m))
  add()
  add("## Targets")
  add()
  add(markdown_table({ "target", "figure", "verdict" }, targets(entries)))
  add()
  add("## C loader (`cg_load_file`, strict)")
  add()
  add("Median wall time of separate runs of bench/driver (5, or 3 for files of 1 GB and more), "
    .. "page cache warm; \"after reading\" is the share of it spent once every line is parsed "
    .. "(the analysis), timed from the last progress callback; \"system time\" is the median "
    .. "processor time the loads spent in the kernel, most of it making and clearing the "
    .. "model's fresh pages at their first touch (the tokenizer, keeping nothing, spends a few "
    .. "hundredths of a second there at 1 GB). MB are 10^6 bytes; the .gz row counts the bytes "
    .. "of the text it inflates to, and its RSS ratio is to the compressed size. Model bytes "
    .. "per record: bytes the model holds in malloc after the load, over functions + calls + "
    .. "line records + jumps. "
    .. "Tokenizer: median of as many runs of bench/tokenize (the core's reader, every number of "
    .. "every line parsed, nothing kept); load / tok and load / wc are time ratios. A file's "
    .. "runs are made in rounds, each round one run of the tokenizer, of the load on one thread "
    .. "and of the load on each thread count of the next table (and for the .gz file, of its "
    .. "text's loads, which the gzip target is judged against): the ratios compare runs made "
    .. "seconds apart, which the other work of a shared host weighs on alike. Every run on one "
    .. "thread (the tokenizer's, the loads') is pinned to one core, the faster of the two when "
    .. "the file's measurements began (see Threads: this virtual machine's cores are at times "
    .. "unequally fast).")
  add()
  add(loader_table(entries))
  add()
  if #THREADS > 0 then
    add("## Threads")
    add()
    add("The same loads with `opts.threads` (bench/driver --threads N), median of as many runs. "
      .. "Processor time is the whole process's during the load: the calling thread reads, "
      .. "cuts the file into pieces, keeps the names, parses pieces when it has nothing else "
      .. "to do and adds the pieces to the model in order; N - 1 workers parse and build "
      .. "pieces (docs/design.md, Threads). The wall time counts whatever "
      .. "else the machine ran; the processor times do not: the load's own speed-up is the one "
      .. "thread's processor time over the busiest thread's (cores of its own, one per thread) "
      .. "or over the larger of the busiest thread's and half the whole (two cores of its own). "
      .. "Each thread's time comes from as many runs again with `--per-thread`, whose sampler "
      .. "thread (every 2 ms) would take 2-3 % of the timed loads' wall time on these two cores.")
    add()
    add(threads_table(entries))
    add()
    local rows = {}
    for _, e in ipairs(entries) do
      local rt = e.roundtrip or {}
      rows[#rows + 1] = { e.name, core_speeds(e), fmt_s(e.pair.one), fmt_s(e.pair.pair),
        fmt_n(e.pair.ceiling, 2) .. "×", ("%s / %s ns"):format(tostring(rt[1] or "-"), tostring(rt[2] or "-")) }
    end
    add("What two threads can gain on this machine: two bare tokenizers run at once, each reading "
      .. "the whole file, against one alone on the core of the one-thread runs (median of as "
      .. "many runs); twice the one's time over the pair's is the throughput of two threads "
      .. "that share nothing. \"Tokenizer on each core\": the probe that chose that core, the "
      .. "faster one (marked *), before the file's loads; where one core is slower than the "
      .. "other, two threads gain at most the slower core's share. The core-to-core round "
      .. "trip (bench/roundtrip.c: a cache line handed from one core to the other and back, "
      .. "measured before and after the file's threaded loads) says how far apart the two cores "
      .. "were: this virtual machine's are sometimes 60-100 ns apart and sometimes 330-380 ns "
      .. "(the host placed them apart), and a load whose threads hand each other data takes a "
      .. "quarter more processor time in the far placement, which the tokenizers, sharing "
      .. "nothing, do not notice.")
    add()
    add(markdown_table({ "file", "tokenizer on each core", "one tokenizer", "two at once",
      "two-thread ceiling", "core round trip, before / after" }, rows))
    add()
  end
  add("## Model")
  add()
  add(model_table(entries))
  add()
  if LOAD_ONLY then return table.concat(lines, "\n") end
  add("## Lua module and callgrind_annotate")
  add()
  add("Lua: CPU time (`os.clock`) of `callgrind.load`, of a walk over every function and its "
    .. "callees (reading `call.callee` and `call:inclusive(1)`), and of a walk over every line "
    .. "record (`line:cost(1)`); median of up to 3 runs; the Lua load over the tokenizer's and "
    .. "`wc -l`'s times. callgrind_annotate: one run with its "
    .. "default options, output to /dev/null, at most " .. CA_TIMEOUT .. " s; the speed-up is "
    .. "its time over the C load's, on one thread and with the default `threads` (the cores, "
    .. "at most 8: " .. DEFAULT_THREADS .. " here), which the 100× target is judged on.")
  add()
  add(lua_table(entries))
  add()
  add((report_speed.section(entries, speed_env())))
  -- the hand-written analysis of the misses, kept beside the figures
  local analysis = io.open("bench/analysis.md", "r")
  if analysis then
    add(analysis:read("*a"))
    analysis:close()
  end
  return table.concat(lines, "\n")
end

-- ---- main ---------------------------------------------------------------------------------

local function main()
  for _, tool in ipairs { "valgrind", "callgrind_annotate", "gzip", "md5sum", "timeout", "bash" } do
    if not run("command -v " .. tool) :match("/") then
      error("bench needs " .. tool .. " (valgrind, gzip, coreutils and bash on Debian)", 0)
    end
  end
  must("mkdir -p " .. DATA)
  local entries = suite()
  for _, entry in ipairs(entries) do measure(entry) end
  for _, entry in ipairs(entries) do
    if entry.reports and not LOAD_ONLY then
      log("reports on %s", entry.name)
      report_speed.measure(entry, speed_env())
    end
  end
  local text = report(entries)
  io.write(text)
  local out = RESULTS or (QUICK and (DATA .. "/results-quick.md") or "bench/results.md")
  write_file("bench/results.tmp", text)
  assert(os.rename("bench/results.tmp", out))
  log("written: %s", out)
end

local ok, err = pcall(main)
if not ok then
  io.stderr:write("bench: ", tostring(err), "\n")
  os.exit(1)
end
