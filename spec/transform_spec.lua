-- Profiles in, profiles out: merges, differences, selections and sections chosen at load.
local callgrind = require "callgrind"
local report = require "callgrind.report"
local model = require "helpers.model"
local vg = require "helpers.valgrind"

local function parse(text, name)
  return assert(callgrind.parse(text, name or "t.out"))
end

local a = parse([[
events: Ir Dr
fl=a.c
fn=main
1 10 1
cfn=work
calls=2 5
2 30 3
fn=work
5 30 3
]], "a.out")

-- cachegrind orders events differently; `Bc` exists only here
local b = parse([[
events: Dr Bc Ir
fl=a.c
fn=main
1 2 7 4
fl=b.c
fn=extra
9 0 0 6
]], "b.out")

describe("callgrind.merge", function()
  local m = callgrind.merge { a, b }

  it("sums functions matched by name, file and object, and events by name", function()
    assert.same({ "Ir", "Dr", "Bc" }, m:events())
    assert.equal(10 + 4, m:find("main"):self("Ir"))
    assert.equal(1 + 2, m:find("main"):self("Dr"))
    assert.equal(7, m:find("main"):self("Bc"))
    assert.equal(0, m:find("work"):self("Bc")) -- an event missing from one profile counts 0 there
    assert.equal(6, m:find("extra", "b.c"):self("Ir"))
    assert.equal(50, m:total("Ir"))
    assert.equal(2, m:find("work").called)
    assert.equal(2, #m:sections())
  end)

  it("leaves its sources as they were", function()
    assert.equal(40, a:total("Ir"))
    assert.same({ "Dr", "Bc", "Ir" }, b:events())
  end)

  it("gives what loading the files together gives", function()
    local pa, pb = os.tmpname(), os.tmpname()
    assert(a:write(pa))
    assert(b:write(pb))
    local together = assert(callgrind.load { pa, pb })
    assert.is_nil(model.difference(model.snapshot(m), model.snapshot(together)))
    os.remove(pa)
    os.remove(pb)
  end)

  -- Instruction-level records of one function in three runs: positions each run has alone,
  -- positions they share (summed), and two files at one address and line (inlined code).
  local runs = {
    parse([[
positions: instr line
events: Ir
fl=a.c
fn=f
0x10 1 5
fi=h.h
0x14 2 7
fe=a.c
0x18 3 1
]], "r1.out"),
    parse([[
positions: instr line
events: Ir
fl=a.c
fn=f
0x12 1 2
fi=h.h
0x14 2 3
fi=g.h
0x14 2 4
fe=a.c
0x20 4 6
fn=g
0x30 9 1
]], "r2.out"),
    parse([[
positions: instr line
events: Ir Dr
fl=a.c
fn=f
0x10 1 1 1
fi=g.h
0x14 2 2
]], "r3.out"),
  }

  local function records(prof, name)
    local out = {}
    for line in prof:find(name):lines() do
      out[#out + 1] = ("%x %d %s %s %s"):format(line.addr, line.line, line.file, tostring(line:cost("Ir")),
        tostring(line:cost("Dr")))
    end
    return out
  end

  it("merges each function's records by position, shared ones summed with their weights", function()
    local sum = callgrind.merge(runs)
    assert.same({ "10 1 a.c 6 1", "12 1 a.c 2 0", "14 2 g.h 6 0", "14 2 h.h 10 0", "18 3 a.c 1 0",
      "20 4 a.c 6 0" }, records(sum, "f"))
    assert.equal(31, sum:find("f"):self("Ir"))
    local weighted = require("callgrind.core").combine(runs, { 2, 1, -3 })
    assert.same({ "10 1 a.c 7 -3", "12 1 a.c 2 0", "14 2 g.h -2 0", "14 2 h.h 17 0", "18 3 a.c 2 0",
      "20 4 a.c 6 0" }, records(weighted, "f"))
    assert.same({ "30 9 a.c 1 0" }, records(weighted, "g"))
    assert.equal(2 * 13 + 15 - 3 * 3, weighted:find("f"):self("Ir"))
  end)

  it("merges the records of many inputs, each function's from the inputs that have it", function()
    local many = {}
    for i = 1, 25 do many[i] = runs[(i - 1) % 3 + 1] end -- runs 1, 2 and 3 by turns: 9, 8 and 8 times
    local sum = callgrind.merge(many)
    assert.same({ "10 1 a.c 53 8", "12 1 a.c 16 0", "14 2 g.h 48 0", "14 2 h.h 87 0", "18 3 a.c 9 0",
      "20 4 a.c 48 0" }, records(sum, "f"))
    assert.same({ "30 9 a.c 8 0" }, records(sum, "g"))
  end)

  it("merges records as loading the files together does", function()
    local paths = {}
    for i, run in ipairs(runs) do
      paths[i] = os.tmpname()
      assert(run:write(paths[i]))
    end
    local together = assert(callgrind.load(paths))
    assert.is_nil(model.difference(model.snapshot(callgrind.merge(runs)), model.snapshot(together)))
    for _, path in ipairs(paths) do os.remove(path) end
  end)

  it("raises for a list without profiles", function()
    assert.has_error(function() callgrind.merge {} end)
    assert.has_error(function() callgrind.merge { a, "x" } end)
    assert.has_error(function() callgrind.merge(a) end)
  end)
end)

describe("callgrind.diff", function()
  it("is zero everywhere for a profile and itself", function()
    local d = callgrind.diff(a, a)
    for fn in d:functions() do
      for _, ev in ipairs(d:events()) do
        assert.equal(0, fn:self(ev))
        assert.equal(0, fn:inclusive(ev))
        for call in fn:callees() do assert.equal(0, call:inclusive(ev)) end
        for line in fn:lines() do assert.equal(0, line:cost(ev)) end
      end
    end
    assert.equal(0, d:total("Ir"))
  end)

  it("subtracts the base, keeps functions of one side, and keeps the new run's call counts", function()
    local d = callgrind.diff(a, b) -- b minus a
    assert.equal(4 - 10, d:find("main"):self("Ir"))
    assert.equal(-30, d:find("work"):self("Ir"))
    assert.equal(6, d:find("extra"):self("Ir"))
    assert.equal(10 - 40, d:total("Ir"))
    assert.equal(0, d:find("work").called) -- b never calls work
    local r = report.diff(a, b, { event = "Ir" })
    assert.truthy(r:find("Total: 40 -> 10 (-30)", 1, true))
  end)

  it("raises for arguments that are not profiles", function()
    assert.has_error(function() callgrind.diff(a) end)
    assert.has_error(function() callgrind.diff("a", b) end)
  end)
end)

describe("core.combine without line records", function()
  local core = require "callgrind.core"
  local fixtures = require "helpers.fixtures"

  -- name|file|object -> { self..., inclusive..., called, callees = {callee key -> count, costs} }
  local function functions(prof)
    local out, events = {}, prof:events()
    for fn in prof:functions() do
      local key = fn.name .. "|" .. fn.file .. "|" .. fn.object
      local entry = { called = fn.called, callees = {}, cycle = fn.cycle ~= nil }
      for _, ev in ipairs(events) do
        entry[#entry + 1] = fn:self(ev)
        entry[#entry + 1] = fn:inclusive(ev)
      end
      for call in fn:callees() do
        local to = call.callee
        local k = to.name .. "|" .. to.file .. "|" .. to.object .. "@" .. call.file .. ":" .. call.line
        entry.callees[k] = { call.count, call:inclusive(events[1]) }
      end
      out[key] = entry
    end
    return out
  end

  it("has the full sum's functions, costs, calls and cycles, a record per function and no jumps", function()
    local loaded = {}
    for _, path in ipairs(fixtures.testdata_profiles("")) do
      local prof = callgrind.load(path)
      if prof and prof:stats().functions > 0 then loaded[#loaded + 1] = prof end
    end
    loaded[#loaded + 1] = assert(callgrind.load("examples/data/sample.callgrind.gz"))
    local small = assert(callgrind.load((vg.profile("callgrind_workload_small"))[1]))
    local large = assert(callgrind.load((vg.profile("callgrind_workload_large"))[1]))
    local pairs_ = { { { large, small }, { 1, -1 } }, { { small, large, small }, { 1, 2, 1 } } }
    for i = 1, #loaded do
      pairs_[#pairs_ + 1] = { { loaded[i], loaded[i % #loaded + 1] }, { 1, -1 } }
      pairs_[#pairs_ + 1] = { { loaded[i], loaded[i] }, { 1, 1 } }
    end
    assert.is_true(#pairs_ > 10)
    for _, case in ipairs(pairs_) do
      local full = assert(core.combine(case[1], case[2]))
      local summed = assert(core.combine(case[1], case[2], { lines = false }))
      assert.same(functions(full), functions(summed))
      assert.same(full:events(), summed:events())
      for _, ev in ipairs(full:events()) do assert.equal(full:total(ev), summed:total(ev)) end
      assert.equal(#full:cycles(), #summed:cycles())
      assert.equal(0, summed:stats().jumps)
      assert.is_true(summed:stats().lines <= summed:stats().functions)
    end
  end)
end)

describe("prof:select", function()
  local prof = parse [[
events: Ir
fl=a.c
fn=main
1 5
cfn=hot
calls=1 1
2 90
cfn=cold
calls=1 1
3 5
fn=hot
10 60
cfn=leaf
calls=3 1
11 30
fn=leaf
20 30
fn=cold
30 5
]]

  it("keeps the functions a filter names and folds the others into one", function()
    local s = prof:select { keep = { name = "^main$" } }
    local dropped = s:find("(dropped functions)")
    assert.equal(60 + 30 + 5, dropped:self("Ir"))
    assert.equal(100, s:total("Ir"))
    assert.equal(100, s:find("main"):inclusive("Ir"))
    assert.equal(2, s:stats().functions)
  end)

  it("drops functions by filter or predicate", function()
    local s = prof:select { drop = function(fn) return fn.name == "leaf" end, dropped_name = "(rest)" }
    assert.equal(30, s:find("(rest)"):self("Ir"))
    assert.equal(90, s:find("hot"):inclusive("Ir"))
    assert.equal(3, s:find("(rest)").called)
  end)

  it("drops functions below a threshold of the total, by inclusive or self cost", function()
    local s = prof:select { threshold = 10 } -- cold: inclusive 5 < 10% of 100
    assert.is_nil(s:find("cold"))
    assert.equal(5, s:find("(dropped functions)"):self("Ir"))
    local by_self = prof:select { threshold = 35, by = "self" } -- hot 60 stays; leaf 30, main 5, cold 5 go
    assert.same({ "(dropped functions)", "hot" }, (function()
      local names = {}
      for fn in by_self:functions() do names[#names + 1] = fn.name end
      table.sort(names)
      return names
    end)())
    assert.equal(100, by_self:total("Ir"))
  end)

  it("keeps everything, with no extra function, when nothing is dropped", function()
    local s = prof:select {}
    assert.is_nil(model.difference(model.snapshot(prof), model.snapshot(s)))
  end)

  it("raises for bad options", function()
    assert.has_error(function() prof:select { section = 1 } end)
    assert.has_error(function() prof:select { threshold = 5, by = "sideways" } end)
    assert.has_error(function() prof:select { keep = 3 } end)
  end)
end)

describe("choosing sections when loading", function()
  local text = [[
events: Ir
part: 1
thread: 1
fl=(1) a.c
fn=(1) main
1 100
totals: 100
part: 2
thread: 1
fn=(1)
1 20
totals: 20
part: 2
thread: 2
fl=(1)
fn=(2) worker
5 7
totals: 7
]]

  it("keeps the n-th section", function()
    local p = parse(text) -- all three
    assert.equal(127, p:total("Ir"))
    local second = assert(callgrind.parse(text, "t", { section = 2 }))
    assert.equal(20, second:total("Ir"))
    assert.equal(1, #second:sections())
    assert.equal(2, second:sections()[1].part)
  end)

  it("keeps the sections of a part and thread, and reads names from the others", function()
    local p = assert(callgrind.parse(text, "t", { part = 2, thread = 2 }))
    assert.equal(7, p:total("Ir"))
    assert.equal("a.c", p:find("worker").file) -- fl=(1) was defined in a skipped section
    assert.is_nil(p:find("main")) -- no function from skipped sections
    local part2 = assert(callgrind.parse(text, "t", { part = 2 }))
    assert.equal(27, part2:total("Ir"))
    assert.equal(2, #part2:sections())
  end)

  it("fails with the parts and threads there are when no section matches", function()
    local p, err, kind = callgrind.parse(text, "t", { part = 9 })
    assert.is_nil(p)
    assert.equal("t: no section has part 9 (parts: 1, 2)", err)
    assert.equal("usage", kind)
    assert.equal("t: no section has thread 5 (threads: 1, 2)", select(2, callgrind.parse(text, "t", { thread = 5 })))
    assert.equal("t: no section has part 1 and thread 3 (parts: 1, 2; threads: 1, 2)",
      select(2, callgrind.parse(text, "t", { part = 1, thread = 3 })))
    assert.equal("t: no section 9: the input has 3", select(2, callgrind.parse(text, "t", { section = 9 })))
  end)

  it("raises for bad section options", function()
    assert.has_error(function() callgrind.parse(text, "t", { section = 0 }) end)
    assert.has_error(function() callgrind.parse(text, "t", { part = "two" }) end)
  end)
end)

if not vg.available() then
  describe("transformations of valgrind profiles", function()
    pending("gcc, valgrind and callgrind_annotate are needed on PATH")
  end)
  return
end

local function functions_of(prof, object_pattern)
  local out = {}
  for fn in prof:functions() do
    if fn.object:find(object_pattern) then
      out[fn.name .. "|" .. fn.file] = { fn:self("Ir"), fn:inclusive("Ir"), fn.called }
    end
  end
  return out
end

describe("transformations of valgrind profiles", function()
  it("merge the per-thread files of a --separate-threads run into the one-file run's totals", function()
    -- the same program run twice: once a file per thread, once all threads in one file (plus
    -- the client-request dump in both). The program's own functions do the same work in both
    -- runs; glibc's thread start-up and locking may differ by a few instructions.
    local separate = callgrind.merge((function()
      local list = {}
      for i, path in ipairs((vg.profile("callgrind_threads_separate"))) do list[i] = assert(callgrind.load(path)) end
      return list
    end)())
    local single = assert(callgrind.load((vg.profile("callgrind_client_dump"))))
    local program = "/threads$"
    local ours, theirs = functions_of(separate, program), functions_of(single, program)
    local work_key
    for key in pairs(ours) do if key:find("^work|") then work_key = key end end
    assert.is_not_nil(work_key)
    assert.same(theirs[work_key], ours[work_key])
    -- main and the thread function may trade a few instructions between runs; their sum may not
    local function program_total(fns)
      local total = 0
      for _, costs in pairs(fns) do total = total + costs[1] end
      return total
    end
    assert.equal(program_total(theirs), program_total(ours))
    -- the merged total is the sum of the thread files' totals, exactly
    local sum = 0
    for _, path in ipairs((vg.profile("callgrind_threads_separate"))) do
      sum = sum + assert(callgrind.load(path)):total("Ir")
    end
    assert.equal(sum, separate:total("Ir"))
  end)

  it("name the function that changed between two runs with different inputs", function()
    local small = assert(callgrind.load((vg.profile("callgrind_workload_small"))[1]))
    local large = assert(callgrind.load((vg.profile("callgrind_workload_large"))[1]))
    local d = callgrind.diff(small, large)
    local top = d:top { event = "Ir" }[1]
    assert.equal("scaled", top.name)
    assert.equal(large:find("scaled"):self("Ir") - small:find("scaled"):self("Ir"), top:self("Ir"))
    assert.equal(0, d:find("steady"):self("Ir"))
    local text = report.diff(small, large, { limit = 3 })
    local first = text:match("Biggest regressions by self cost\n[^\n]*\n([^\n]*)")
    assert.truthy(first:find(":scaled", 1, true), text)
  end)
end)
