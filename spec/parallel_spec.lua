-- opts.threads: a load on several threads makes the same model as a load on one, record for
-- record and in the same order, with the same warnings and the same errors, over every profile
-- the specs have, cut into pieces small enough that every file is handed over in many.
local callgrind = require "callgrind"
local fixtures = require "helpers.fixtures"
local generated = require "helpers.generated"
local model = require "helpers.model"

-- Under ThreadSanitizer (make tsan) no child process can run, so no directory can be listed:
-- the files named here stand for the rest, and fewer pieces are tried.
local TSAN = os.getenv("CALLGRIND_SPEC_TSAN") ~= nil

local SOME_FILES = {
  "examples/data/sample.callgrind.gz",
  "spec/data/testdata/thirdparty/gprof2dot/bzr.callgrind",
  "spec/data/testdata/thirdparty/gprof2dot/selinux.callgrind",
  "spec/data/testdata/thirdparty/webgrind-xdebugtoolkit/codeigniter.cg",
  "spec/data/testdata/thirdparty/kcachegrind/cg-badcostline1",
  "spec/data/testdata/thirdparty/kcachegrind/cg-badposition",
}

-- Every input file of spec/data, examples/data and fuzz/seeds (not the expected outputs).
local function profile_files()
  if TSAN then return SOME_FILES end
  local found = {}
  local pipe = assert(io.popen("find spec/data examples/data fuzz/seeds -type f | sort"))
  for path in pipe:lines() do
    if not path:match("%.rc$") and not path:match("%.stderr$") and not path:match("%.md$")
      and not path:match("%.c$") and not path:match("oracle%-") then
      found[#found + 1] = path
    end
  end
  pipe:close()
  assert(#found > 20, "the spec's data files were not found")
  return found
end

local costs = model.costs

local function fn_key(fn)
  return table.concat({ fn.name, tostring(fn.file), tostring(fn.object) }, "|")
end

-- Any value as text, tables with their keys sorted and function handles by identity.
local function dump(v, out)
  local t = type(v)
  if t == "table" then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    out[#out + 1] = "{"
    for _, k in ipairs(keys) do
      out[#out + 1] = tostring(k) .. "="
      dump(v[k], out)
      out[#out + 1] = ";"
    end
    out[#out + 1] = "}"
  elseif t == "userdata" then
    out[#out + 1] = "fn:" .. fn_key(v)
  else
    out[#out + 1] = t .. ":" .. tostring(v)
  end
  return out
end

-- Everything public about a profile, in the order the profile gives it: functions, their self
-- and inclusive costs, line records, calls both ways, jumps, cycles, sections, warnings.
-- Every count of prof:stats() but the bytes held, which count the line stream blocks each
-- thread carved: the model is the same on any number of threads, the room around it not.
local function model_stats(prof)
  local stats = prof:stats()
  assert.is_true(stats.bytes > 0)
  stats.bytes = nil
  return stats
end

local function snapshot(prof)
  local events = prof:events()
  local out = { "events " .. table.concat(events, " "), "positions " .. table.concat(prof:positions(), " ") }
  for _, ev in ipairs(events) do out[#out + 1] = "total " .. ev .. " " .. tostring(prof:total(ev)) end
  for fn in prof:functions() do
    out[#out + 1] = table.concat({ "fn", fn_key(fn), costs(fn, "self", events), costs(fn, "inclusive", events),
      tostring(fn.called), tostring(fn.cycle) }, " ")
    for l in fn:lines() do
      out[#out + 1] = table.concat({ " line", tostring(l.file), tostring(l.line), tostring(l.addr),
        costs(l, "cost", events) }, " ")
    end
    for c in fn:callees() do
      out[#out + 1] = table.concat({ " call", fn_key(c.callee), tostring(c.file), tostring(c.line),
        tostring(c.addr), tostring(c.count), costs(c, "inclusive", events) }, " ")
    end
    for c in fn:callers() do out[#out + 1] = " caller " .. fn_key(c.caller) .. " " .. tostring(c.count) end
    for j in fn:jumps() do
      out[#out + 1] = table.concat({ " jump", tostring(j.from_file), tostring(j.from_line),
        tostring(j.from_addr), tostring(j.to_file), tostring(j.to_line), tostring(j.to_addr),
        fn_key(j.to_function), tostring(j.executed), tostring(j.taken), tostring(j.conditional) }, " ")
    end
  end
  out[#out + 1] = table.concat(dump(prof:cycles(), {}))
  out[#out + 1] = table.concat(dump(prof:sections(), {}))
  local warnings, dropped = prof:warnings()
  out[#out + 1] = table.concat(dump({ warnings, dropped }, {}))
  out[#out + 1] = table.concat(dump(model_stats(prof), {}))
  return table.concat(out, "\n")
end

-- What a load gives, as text: the whole model, or the error and its kind.
local function outcome(load, opts)
  local prof, err, kind = load(opts)
  if not prof then return "error " .. tostring(err) .. " (" .. tostring(kind) .. ")" end
  local s = snapshot(prof)
  prof:close()
  return s
end

local function with(base, extra)
  local o = {}
  for k, v in pairs(base) do o[k] = v end
  for k, v in pairs(extra) do o[k] = v end
  return o
end

-- The first line where two texts differ, for a readable failure.
local function first_difference(a, b)
  if a == b then return nil end
  local la, lb = {}, {}
  for line in (a .. "\n"):gmatch("([^\n]*)\n") do la[#la + 1] = line end
  for line in (b .. "\n"):gmatch("([^\n]*)\n") do lb[#lb + 1] = line end
  for i = 1, math.max(#la, #lb) do
    if la[i] ~= lb[i] then
      return ("line %d:\n  one thread: %s\n  threaded:   %s"):format(i, tostring(la[i]), tostring(lb[i]))
    end
  end
  return "lengths differ"
end

-- A function's line records as "line=cost" of the first event, in the model's order.
local function line_costs(prof, name)
  local lines = {}
  for line in prof:find(name):lines() do lines[#lines + 1] = line.line .. "=" .. line:cost(1) end
  return lines
end

-- Thread counts with piece sizes: 1 byte hands every record over alone.
local RUNS = TSAN and { { 2, 64 }, { 3, 1 } } or { { 2, 1 }, { 3, 100 }, { 8, 4096 }, { 2, nil } }
local THREADS, CHUNKS = { 2, 3, 8 }, { 1, 100, 4096 }

-- The load on one thread against every thread count and piece size, strict and tolerant.
local function same_everywhere(name, load, base_opts)
  for _, strict in ipairs { true, false } do
    local opts = with(base_opts or {}, { strict = strict })
    local expected = outcome(load, with(opts, { threads = 1 }))
    for _, run in ipairs(RUNS) do
      local threads, chunk = run[1], run[2]
      local got = outcome(load, with(opts, { threads = threads, chunk_size = chunk }))
      local diff = first_difference(expected, got)
      if diff then
        error(("%s (strict %s, %d threads, pieces of %s bytes): %s"):format(name, tostring(strict),
          threads, tostring(chunk or "default"), diff))
      end
    end
    -- the default number of threads
    assert.equal(expected, outcome(load, opts))
  end
end

local function parse_of(text, name)
  return function(opts) return callgrind.parse(text, name, opts) end
end

-- Texts with what a threaded load must hand over in order: sections, selections, Xdebug's
-- appended profiles, inlined files, jumps to other functions, faults of the builder.
local BIG = ("9223372036854775000")
local TEXTS = {
  parts = table.concat({
    "version: 1", "creator: callgrind-3.19.0", "part: 1", "positions: instr line", "events: Ir Dr",
    "fl=(1) a.c", "fn=(1) main", "0x10 1 5 1", "+2 2 3", "cfl=(2) b.c", "cfn=(2) f", "calls=2 0x40 9",
    "+2 3 7 2", "jump=1 +4 *", "+2 3", "jcnd=1/2 0x30 *", "+2 4", "fi=(3) h.h", "+1 20 1", "fe=(1)",
    "+1 5 1", "fl=(2)", "fn=(2)", "0x40 9 4", "summary: 22 3", "totals: 22 3", "",
    "part: 2", "events: Dr Ir", "fl=(1)", "fn=(1)", "0x10 1 1 5", "jfi=(2)", "jfn=(2)", "jump=3 0x40 9",
    "+4 2", "fn=(4) g", "0x80 7 0 9", "totals: 3 14", "",
  }, "\n") .. "\n",
  xdebug = table.concat({
    "version: 1", "cmd: a.php", "part: 1", "events: Time", "", "fl=php:internal", "fn=php::strlen",
    "1 5", "", "fl=/a.php", "fn={main}", "cfl=php:internal", "cfn=php::strlen", "calls=1 0 0", "3 5",
    "4 2", "==== NEW PROFILING FILE ==============================================", "version: 1",
    "events: Time", "fl=(1) /b.php", "fn=(1) {main}", "1 8", "cfn=(2) helper", "calls=1 0 0", "2 3",
    "fn=(2)", "5 3",
  }, "\n") .. "\n",
  overflow_line = table.concat({ "events: Ir", "fn=(1) main", "1 " .. BIG, "2 " .. BIG, "3 1", "" }, "\n"),
  overflow_call = table.concat({
    "events: Ir", "fn=(1) main", "1 1", "cfn=(2) f", "calls=18446744073709551615 5", "2 1",
    "calls=18446744073709551615 5", "2 1", "calls=1 5", "3 " .. BIG, "calls=1 5", "3 " .. BIG,
    "fn=(2)", "5 1", "",
  }, "\n"),
  overflow_jump = table.concat({
    "events: Ir", "fn=(1) main", "1 1", "jump=18446744073709551615 9", "2", "jump=18446744073709551615 9",
    "2", "9 1", "",
  }, "\n"),
  -- a position line that begins with a space, which the parser reads and the splitter does
  -- not: the names of the call or jump before it end there, not at the next line the
  -- splitter knows
  indented_call = table.concat({
    "events: Ir", "ob=(5) libA", "fl=(5) ???", "fn=(1) f", "0 7", "fn=(6) f2", "0 3", "cob=(1) libB",
    "cfi=(1) ???", "cfn=(2) g", "calls=100 ", " 1357", "0 2", "cfn=(3) h", "calls=1 0", "0 5",
    "fn=(4) k", "0 1", "",
  }, "\n"),
  indented_jump = table.concat({
    "events: Ir", "positions: instr line", "ob=(5) libA", "fl=(5) a.c", "fn=(1) f", "0x10 1 7",
    "fn=(6) f2", "0x20 3 3", "jfi=(7) b.c", "jfn=(8) j", "jump=4 0x30 9", " 0x21 4", "0x22 5 2",
    "jump=1 0x40 2", "0x23 6", "fn=(4) k", "0x50 1 1", "",
  }, "\n"),
  -- Xdebug's dense names (pieces with names of their own): a block with no cost line, then one
  -- whose first position is relative to the block before it
  named_no_position = (function()
    local out = { "version: 1", "cmd: a.php", "part: 1", "events: Time", "" }
    for k = 1, 600 do
      for _, line in ipairs { "fl=php:internal", "fn=php::f" .. k, k .. " 2", "" } do out[#out + 1] = line end
      if k % 100 == 0 then
        for _, line in ipairs { "fl=php:internal", "fn=php::empty" .. k, "", "fl=/a.php", "fn=main", "+3 5", "" } do
          out[#out + 1] = line
        end
      end
    end
    return table.concat(out, "\n") .. "\n"
  end)(),
  -- negative costs, which a piece leaves to the calling thread, one sum below the smallest
  negative = table.concat({
    "events: Ir Dr", "positions: instr line", "fl=(1) a.c", "fn=(1) main", "0x10 1 5 -3", "+2 2 -4 1",
    "+2 3 7", "fn=(2) f", "0x20 4 -9", "+1 5 2 -1", "fn=(3) g", "0x30 6 -" .. BIG, "+1 7 -" .. BIG,
    "+1 8 1", "fn=(1)", "0x10 1 -5 3", "",
  }, "\n"),
  -- a function's sum that overflows on one thread, not in a piece that takes negative costs after it
  negative_sum = table.concat({
    "events: Ir", "positions: instr line", "fl=(1) a.c", "fn=(1) main", "0x10 1 " .. BIG, "fn=(2) f",
    "0x20 2 1", "+1 3 1", "+1 4 1", "fn=(3) g", "0x30 5 1", "+1 6 1", "+1 7 1", "fn=(1)", "0x14 2 " .. BIG,
    "+1 3 -" .. BIG, "+1 4 -" .. BIG, "",
  }, "\n"),
  undefined = table.concat({ "events: Ir", "fn=(1) main", "1 1", "fn=(7)", "2 1", "cfn=(9)", "calls=1 1",
    "3 4", "fl=(1) x.c", "fl=(1) y.c", "fn=(1)", "4 1", "" }, "\n"),
}

-- A function whose records come out of order, with duplicates, so that its stream is compacted
-- while loading (lines.c: when it holds 4 times the distinct positions and 256 more), with
-- records of one position in two files whose ids and names sort the other way round (z.c has
-- the smaller id) and new file names defined all along; after the last compaction only records
-- in order follow, so that the stream stays as that compaction left it until loading ends.
local function compaction_text()
  local out = { "events: Ir", "positions: instr line", "fl=(1) z.c", "fn=(1) main" }
  local count, distinct, sorted, last = 0, 0, true, { 0, 0 }
  local seen, nseen = {}, 0
  -- a record as lines.c counts it; true when it sets off a compaction
  local function record(file, addr, line)
    out[#out + 1] = ("0x%x %d 1"):format(addr, line)
    local key = file .. ":" .. addr .. ":" .. line
    if not seen[key] then seen[key], nseen = true, nseen + 1 end
    if count > 0 and sorted and not (addr > last[1] or (addr == last[1] and line > last[2])) then
      sorted = false
    end
    count, last = count + 1, { addr, line }
    if not sorted and count >= 4 * distinct + 256 then
      count, distinct, sorted, last = nseen, nseen, true, { 16, 5 }
      return true
    end
  end
  local compactions, files = 0, 1
  local i = 0
  while compactions < 3 do
    i = i + 1
    if i % 50 == 1 then
      files = files + 1
      out[#out + 1] = ("fi=(%d) a%d.h"):format(files, files)
      if record("a" .. files, 16, 5) then compactions = compactions + 1 end
    end
    out[#out + 1] = "fi=(2)"
    if record("a2", 16, 5) then compactions = compactions + 1 end
    out[#out + 1] = "fe=(1)"
    if record("z", 16, 5) then compactions = compactions + 1 end
    if compactions < 3 and record("z", 8, 4) then compactions = compactions + 1 end
  end
  for addr = 32, 40 do record("z", addr, 7) end
  assert(sorted, "the records after the last compaction are in order")
  return table.concat(out, "\n") .. "\n"
end

-- Functions shown in many blocks (a block per calling context, as line13's), each block's lines
-- out of order and repeated, some of them in an inlined header at the line numbers of the
-- function's own file (two files at one line: by id and by name the other way round): a split
-- load joins the blocks of a function from many pieces, and the model's stream is compacted
-- as they pile up. Gives the text, its Ir total and the distinct positions of func_1.
local function comes_back_text()
  local FUNCTIONS, BLOCKS, RECORDS, LINES = 12, 16, 90, 30
  local out = { "events: Ir Dr Dw" }
  local ir, positions, npositions = 0, {}, 0
  local defined = {}
  for b = 1, BLOCKS do
    for f = 1, FUNCTIONS do
      out[#out + 1] = defined.z and "fl=(1)" or "fl=(1) z.c"
      defined.z = true
      out[#out + 1] = defined[f] and ("fn=(%d)"):format(f) or ("fn=(%d) func_%d"):format(f, f)
      defined[f] = true
      for k = 1, RECORDS do
        local line = 1 + (k * 7 + b * 3 + f) % LINES
        local inlined = k % 9 == 4
        if inlined then
          out[#out + 1] = defined.a and "fi=(2)" or "fi=(2) a.h"
          defined.a = true
        end
        local cost = 1 + (k + b + f) % 5
        out[#out + 1] = ("%d %d %d %d"):format(line, cost, (k * b) % 3, f % 2)
        if inlined then out[#out + 1] = "fe=(1)" end
        ir = ir + cost
        local key = (inlined and "a.h:" or "z.c:") .. line
        if f == 1 and not positions[key] then positions[key], npositions = true, npositions + 1 end
      end
    end
  end
  return table.concat(out, "\n") .. "\n", ir, npositions
end

-- Functions whose first blocks have neither calls nor jumps and whose later blocks make one call
-- and one jump twice each: a split load keeps a later block's records as read in its piece
-- (split.h, LOCAL_LATER) and merges them one by one at the stitch, here into a function with no
-- list yet, a record repeated in the piece summed as on one thread. Each of the 4 functions
-- calls "callee" from line 20 twice a block in blocks 3 to 6 (calls=2, 7 each: 16 calls, 56 in
-- all) and jumps from line 21 to 30 as often (jump=3: 24 times).
local function later_calls_text()
  local out = { "events: Ir", "positions: line" }
  local named = false
  for b = 1, 6 do
    for f = 1, 4 do
      out[#out + 1] = b == 1 and ("fn=(%d) f%d"):format(f, f) or ("fn=(%d)"):format(f)
      out[#out + 1] = ("%d %d"):format(10 + b, f)
      if b >= 3 then
        for _ = 1, 2 do
          out[#out + 1] = named and "cfn=(9)" or "cfn=(9) callee"
          named = true
          out[#out + 1] = "calls=2 50"
          out[#out + 1] = "20 7"
          out[#out + 1] = "jump=3 30"
          out[#out + 1] = "21"
        end
      end
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- Enough calls and jumps (about 5 MB of them while loading) that their numbering at the end
-- is shared between threads (builder.c: at least four blocks of the pool each).
local function many_records_text()
  local out = { "events: Ir", "positions: line" }
  for f = 1, 2000 do
    out[#out + 1] = ("fn=(%d) f%d"):format(f, f)
    out[#out + 1] = "1 1"
    for k = 1, 10 do
      out[#out + 1] = f == 1 and ("cfn=(%d) callee%d"):format(3000 + k, k) or ("cfn=(%d)"):format(3000 + k)
      out[#out + 1] = ("calls=%d %d"):format(k, k)
      out[#out + 1] = ("%d %d"):format(100 + k, f + k)
    end
    for k = 1, 20 do
      out[#out + 1] = ("jump=%d %d"):format(k, 300 + k)
      out[#out + 1] = ("%d"):format(200 + k)
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- A call graph of 9,000 functions, enough for the analysis to share its work among threads:
-- cycles of three, and sums beyond 64 bits far apart (a cycle's inclusive cost, the inclusive
-- costs of two functions nobody calls), whose faults must come in the order of the functions whatever
-- thread met them. `again`: the second input of a list, the same positions with other costs.
local function load_tolerant(load) return load { threads = 2, strict = false } end

local function big_graph_text(again)
  local out = { "events: Ir", "positions: line" }
  local function call(callee, cost)
    out[#out + 1] = ("cfl=f%d.c"):format(callee % 7)
    out[#out + 1] = "cfn=g" .. callee
    out[#out + 1] = "calls=1 9"
    out[#out + 1] = "2 " .. cost
  end
  for f = 1, 9000 do
    out[#out + 1] = ("fl=f%d.c"):format(f % 7)
    out[#out + 1] = "fn=g" .. f
    out[#out + 1] = "1 " .. f
    out[#out + 1] = ("%d %d"):format(3 + f % 5, again and 2 * f or 1)
    out[#out + 1] = "jump=2 " .. (10 + f % 3)
    out[#out + 1] = "4"
    if f <= 6000 then
      local first = f - (f - 1) % 3
      call(first + (f - first + 1) % 3, f)
      -- calls that leave the cycle of g4, g5 and g6
      if f == 4 or f == 5 then call(7006 + f, BIG) end
    end
    if f > 1 and f ~= 6101 and f ~= 8501 then call(f - 1, 1) end
    if f == 6100 or f == 8500 then
      call(f + 1, BIG)
      call(f + 2, BIG)
    end
  end
  return table.concat(out, "\n") .. "\n"
end

describe("a load on several threads", function()
  it("numbers calls and jumps on several threads as on one", function()
    local load = parse_of(many_records_text(), "many")
    local prof = assert(load { threads = 1 })
    local calls, jumps = 0, 0
    for fn in prof:functions() do
      for _ in fn:callees() do calls = calls + 1 end
      for _ in fn:jumps() do jumps = jumps + 1 end
    end
    assert.same({ 20000, 40000 }, { calls, jumps })
    prof:close()
    local expected = outcome(load, { threads = 1 })
    for _, threads in ipairs { 2, 4 } do
      local diff = first_difference(expected, outcome(load, { threads = threads }))
      assert.is_nil(diff, diff)
    end
  end)

  it("merges the calls and jumps of a function's later blocks as read, as on one thread", function()
    local load = parse_of(later_calls_text(), "later")
    same_everywhere("later blocks", load)
    local prof = assert(load { threads = 2, chunk_size = 1 })
    for fn in prof:functions() do
      if fn.name ~= "callee" then
        local calls, jumps = {}, {}
        for call in fn:callees() do calls[#calls + 1] = { call.count, call:inclusive(1) } end
        for jump in fn:jumps() do jumps[#jumps + 1] = { jump.executed, jump.to_line } end
        assert.same({ { 16, 56 } }, calls)
        assert.same({ { 24, 30 } }, jumps)
      end
    end
    prof:close()
  end)

  it("analyses a big call graph on several threads as on one, faults in the same order", function()
    local first, second = os.tmpname(), os.tmpname()
    fixtures.write(first, big_graph_text(false))
    fixtures.write(second, big_graph_text(true))
    local loads = {
      text = parse_of(big_graph_text(false), "graph"),
      list = function(opts) return callgrind.load({ first, second }, opts) end,
    }
    for name, load in pairs(loads) do
      for _, strict in ipairs { false, true } do
        local expected = outcome(load, { threads = 1, strict = strict })
        for _, threads in ipairs { 2, 4 } do
          local diff = first_difference(expected, outcome(load, { threads = threads, strict = strict }))
          assert.is_nil(diff, ("%s, strict %s, %d threads: %s"):format(name, tostring(strict), threads,
            tostring(diff)))
        end
      end
    end
    -- the faults of the analysis, worked out by hand
    local prof = assert(load_tolerant(loads.text))
    local warnings = prof:warnings()
    local wanted = {
      "the cycle cost of 'g5' does not fit in 64 bits",
      "the inclusive cost of 'g6100' does not fit in 64 bits",
      "the inclusive cost of 'g8500' does not fit in 64 bits",
    }
    local at = 1
    for _, w in ipairs(warnings) do
      if at <= #wanted and w:find(wanted[at], 1, true) then at = at + 1 end
    end
    assert.equal(#wanted + 1, at, table.concat(warnings, "\n"))
    prof:close()
    os.remove(first)
    os.remove(second)
  end)

  it("makes the model of a load on one, over every file of the specs", function()
    for _, path in ipairs(profile_files()) do
      same_everywhere(path, function(opts) return callgrind.load(path, opts) end)
    end
  end)

  it("makes the same model from a list of inputs, and from a string", function()
    local files = profile_files()
    local list = { files[1], files[2], files[3] }
    same_everywhere("a list", function(opts) return callgrind.load(list, opts) end)
    -- the same on every thread count is not enough when all fail alike: files that load one by
    -- one load as a list
    local each = true
    for _, path in ipairs(list) do each = each and callgrind.load(path, { threads = 1 }) ~= nil end
    if each then assert.is_truthy(callgrind.load(list, { threads = 1 })) end
    local a, b = os.tmpname(), os.tmpname()
    fixtures.write(a, generated.profile_text(30, 5))
    fixtures.write(b, generated.profile_text(30, 5))
    local both = assert(callgrind.load({ a, b }, { threads = 1 }))
    assert.equal(2 * generated.ir_total(30, 5), both:total("Ir"))
    same_everywhere("two of one shape", function(opts) return callgrind.load({ a, b }, opts) end)
    os.remove(a)
    os.remove(b)
    same_everywhere("a string", parse_of(fixtures.read(files[2]), "text"))
  end)

  it("reads damaged gzip data, missing files and directories as a load on one does", function()
    local gz = fixtures.read("examples/data/sample.callgrind.gz")
    local cut = gz:sub(1, math.floor(#gz / 2))
    local corrupt = gz:sub(1, 200) .. ("x"):rep(300) .. gz:sub(501)
    same_everywhere("cut gzip text", parse_of(cut, "cut.gz"))
    same_everywhere("corrupt gzip text", parse_of(corrupt, "corrupt.gz"))
    local path = os.tmpname()
    fixtures.write(path, cut)
    same_everywhere("cut gzip file", function(opts) return callgrind.load(path, opts) end)
    os.remove(path)
    same_everywhere("missing", function(opts) return callgrind.load(path .. ".missing", opts) end)
    same_everywhere("directory", function(opts) return callgrind.load("spec", opts) end)
    local _, err = callgrind.load(path, { threads = 2 })
    assert.equal(path .. ": No such file or directory", err)
  end)

  it("makes the model of a load on one from the generated profiles", function()
    same_everywhere("generated 300x20", parse_of(generated.profile_text(300, 20), "generated"))
    same_everywhere("generated 5x400", parse_of(generated.profile_text(5, 400), "generated"))
  end)

  it("stops cutting where cutting does not pay, with the model of a load on one thread", function()
    -- past the first MiB a load on several threads parses the rest on the calling thread when
    -- the lines it reads itself are dense (Xdebug's profiles: names and calls in nearly every
    -- line) or when pieces are settled before they grow to a piece (many small parts)
    local blocks = { "version: 1", "cmd: a.php", "part: 1", "events: Time", "" }
    for i = 1, 40000 do
      local fn = i % 500 + 1
      local callee = i <= 500 and fn or (i * 7) % 500 + 1 -- a name defined before it is used
      local function name(id) return i <= 500 and ("(%d) f%d"):format(id, id) or ("(%d)"):format(id) end
      blocks[#blocks + 1] = ("fl=(1)%s\nfn=%s\n%d %d\ncfl=(1)\ncfn=(%d)\ncalls=1 0 0\n%d %d\n"):format(
        i == 1 and " /a.php" or "", name(fn), i % 90 + 1, i % 13 + 1, callee, i % 50 + 1, i % 7 + 1)
    end
    local dense = table.concat(blocks, "\n")
    assert.is_true(#dense > 2 * 2 ^ 20)
    local parts = { "version: 1", "creator: callgrind-3.19.0", "positions: line", "events: Ir" }
    for k = 1, 5000 do
      parts[#parts + 1] = ("part: %d\nfl=(1) a.c\nfn=(%d) f%d\n"):format(k, k, k)
      local sum = 0
      for l = 1, 80 do
        local cost = (k * l) % 97 + 1
        sum = sum + cost
        parts[#parts + 1] = ("%d %d"):format(l, cost)
      end
      parts[#parts + 1] = ("totals: %d\n"):format(sum)
    end
    local small_parts = table.concat(parts, "\n") .. "\n"
    assert.is_true(#small_parts > 2 * 2 ^ 20)
    for name, text in pairs { dense = dense, small_parts = small_parts } do
      for _, strict in ipairs { true, false } do
        local expected = outcome(parse_of(text, name), { strict = strict, threads = 1 })
        assert.is_nil(expected:find("^error"), expected:sub(1, 200))
        for _, run in ipairs { { 2, nil }, { 3, 4096 } } do
          local got = outcome(parse_of(text, name), { strict = strict, threads = run[1], chunk_size = run[2] })
          assert.is_nil(first_difference(expected, got), name)
        end
      end
    end
  end)

  -- A profile whose lines are mostly names, as Xdebug writes it: one block per call, each
  -- `fl=`, `fn=`, a self cost, a call (`cfl=`, `cfn=`, `calls=`, its cost); functions defined
  -- as they are first met, some only past the middle. `within[i]` is put after block i's self
  -- cost line, `after[i]` after the block.
  local function names_text(within, after)
    local out = { "version: 1", "creator: xdebug 3.2.2 (PHP 8.2.7)", "cmd: a.php", "part: 1",
      "positions: line", "events: Time_(10ns) Memory_(bytes)", "" }
    local defined = {}
    local function name(id)
      if defined[id] then return ("(%d)"):format(id) end
      defined[id] = true
      return ("(%d) php::f%d"):format(id, id)
    end
    for i = 1, 3000 do
      local fn = i > 1500 and i % 10 == 0 and 300 + i % 40 + 1 or i % 300 + 1
      out[#out + 1] = "fl=(1)" .. (i == 1 and " /a.php" or "")
      out[#out + 1] = "fn=" .. name(fn)
      out[#out + 1] = ("%d %d %d"):format(i % 90 + 1, i % 13 + 1, i % 5)
      if within[i] then out[#out + 1] = within[i] end
      out[#out + 1] = "cfl=(1)"
      out[#out + 1] = "cfn=" .. name((i * 7) % 300 + 1)
      out[#out + 1] = "calls=1 0 0"
      out[#out + 1] = ("%d %d %d"):format(i % 50 + 1, i % 7 + 1, i % 3)
      if after[i] then out[#out + 1] = after[i] end
      out[#out + 1] = ""
    end
    return table.concat(out, "\n")
  end

  it("reads names on the workers where they are most of the lines, as one thread reads them", function()
    -- past the first pieces the workers read the names too, and the stitch places them; what
    -- one thread would read otherwise is parsed again on the calling thread, every piece after
    -- it too: each case below, at the middle of the profile, against a load on one thread
    local cases = {
      plain = {},
      redefined = { within = { [1600] = "fn=(3) php::other\n7 1 1" } },
      undefined = { within = { [1600] = "cfl=(1)\ncfn=(9999)\ncalls=1 0 0\n3 1 1" } },
      appended = { after = { [1600] = "==== NEW PROFILE file: a.php\nversion: 1\ncreator: xdebug 3.2.2\n"
        .. "cmd: b.php\npart: 1\npositions: line\nevents: Time_(10ns) Memory_(bytes)\n" } },
      inlined = { within = { [1600] = "fi=(2) /b.php\n12 4 1\nfe=(1)\n13 2 0", [2400] = "fi=(2)\n14 1 1\nfe=(1)" } },
      objects = { within = { [1600] = "cob=(1) /usr/lib/x.so\ncfl=(1)\ncfn=(5)\ncalls=2 0 0\n4 1 1" } },
      -- a callee's object given before a block and used by the call of the next
      object_pending = { after = { [1600] = "cob=(2) /lib/y.so" } },
      callee_before = { within = { [1601] = "calls=1 0 0\n5 1 1" } },
      relative = { within = { [1600] = "+3 1 1\n-2 1 0" } },
      negative = { within = { [1600] = "9 -4 1" } },
      -- one function named by its text and by its id in turn: its calls in the order read
      named_twice = { after = { [1600] = table.concat({ "fn=php::f3", "3 1 1", "cfl=(1)", "cfn=(20)",
        "calls=1 0 0", "31 1 1", "fl=(1)", "fn=(3)", "4 1 1", "cfl=(1)", "cfn=(21)", "calls=1 0 0",
        "32 1 1", "fl=(1)", "fn=php::f3", "5 1 1", "cfl=(1)", "cfn=(22)", "calls=1 0 0", "33 1 1" }, "\n") } },
      jumps = { within = { [1600] = "jump=3 40\n41 0 0", [2400] = "jcnd=2/5 42\n43 0 0" } },
      summary = { after = { [3000] = "summary: 1 2" } },
      -- a second part the options leave out, and a third they keep
      parts = { after = { [1600] = "part: 2\n", [2400] = "part: 3\n" }, opts = { part = 3 } },
      parts_first = { after = { [1600] = "part: 2\n" }, opts = { part = 1 } },
    }
    for name, case in pairs(cases) do
      local text = names_text(case.within or {}, case.after or {})
      same_everywhere("names " .. name, parse_of(text, name .. ".out"), case.opts)
    end
  end)

  it("keeps sections, selections, Xdebug's profiles and inlined files in order", function()
    for name, text in pairs(TEXTS) do same_everywhere(name, parse_of(text, name)) end
    same_everywhere("compaction", parse_of(compaction_text(), "compaction"))
    local back, ir, positions = comes_back_text()
    same_everywhere("functions that come back", parse_of(back, "back"))
    local prof = assert(callgrind.parse(back, "back", { threads = 2, chunk_size = 100 }))
    assert.equal(ir, prof:total("Ir"))
    local count = 0
    for fn in prof:functions() do
      if fn.name == "func_1" then
        for _ in fn:lines() do count = count + 1 end
      end
    end
    assert.equal(positions, count)
    same_everywhere("part 2", parse_of(TEXTS.parts, "parts"), { part = 2 })
    same_everywhere("section 1", parse_of(TEXTS.parts, "parts"), { section = 1 })
    same_everywhere("no cycles", parse_of(TEXTS.parts, "parts"), { cycles = false })
  end)

  it("ends a call's or jump's names at an indented position line, as one thread does", function()
    for _, threads in ipairs { 1, 2, 3 } do
      local prof = assert(callgrind.parse(TEXTS.indented_call, "call.out", { threads = threads, chunk_size = 16 }))
      -- h is called after g's call, whose cob= ended at " 1357": h is in f2's object
      assert.equal("libA", prof:find("h").object)
      assert.equal("libB", prof:find("g").object)
      prof = assert(callgrind.parse(TEXTS.indented_jump, "jump.out", { threads = threads, chunk_size = 16 }))
      local f2 = prof:find("f2")
      local targets = {}
      for jump in f2:jumps() do targets[#targets + 1] = jump.to_function.name .. " " .. jump.executed end
      -- the second jump names no target function: its own
      assert.same({ "j 4", "f2 1" }, targets)
    end
  end)

  it("keeps the last positions before a piece with names of its own that has none", function()
    for _, run in ipairs { { 1 }, { 2, 1 }, { 2, 36 }, { 3, 100 } } do
      local prof = assert(callgrind.parse(TEXTS.named_no_position, "x.out", { threads = run[1], chunk_size = run[2] }))
      local lines = line_costs(prof, "main")
      -- "+3" after the lines 100, 200, ... 600 of the blocks before the empty ones
      assert.same({ "103=5", "203=5", "303=5", "403=5", "503=5", "603=5" }, lines)
      prof:close()
    end
  end)

  it("keeps the last positions before the piece that holds a block's fn= line alone", function()
    -- When cutting stops at a block, the piece just begun holds its fn= line alone and the
    -- lines after it are the calling thread's; that piece began with no last position known
    -- (cut where an absolute position line follows) and must leave the one before it in force.
    -- In a tolerant load the absolute line "10 5 5" (two costs, one event) is skipped, so f<b>'s
    -- "+1 3" is line 13: one past the call site 12 of the block before (lines 10, 11, call 12).
    local function text_with(bad)
      local out = { "events: Ir", "positions: line", "fl=a.c" }
      for k = 1, 40 do
        out[#out + 1] = "fn=f" .. k
        out[#out + 1] = k == bad and "10 5 5" or "10 5"
        out[#out + 1] = "+1 3"
        out[#out + 1] = "cfn=g"
        out[#out + 1] = "calls=1 20"
        out[#out + 1] = "+1 7"
      end
      return table.concat(out, "\n") .. "\n"
    end
    for bad = 2, 40 do
      local text = text_with(bad)
      for _, run in ipairs { { 1 }, { 2, 1 }, { 2, 7 }, { 2, 36 }, { 3, 13 } } do
        local prof = assert(callgrind.parse(text, "t.out", { strict = false, threads = run[1], chunk_size = run[2] }))
        assert.same({ "13=3" }, line_costs(prof, "f" .. bad))
        assert.same({ ("t.out:%d: too many costs: 'events:' lists 1 event"):format(5 + (bad - 1) * 6) },
          (prof:warnings()))
        prof:close()
      end
    end
  end)

  it("keeps the names the splitter has read when a piece behind it is stitched", function()
    -- a cfi= that no call follows stays in force into the next block, whose call to h takes
    -- it: h in x.c after the blocks that end so (k = 1, 8, ..., 1996: 286 of them), in a.c
    -- after the others. The pieces before are stitched while the splitter reads on; the names
    -- they ended with must not replace the splitter's (a load that did so took x.c for calls
    -- after any piece that ended with it, in most loads).
    local out = { "events: Ir", "fl=a.c" }
    for k = 1, 2000 do
      out[#out + 1] = "fn=f" .. k
      for l = 1, 20 do out[#out + 1] = l .. " 1" end
      out[#out + 1] = "cfn=h"
      out[#out + 1] = "calls=1 6"
      out[#out + 1] = "31 3"
      if k % 7 == 1 then out[#out + 1] = "cfi=x.c" end
    end
    local text = table.concat(out, "\n") .. "\n"
    local function callees_of_h(prof)
      local seen = {}
      for _, fn in ipairs(prof:find_all("h")) do seen[#seen + 1] = fn.file .. " " .. fn.called end
      table.sort(seen)
      prof:close()
      return table.concat(seen, ", ")
    end
    assert.equal("a.c 1714, x.c 286", callees_of_h(callgrind.parse(text, "h.out", { threads = 1 })))
    for _ = 1, TSAN and 1 or 5 do
      for _, run in ipairs { { 2, 5 }, { 2, 13 }, { 3, 64 }, { 2, 1000 } } do
        local prof = assert(callgrind.parse(text, "h.out", { threads = run[1], chunk_size = run[2] }))
        assert.equal("a.c 1714, x.c 286", callees_of_h(prof))
      end
    end
  end)

  it("stops at the first error in the order of the input, the builder's or the parser's", function()
    -- the builder's thread finds the overflow of line 4 (and, the section's sum saturated, of
    -- line 5), the parser the bad cost of line 6
    local text = table.concat({ "events: Ir", "fn=(1) main", "1 " .. BIG, "2 " .. BIG, "3 1", "4 x", "" }, "\n")
    for _, threads in ipairs { 1, 2, 3, 8 } do
      for _, chunk in ipairs(CHUNKS) do
        local prof, err, kind = callgrind.parse(text, "t.out", { threads = threads, chunk_size = chunk })
        assert.is_nil(prof)
        assert.equal("t.out:4: cost sum does not fit in 64 bits", err)
        assert.equal("format", kind)
        local tolerant = assert(callgrind.parse(text, "t.out",
          { threads = threads, chunk_size = chunk, strict = false }))
        assert.same({ "t.out:4: cost sum does not fit in 64 bits",
          "t.out:5: cost sum does not fit in 64 bits", "t.out:6: bad cost 'x'" }, (tolerant:warnings()))
      end
    end
  end)

  it("gives the same error for a bad line in the middle of a big profile", function()
    local good = generated.profile_text(400, 30)
    local lines = {}
    for line in good:gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
    local middle = math.floor(#lines / 2)
    while not lines[middle]:match("^%d") do middle = middle + 1 end
    local bad = {}
    for i, line in ipairs(lines) do bad[i] = i == middle and "+x 3" or line end
    local text = table.concat(bad, "\n") .. "\n"
    local expected = ("big.out:%d: bad line position '+x'"):format(middle)
    for _, threads in ipairs { 1, 2, 3, 8 } do
      for _, chunk in ipairs(CHUNKS) do
        local prof, err = callgrind.parse(text, "big.out", { threads = threads, chunk_size = chunk })
        assert.is_nil(prof)
        assert.equal(expected, err)
      end
    end
  end)

  it("reads files of several of the reader's 2 MiB chunks, plain and gzip, as a load on one does", function()
    -- the functions' costs, counts and totals (the whole model of files this big would take the
    -- spec long to compare): a line's bytes read wrong would change them, or make a piece meet
    -- a fault and the file load again on one thread, which the progress counting from the
    -- start again tells
    local function summary(opts, path)
      local last, again = 0, false
      opts.progress = function(done)
        if done < last then again = true end
        last = done
        return true
      end
      local prof, err = callgrind.load(path, opts)
      if not prof then return "error " .. tostring(err) end
      assert.is_false(again, path .. " was loaded again")
      local events = prof:events()
      local out = { table.concat(dump(model_stats(prof), {})) }
      for _, ev in ipairs(events) do out[#out + 1] = ev .. " " .. tostring(prof:total(ev)) end
      for fn in prof:functions() do
        out[#out + 1] = table.concat({ fn_key(fn), costs(fn, "self", events),
          costs(fn, "inclusive", events), tostring(fn.called) }, " ")
      end
      prof:close()
      return table.concat(out, "\n")
    end
    -- many pieces, whose lines cross the chunks' ends; and functions of a few MB each, whose
    -- pieces span several chunks
    for _, shape in ipairs(TSAN and { { 16000, 30 } } or { { 16000, 30 }, { 3, 150000 } }) do
      local text = generated.profile_text(shape[1], shape[2])
      assert.is_true(#text > 5 * 2 ^ 20)
      local path = os.tmpname()
      fixtures.write(path, text)
      local files = { path }
      if not TSAN then
        os.execute("gzip -c " .. path .. " > " .. path .. ".gz")
        assert.equal("\31\139", fixtures.read(path .. ".gz"):sub(1, 2))
        files[2] = path .. ".gz"
      end
      for _, file in ipairs(files) do
        local expected = summary({ threads = 1 }, file)
        assert.truthy(expected:find(("Ir %d"):format(generated.ir_total(shape[1], shape[2])), 1, true))
        for _, run in ipairs { { 2, nil }, { 3, 4096 } } do
          local got = summary({ threads = run[1], chunk_size = run[2] }, file)
          local diff = first_difference(expected, got)
          assert.is_nil(diff, ("%s, %d threads, pieces of %s bytes: %s"):format(file, run[1],
            tostring(run[2] or "default"), tostring(diff)))
        end
      end
      os.remove(path)
      os.remove(path .. ".gz")
    end
  end)

  it("is cancelled by the progress callback, and loads in the background", function()
    local text = generated.profile_text(3000, 30)
    local path = os.tmpname()
    fixtures.write(path, text)
    -- on two threads, and on three, where a thread of its own reads ahead
    for _, threads in ipairs { 2, 3 } do
      local calls = 0
      local prof, err, kind = callgrind.load(path, { threads = threads, chunk_size = 4096, progress = function()
        calls = calls + 1
        return calls < 2
      end })
      assert.is_nil(prof)
      assert.equal("aborted", kind)
      assert.equal(path .. ": load aborted by the progress callback", err)
      assert.equal(2, calls)
    end
    local async = assert(callgrind.load_async(path, { threads = 3, chunk_size = 512 }):wait())
    local sync = assert(callgrind.load(path, { threads = 1 }))
    assert.equal(snapshot(sync), snapshot(async))
    assert.equal(generated.ir_total(3000, 30), async:total("Ir"))
    os.remove(path)
  end)

  it("checks the option", function()
    assert.error_matches(function() callgrind.parse("events: Ir\n", "x", { threads = 0 }) end,
      "opts.threads must be an integer from 1 to 1024")
    assert.error_matches(function() callgrind.parse("events: Ir\n", "x", { threads = 1.5 }) end,
      "opts.threads must be an integer")
    assert.error_matches(function() callgrind.parse("events: Ir\n", "x", { chunk_size = -1 }) end,
      "opts.chunk_size must be a positive integer")
  end)
end)
