-- The examples of the Callgrind format specification, with their numbers worked out by hand.
local callgrind = require "callgrind"
local fixtures = require "helpers.fixtures"

local function parse(text, name)
  local prof, err = callgrind.parse(text, name or "example")
  assert(prof, err)
  return prof
end

local function lines_of(fn, ev)
  local out = {}
  for l in fn:lines() do
    out[#out + 1] = { file = l.file, line = l.line, addr = l.addr, cost = l:cost(ev or 1) }
  end
  return out
end

describe("the simple example", function()
  local prof = parse [[
# callgrind format
events: Cycles Instructions Flops
fl=file.f
fn=main
15 90 14 2
16 20 12
]]

  it("lists the events in file order", function()
    assert.same({ "Cycles", "Instructions", "Flops" }, prof:events())
  end)

  it("sums the two cost lines into main's self cost; missing costs are zero", function()
    local main = prof:find("main")
    assert.equal("file.f", main.file)
    assert.equal(90 + 20, main:self("Cycles"))
    assert.equal(14 + 12, main:self("Instructions"))
    assert.equal(2 + 0, main:self("Flops"))
    assert.equal(2, main:self(3))
    assert.equal(110, prof:total("Cycles"))
  end)

  it("keeps one record per source line", function()
    local main = prof:find("main")
    assert.same({
      { file = "file.f", line = 15, cost = 90 },
      { file = "file.f", line = 16, cost = 20 },
    }, lines_of(main, "Cycles"))
    local l16 = fixtures.collect(main:lines())[2]
    assert.equal(0, l16:cost("Flops"))
    assert.equal(12, l16:cost("Instructions"))
  end)

  it("has no calls, so main is called 0 times and its inclusive cost is its self cost", function()
    local main = prof:find("main")
    assert.equal(0, main.called)
    assert.equal(110, main:inclusive("Cycles"))
    assert.same({}, fixtures.collect(main:callees()))
  end)
end)

local extended = fixtures.EXTENDED

local compressed = [[
# callgrind format
events: Instructions

fl=(1) file1.c
fn=(1) main
16 20
cfn=(2) func1
calls=1 50
16 400
cfi=(2) file2.c
cfn=(3) func2
calls=3 20
16 400

fn=(2)
51 100
cfi=(2)
cfn=(3)
calls=2 20
51 300

fl=(2)
fn=(3)
20 700
]]

-- The third form: all names defined up front, then only references.
local predefined = [[
# callgrind format
events: Instructions

# define file ID mapping
fl=(1) file1.c
fl=(2) file2.c
# define function ID mapping
fn=(1) main
fn=(2) func1
fn=(3) func2

fl=(1)
fn=(1)
16 20
cfn=(2)
calls=1 50
16 400
cfi=(2)
cfn=(3)
calls=3 20
16 400

fn=(2)
51 100
cfi=(2)
cfn=(3)
calls=2 20
51 300

fl=(2)
fn=(3)
20 700
]]

-- Everything a test can observe of a profile, as plain tables.
local function model_of(prof)
  local fns = {}
  for fn in prof:functions() do
    local callees = {}
    for c in fn:callees() do
      callees[#callees + 1] = {
        callee = c.callee.name, count = c.count, file = c.file, line = c.line,
        inclusive = c:inclusive(1), target_line = c.target_line,
      }
    end
    fns[fn.name] = {
      file = fn.file, object = fn.object, called = fn.called, cycle = fn.cycle,
      self = fn:self(1), inclusive = fn:inclusive(1), lines = lines_of(fn), callees = callees,
    }
  end
  return { events = prof:events(), total = prof:total(1), functions = fns }
end

describe("the extended example", function()
  local prof = parse(extended)
  local by = fixtures.functions_by_name(prof)

  it("has main, func1 and func2 with their files", function()
    assert.equal("file1.c", by.main.file)
    assert.equal("file1.c", by.func1.file) -- the caller's file: no cfi= before cfn=func1
    assert.equal("file2.c", by.func2.file)
    assert.equal(3, prof:stats().functions)
  end)

  it("gives main an inclusive cost of 820 = 20 self + 400 + 400", function()
    assert.equal(20, by.main:self(1))
    assert.equal(820, by.main:inclusive(1))
    assert.equal(820, by.main:inclusive("Instructions"))
  end)

  it("gives func2 self cost 700, called 5 times (3 from main, 2 from func1)", function()
    assert.equal(700, by.func2:self(1))
    assert.equal(5, by.func2.called)
    -- called: inclusive = what its callers spent in it: 400 + 300
    assert.equal(700, by.func2:inclusive(1))
  end)

  it("gives func1 self 100 and inclusive 400, called once", function()
    assert.equal(100, by.func1:self(1))
    assert.equal(400, by.func1:inclusive(1))
    assert.equal(1, by.func1.called)
  end)

  it("records each call with its count, call site and inclusive cost", function()
    local calls = fixtures.collect(by.main:callees())
    assert.equal(2, #calls)
    assert.equal(by.func1, calls[1].callee)
    assert.equal(by.main, calls[1].caller)
    assert.equal(1, calls[1].count)
    assert.equal("file1.c", calls[1].file)
    assert.equal(16, calls[1].line)
    assert.equal(400, calls[1]:inclusive(1))
    assert.equal(50, calls[1].target_line)
    assert.equal(by.func2, calls[2].callee)
    assert.equal(3, calls[2].count)
    assert.equal(400, calls[2]:inclusive(1))
    local callers = fixtures.collect(by.func2:callers())
    assert.equal(2, #callers)
    assert.equal(by.main, callers[1].caller)
    assert.equal(by.func1, callers[2].caller)
    assert.equal(2, callers[2].count)
    assert.equal(51, callers[2].line)
    assert.equal(300, callers[2]:inclusive(1))
  end)

  it("totals the self costs: 20 + 100 + 700", function()
    assert.equal(820, prof:total(1))
  end)

  it("has no positions but lines, so addresses are nil", function()
    assert.same({ "line" }, prof:positions())
    local l = fixtures.collect(by.main:lines())[1]
    assert.is_nil(l.addr)
    assert.equal(16, l.line)
  end)

  it("is the same model with name compression, in both compressed forms", function()
    local plain = model_of(prof)
    assert.same(plain, model_of(parse(compressed)))
    assert.same(plain, model_of(parse(predefined)))
  end)
end)

describe("the subposition compression example", function()
  local absolute = [[
# callgrind format
positions: instr line
events: ticks

fn=func
0x80001234 90 1
0x80001237 90 5
0x80001238 91 6
]]
  local relative = [[
# callgrind format
positions: instr line
events: ticks

fn=func
0x80001234 90 1
+3 * 5
+1 +1 6
]]
  local expected = {
    { file = "", addr = 0x80001234, line = 90, cost = 1 },
    { file = "", addr = 0x80001237, line = 90, cost = 5 },
    { file = "", addr = 0x80001238, line = 91, cost = 6 },
  }

  it("decodes absolute addresses and lines", function()
    local prof = parse(absolute)
    assert.same({ "instr", "line" }, prof:positions())
    assert.same(expected, lines_of(prof:find("func")))
  end)

  it("decodes +N, -N and * against the last cost line", function()
    local prof = parse(relative)
    assert.same(expected, lines_of(prof:find("func")))
    assert.equal(12, prof:find("func"):self("ticks"))
  end)
end)

describe("long names and inherited event types", function()
  local prof = parse [[
# callgrind format
event: Ir : Instruction Fetches
event: Sum = Ir + Dr
events: Ir Dr
fl=a.c
fn=f
1 10 3
2 5
]]

  it("keeps the long name of Ir", function()
    assert.equal("Instruction Fetches", prof:event_info("Ir").long_name)
    assert.is_nil(prof:event_info("Dr").long_name)
  end)

  it("computes Sum = Ir + Dr wherever an event name is accepted", function()
    local f = prof:find("f")
    assert.same({ "Ir", "Dr" }, prof:events())
    assert.equal(18, f:self("Sum"))
    assert.equal(18, prof:total("Sum"))
    assert.equal(18, f:inclusive("Sum"))
    local info = prof:event_info("Sum")
    assert.is_true(info.derived)
    assert.equal("Ir + Dr", info.formula)
    local first = fixtures.collect(f:lines())[1]
    assert.equal(13, first:cost("Sum"))
  end)
end)
