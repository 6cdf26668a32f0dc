-- How real writers use the format (see the format notes): each describe is one feature, with
-- a small input written the way that writer writes it and numbers worked out by hand.
local callgrind = require "callgrind"
local fixtures = require "helpers.fixtures"

local function parse(text, opts)
  local prof, err = callgrind.parse(text, "in.out", opts)
  assert(prof, err)
  return prof
end

local function lines_of(fn, ev)
  local out = {}
  for l in fn:lines() do out[#out + 1] = { l.file, l.line, l:cost(ev or 1) } end
  return out
end

describe("line endings and spacing", function()
  it("reads CRLF files and keeps '\\r' out of names", function()
    local prof = parse("events: Ir\r\nfl=a.c\r\nfn=main\r\n3 10\r\ncfn=f\r\ncalls=1 1\r\n3 5\r\n")
    local main = prof:find("main")
    assert.equal("a.c", main.file)
    assert.equal(10, main:self("Ir"))
    assert.is_not_nil(prof:find("f", "a.c"))
  end)

  it("accepts tabs between numbers, trailing spaces and a missing final newline", function()
    local prof = parse("events:\tIr Dr\nfn=main\n3\t10\t2   \n4 1 \t")
    assert.equal(11, prof:find("main"):self("Ir"))
    assert.equal(2, prof:find("main"):self("Dr"))
  end)

  it("treats fewer costs than events as zeros", function()
    local prof = parse("events: Ir Dr Dw\nfn=main\n3 10\n4\n")
    local main = prof:find("main")
    assert.equal(0, main:self("Dw"))
    assert.same({ { "", 3, 10 }, { "", 4, 0 } }, lines_of(main))
  end)

  it("keeps spaces, parentheses and quotes in names", function()
    local prof = parse("events: Ir\nfl=/src/my file.c\nfn=(below main)\n0 1\n" ..
      "fn=std::vector<int, std::allocator<int> >::push_back(int&&)\n1 2\nfn=fact'2\n2 3\n" ..
      "fn=(7) (5)x\n3 4\nfn=(7)\n4 5\n")
    assert.equal(1, prof:find("(below main)", "/src/my file.c"):self(1))
    assert.equal(2, prof:find("std::vector<int, std::allocator<int> >::push_back(int&&)"):self(1))
    assert.equal(3, prof:find("fact'2"):self(1))
    -- a name that starts with "(digit" can only be written compressed
    assert.equal(9, prof:find("(5)x"):self(1))
  end)

  it("reads hex costs and hex deltas", function()
    local prof = parse("positions: instr line\nevents: Ir\nfn=f\n0x10 1 0x20\n+0x10 * 1\n-0x8 +2 1\n")
    local out = {}
    for l in prof:find("f"):lines() do out[#out + 1] = { l.addr, l.line, l:cost(1) } end
    -- records come sorted by (address, line, file)
    assert.same({ { 0x10, 1, 32 }, { 0x18, 3, 1 }, { 0x20, 1, 1 } }, out)
  end)

  it("parses a bb column between instr and line without taking it for a line", function()
    local prof = parse("positions: instr bb line\nevents: Ir\nfn=f\n0x10 0x100 7 5\n+1 * +1 2\n")
    local out = {}
    for l in prof:find("f"):lines() do out[#out + 1] = { l.addr, l.line, l:cost(1) } end
    assert.same({ { 0x10, 7, 5 }, { 0x11, 8, 2 } }, out)
    assert.same({ "instr", "bb", "line" }, prof:positions())
  end)
end)

describe("name compression", function()
  it("keeps three separate id tables: files, functions and objects", function()
    local prof = parse("events: Ir\nob=(1) libx.so\nfl=(1) a.c\nfn=(1) main\n1 1\n" ..
      "cob=(1)\ncfi=(1)\ncfn=(1)\ncalls=1 1\n1 1\n")
    local main = prof:find("main")
    assert.equal("libx.so", main.object)
    assert.equal("a.c", main.file)
    -- the call from main to main (same id triple) is a self-call
    assert.equal(main, main:callees()().callee)
  end)

  it("shares the file table between fl, fi, fe, cfi, cfl and jfi", function()
    local prof = parse("positions: line\nevents: Ir\nfl=(3) a.c\nfn=main\n1 1\nfi=(4) inl.h\n2 1\n" ..
      "fe=(3)\n3 1\ncfl=(4)\ncfn=g\ncalls=1 9\n3 7\n")
    local main = prof:find("main")
    assert.same({ { "a.c", 1, 1 }, { "inl.h", 2, 1 }, { "a.c", 3, 1 } }, lines_of(main))
    assert.equal("inl.h", prof:find("g").file)
  end)

  it("resolves references to ids defined in an earlier section of the same file", function()
    local prof = parse("events: Ir\nfl=(5) a.c\nfn=(9) work\n1 10\ntotals: 10\n" ..
      "part: 2\nthread: 2\nevents: Ir\nfl=(5)\nfn=(9)\n1 4\ntotals: 4\n")
    assert.equal(14, prof:find("work", "a.c"):self(1))
    assert.equal(2, #prof:sections())
    assert.same({}, prof:warnings())
  end)
end)

describe("inlined code: fi= and fe=", function()
  local prof = parse [[
events: Ir
fl=(1) a.c
fn=(1) main
12 3
fi=(2) inl.h
1 42
cfn=(2) helper
calls=1 5
1 10
fe=(1)
15 2
fi=(2)
2 1
fn=(3) other
7 1
]]
  local main = prof:find("main")

  it("attributes inlined lines to the header file but the cost to the function", function()
    assert.equal("a.c", main.file)
    -- sorted by line (then file): a line-level profile has no addresses
    assert.same({ { "inl.h", 1, 42 }, { "inl.h", 2, 1 }, { "a.c", 12, 3 }, { "a.c", 15, 2 } },
      lines_of(main))
    assert.equal(48, main:self(1))
  end)

  it("gives a call inside inlined code the inline file as call site and callee file", function()
    local call = main:callees()()
    assert.equal("inl.h", call.file)
    assert.equal(1, call.line)
    assert.equal("inl.h", call.callee.file)
  end)

  it("returns to the function's own file at the next fn=", function()
    assert.same({ { "a.c", 7, 1 } }, lines_of(prof:find("other")))
  end)

  it("binds a function to the fi= file when no fl= came before", function()
    local bzr = parse("events: Ticks\nfi=~\nfn=<map>\n0 5\nfi=/x/y.py\nfn=walk\n10 3\n")
    assert.equal("~", bzr:find("<map>").file)
    assert.equal("/x/y.py", bzr:find("walk").file)
  end)
end)

describe("calls", function()
  it("defaults the callee object to the current ob= and clears cob=/cfi= after each call", function()
    local prof = parse [[
events: Ir
ob=main.bin
fl=a.c
fn=main
1 1
cob=libc.so
cfi=libc.c
cfn=printf
calls=1 10
1 100
cfn=helper
calls=2 20
2 30
calls=3 20
3 40
]]
    local printf = prof:find("printf")
    assert.equal("libc.so", printf.object)
    assert.equal("libc.c", printf.file)
    local helper = prof:find("helper")
    assert.equal("main.bin", helper.object)
    assert.equal("a.c", helper.file)
    -- cfn= is kept: the last calls= goes to helper again
    assert.equal(5, helper.called)
    assert.equal(70, helper:inclusive(1))
  end)

  it("resolves one compressed callee id in each object and file it is called in", function()
    -- cfn=(1) names one function per (file, object): the id's remembered function holds only
    -- where it was resolved; a rebound id names the new function
    local prof = parse [[
events: Ir
ob=(1) main.bin
fl=(1) a.c
fn=(1) main
1 1
cfn=(2) work
calls=1 10
1 100
cob=(2) lib.so
cfn=(2)
calls=2 20
2 30
cfi=(2) b.c
cfn=(2)
calls=3 20
3 40
cfn=(2)
calls=4 20
4 50
fn=(2)
5 7
cfn=(2) other
calls=5 30
5 60
]]
    local by = {}
    for fn in prof:functions() do by[fn.name .. "@" .. fn.file .. "@" .. fn.object] = fn end
    -- the first and fourth calls, and the fn=(2) block: work in a.c of main.bin
    assert.equal(5, by["work@a.c@main.bin"].called)
    assert.equal(7, by["work@a.c@main.bin"]:self(1))
    assert.equal(2, by["work@a.c@lib.so"].called) -- cob= given, the file the current one
    assert.equal(3, by["work@b.c@main.bin"].called) -- cfi= given, cob= cleared after the call
    assert.equal(5, by["other@a.c@main.bin"].called)
    assert.equal(5, prof:stats().functions)
  end)

  it("takes the callee's file from a cfi= written after cfn=, as some converters do", function()
    local prof = parse("events: Ticks\nfi=~\nfn=<map>\n0 5\ncfn=entry\ncfi=/x/d.py\ncalls=7 10\n0 20\n" ..
      "fi=/x/d.py\nfn=entry\n10 20\n")
    local entry = prof:find("entry")
    assert.equal("/x/d.py", entry.file)
    assert.equal(7, entry.called)
    assert.equal(2, prof:stats().functions)
  end)

  it("sends a call that names no callee file to the only function of that name with a block", function()
    -- Xdebug's early format writes no cfl=: the default (the caller's file) holds no such
    -- function, so the call goes where the function's fn= block is
    local prof = parse [[
events: Time
fl=lib.php
fn=helper
3 10
fl=index.php
fn={main}
1 2
cfn=helper
calls=2 0 0
5 10
cfn=strlen
calls=1 0 0
6 1
]]
    local helper = prof:find("helper")
    assert.equal("lib.php", helper.file)
    assert.equal(2, helper.called)
    assert.equal(10, helper:inclusive(1))
    assert.is_nil(prof:find("helper", "index.php"))
    -- strlen has no block anywhere: the call keeps the format's default
    assert.equal("index.php", prof:find("strlen").file)
    assert.equal(3, prof:stats().functions)
  end)

  it("leaves such a call where it is when several functions of that name have blocks", function()
    local prof = parse [[
events: Ir
fl=a.c
fn=dup
1 1
fl=b.c
fn=dup
1 2
fl=c.c
fn=main
1 1
cfn=dup
calls=1 1
2 3
]]
    assert.equal("c.c", prof:find("main"):callees()().callee.file)
    assert.equal(0, prof:find("dup", "a.c").called)
    assert.equal(4, prof:stats().functions)
  end)

  it("merges calls of one caller to one callee at one call site", function()
    local prof = parse("events: Time\nfl=x.php\nfn={main}\n1 5\ncfn=f\ncalls=1 0 0\n3 10\n" ..
      "cfn=f\ncalls=1 0 0\n3 12\ncfn=f\ncalls=1 0 0\n4 1\n")
    local calls = fixtures.collect(prof:find("{main}"):callees())
    assert.equal(2, #calls)
    assert.equal(2, calls[1].count)
    assert.equal(22, calls[1]:inclusive(1))
    assert.equal(3, calls[1].line)
    assert.equal(1, calls[2].count)
    assert.equal(3, prof:find("f").called)
  end)

  it("decodes call targets against the last position without moving it", function()
    local prof = parse("positions: instr line\nevents: Ir\nfn=fact\n0x116f 7 1\ncfn=g\ncalls=1 -17 *\n" ..
      "* * 84\n+5 * 1\n")
    local call = prof:find("fact"):callees()()
    assert.equal(0x116f, call.addr)
    assert.equal(0x115e, call.target_addr)
    local addrs = {}
    for l in prof:find("fact"):lines() do addrs[#addrs + 1] = l.addr end
    assert.same({ 0x116f, 0x1174 }, addrs)
  end)

  it("does not reset relative positions at fn=, as pprof relies on", function()
    local prof = parse("positions: instr line\nevents: cpu(ms)\nfn=a\n0x1000 1 5\nfn=b\n+4096 9 10\n")
    assert.equal(0x2000, prof:find("b"):lines()().addr)
  end)

  it("treats call targets as advisory: a bad base never fails the load", function()
    local prof = parse("positions: instr line\nevents: cpu(ms)\nfn=a\n0x10 1 5\ncfn=b\ncalls=0 -8193 1\n* * 100\n")
    local call = prof:find("a"):callees()()
    assert.equal(0, call.count)
    assert.equal(100, call:inclusive(1))
  end)
end)

describe("jumps", function()
  it("reads Valgrind's jcnd=TAKEN/EXECUTED and sums equal jumps", function()
    local prof = parse("events: Ir\nfn=classify\n5 1\njcnd=19/20 +1\n*\njcnd=10/10 +1\n*\n" ..
      "jump=4 -2\n*\n")
    local jumps = fixtures.collect(prof:find("classify"):jumps())
    assert.equal(2, #jumps)
    assert.equal(5, jumps[1].from_line)
    assert.equal(6, jumps[1].to_line)
    assert.equal(30, jumps[1].executed)
    assert.equal(29, jumps[1].taken)
    assert.is_true(jumps[1].conditional)
    assert.equal(3, jumps[2].to_line)
    assert.equal(4, jumps[2].executed)
    assert.equal(4, jumps[2].taken)
    assert.is_false(jumps[2].conditional)
  end)

  it("reads the specification's jcnd=EXECUTED TAKEN form", function()
    local prof = parse("events: Ir\nfn=f\n5 1\njcnd=30 20 +3\n*\n")
    local j = prof:find("f"):jumps()()
    assert.equal(30, j.executed)
    assert.equal(20, j.taken)
    assert.equal(8, j.to_line)
  end)

  it("takes the target file and function from jfi= and jfn= for one jump", function()
    local prof = parse("positions: instr line\nevents: Ir\nfl=a.c\nfn=f\n0x10 3 1\n" ..
      "jfi=b.c\njfn=g\njump=1 0x5cff0 48\n* *\njump=2 +4 *\n* *\n")
    local jumps = fixtures.collect(prof:find("f"):jumps())
    assert.equal("b.c", jumps[1].to_file)
    assert.equal("g", jumps[1].to_function.name)
    assert.equal(0x5cff0, jumps[1].to_addr)
    assert.equal(48, jumps[1].to_line)
    assert.equal("a.c", jumps[2].to_file)
    assert.equal("f", jumps[2].to_function.name)
    assert.equal(0x14, jumps[2].to_addr)
  end)
  it("lists the jumps that reach a function, from it and from others, with fn:jumps_in()", function()
    local prof = parse("positions: instr line\nevents: Ir\nfl=a.c\nfn=f\n0x10 3 1\n" ..
      "jfn=g\njump=7 0x40 20\n* *\njcnd=3/5 +2 *\n* *\n" ..
      "fn=g\n0x40 20 9\njfn=f\njump=2 0x10 3\n* *\n" ..
      "fn=h\n0x80 30 1\njfn=g\njcnd=1/4 0x44 21\n* *\n")
    local function reaching(name)
      local list = {}
      for jump in prof:find(name):jumps_in() do
        list[#list + 1] = ("%s %x->%x %d/%d"):format(jump["function"].name, jump.from_addr, jump.to_addr,
          jump.taken, jump.executed)
      end
      return list
    end
    -- f's own conditional jump to 0x12 and g's jump back; g from f (7 times) and from h
    assert.same({ "f 10->12 3/5", "g 40->10 2/2" }, reaching("f"))
    assert.same({ "f 10->40 7/7", "h 80->44 1/4" }, reaching("g"))
    assert.same({}, reaching("h"))
  end)
end)

describe("sections: parts, threads and repeated headers", function()
  local text = [[
# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 13503
cmd:  ./thr
part: 1
thread: 1
desc: I1 cache: 
desc: Trigger: Client Request: after-warmup
positions: line
events: Ir
summary: 130
fl=(1) a.c
fn=(1) main
1 120
totals: 120

part: 2
thread: 2
desc: Trigger: Program termination
positions: line
events: Ir
summary: 10
fl=(1)
fn=(2) work
3 10
totals: 10
# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 13503
cmd:  ./thr
part: 2
thread: 3
positions: line
events: Ir Dr
fl=(1)
fn=(2)
3 5 1
totals: 5 1
]]
  local prof = parse(text)
  local sections = prof:sections()

  it("starts a section at each header after a body", function()
    assert.equal(3, #sections)
    assert.equal(1, sections[1].part)
    assert.equal(1, sections[1].thread)
    assert.equal(2, sections[2].part)
    assert.equal(2, sections[2].thread)
    assert.equal(2, sections[3].part)
    assert.equal(3, sections[3].thread)
    assert.equal(13503, sections[1].pid)
    assert.equal("./thr", sections[1].cmd)
    assert.equal("callgrind-3.19.0", sections[1].creator)
    assert.equal("Client Request: after-warmup", sections[1].desc.Trigger)
    assert.equal("", sections[1].desc["I1 cache"])
    assert.equal(2, sections[1].first_line)
    assert.equal("in.out", sections[1].source)
  end)

  it("keeps each section's summary, totals and own costs", function()
    -- with the derived CEst, which is Ir here (no cache events to add)
    assert.same({ Ir = 130, Dr = 0, CEst = 130 }, sections[1].summary)
    assert.same({ Ir = 120, Dr = 0, CEst = 120 }, sections[1].totals)
    assert.same({ Ir = 10, Dr = 0, CEst = 10 }, sections[2].costs)
    assert.same({ Ir = 5, Dr = 1, CEst = 5 }, sections[3].totals)
    assert.is_nil(sections[3].summary)
    assert.same({ "Ir", "Dr" }, sections[3].events)
    assert.same({ "Ir" }, sections[1].events)
  end)

  it("sums all sections into one model, matching events by name", function()
    assert.same({ "Ir", "Dr" }, prof:events())
    assert.equal(135, prof:total("Ir"))
    assert.equal(1, prof:total("Dr"))
    local work = prof:find("work")
    assert.equal(15, work:self("Ir"))
    assert.equal(1, work:self("Dr"))
    assert.same({ { "a.c", 3, 15 } }, lines_of(work))
    assert.same({}, prof:warnings())
  end)

  it("keeps the header lines in order", function()
    local h = sections[1].headers
    assert.same({ key = "version", value = "1" }, h[1])
    assert.same({ key = "cmd", value = "./thr" }, h[4])
    assert.same({ key = "totals", value = "120" }, h[#h])
  end)
end)

describe("parts that repeat their header and names, as --dump-every-bb writes them", function()
  -- each part lists its events and defines its names again; one part lists them in another
  -- order, one renames an id, and the part after it lists them as the first did
  local text = table.concat({
    "version: 1", "creator: callgrind-3.19.0",
    "part: 1", "positions: line", "events: Ir Dr", "fl=(1) a.c", "fn=(1) main", "1 10 2", "totals: 10 2", "",
    "part: 2", "positions: line", "events: Ir Dr", "fl=(1) a.c", "fn=(1) main", "1 20 3", "totals: 20 3", "",
    "part: 3", "positions: line", "events: Dr Ir", "fl=(1) a.c", "fn=(1) main", "1 4 30", "totals: 4 30", "",
    "part: 4", "positions: line", "events: Dr Ir", "fl=(1) a.c", "fn=(1) helper", "2 5 40", "totals: 5 40", "",
    "part: 5", "positions: line", "events: Ir Dr", "fl=(1) a.c", "fn=(1) main", "1 100 6", "totals: 100 6", "",
  }, "\n") .. "\n"

  it("maps each part's costs by its own events line, and its names by its own definitions", function()
    local prof = parse(text)
    assert.same({ "Ir", "Dr" }, prof:events())
    local main, helper = prof:find("main"), prof:find("helper")
    assert.equal(10 + 20 + 30 + 100, main:self("Ir"))
    assert.equal(2 + 3 + 4 + 6, main:self("Dr"))
    assert.equal(40, helper:self("Ir"))
    assert.equal(5, helper:self("Dr"))
    assert.same({ { "a.c", 1, 160 } }, lines_of(main))
    local sections = prof:sections()
    assert.equal(5, #sections)
    assert.same({ "Ir", "Dr" }, sections[2].events)
    assert.same({ "Dr", "Ir" }, sections[3].events)
    assert.same({ "Dr", "Ir" }, sections[4].events)
    assert.same({ "Ir", "Dr" }, sections[5].events)
    assert.same({ Ir = 100, Dr = 6 }, { Ir = sections[5].costs.Ir, Dr = sections[5].costs.Dr })
    -- the id of part 4 renamed, then named back
    assert.same({ "in.out:31: function id (1) redefined from 'main' to 'helper'",
      "in.out:39: function id (1) redefined from 'helper' to 'main'" }, prof:warnings())
  end)
end)

describe("inputs that list the same events", function()
  it("map each input's costs by its own events line", function()
    local a, b = os.tmpname(), os.tmpname()
    fixtures.write(a, "events: Ir Dr\nfn=(1) main\n1 10 2\n")
    fixtures.write(b, "events: Ir Dr\nfn=(1) main\n1 5 1\n")
    local prof = assert(callgrind.load({ a, b }, { threads = 1 }))
    assert.equal(15, prof:find("main"):self("Ir"))
    assert.equal(3, prof:find("main"):self("Dr"))
    os.remove(a)
    os.remove(b)
  end)
end)

describe("section boundaries", function()
  it("opens a section at a repeated part: even without body lines in between", function()
    local prof = parse("part: 1\nevents: Ir\nsummary: 100\ntotals: 100\npart: 2\nevents: Ir\n" ..
      "summary: 5\nfn=f\n1 5\ntotals: 5\n", { strict = false })
    local sections = prof:sections()
    assert.equal(2, #sections)
    assert.equal(100, sections[1].summary.Ir)
    assert.equal(5, sections[2].summary.Ir)
    assert.same({ "in.out:4: totals: Ir is 100 but the section's costs sum to 0" }, prof:warnings())
  end)

  it("opens a section at a header after totals:", function()
    local prof = parse("events: Ir\ntotals: 0\ndesc: Trigger: dump\nevents: Ir\nfn=f\n1 5\n")
    assert.equal(2, #prof:sections())
    assert.equal("dump", prof:sections()[2].desc.Trigger)
  end)

  it("keeps several desc: and event: lines in one section", function()
    local prof = parse("desc: I1 cache: 1\ndesc: D1 cache: 2\nevent: Ir : Instructions\n" ..
      "event: Dr : Reads\nevents: Ir Dr\nfn=f\n1 5\n")
    assert.equal(1, #prof:sections())
    assert.equal("Reads", prof:event_info("Dr").long_name)
  end)
end)

describe("cachegrind files", function()
  local prof = parse [[
desc: I1 cache:         32768 B, 64 B, 8-way associative
cmd: ./prog 10
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
fl=/src/a.c
fn=main
12 3 1 1 0 0 0 2 0 0 0 0 0 0
13 4 0 0 0 0 0 0 0 0 1 1 0 0
fl=/src/inl.h
fn=main
1 4 0 0 2 0 0 0 0 0 0 0 0 0
summary: 11 1 1 2 0 0 2 0 0 1 1 0 0
]]

  it("reads the summary: at the end", function()
    local s = prof:sections()[1]
    assert.equal(11, s.summary.Ir)
    assert.equal("./prog 10", s.cmd)
    assert.equal("32768 B, 64 B, 8-way associative", s.desc["I1 cache"])
    assert.equal(11, prof:total("Ir"))
  end)

  it("keeps main under two files as two functions, as cachegrind writes them", function()
    assert.equal(7, prof:find("main", "/src/a.c"):self("Ir"))
    assert.equal(4, prof:find("main", "/src/inl.h"):self("Ir"))
    assert.equal(2, prof:find("main", "/src/inl.h"):self("Dr"))
  end)

  it("derives KCachegrind's known events from the cache and branch counters", function()
    local main = prof:find("main", "/src/a.c")
    assert.equal(1 + 0 + 0, main:self("L1m"))
    assert.equal(1, main:self("LLm"))
    assert.equal(0 + 1, main:self("Bm"))
    -- CEst = Ir + 10 Bm + 10 L1m + 100 LLm (no Ge, no L2m here)
    assert.equal(7 + 10 * 1 + 10 * 1 + 100 * 1, main:self("CEst"))
    assert.equal(11 + 10 + 10 + 100, prof:total("CEst"))
    local all = prof:events(true)
    assert.same({ "L1m", "LLm", "Bm", "CEst" }, { all[14], all[15], all[16], all[17] })
  end)
end)

describe("Xdebug files", function()
  it("merges one block per invocation and reads negative memory costs", function()
    local prof = parse [[
version: 1
creator: xdebug 2.6.0 (PHP 7.2.0)
cmd: /var/www/index.php
part: 1
positions: line

events: Time Memory

fl=(1) php:internal
fn=(1) php::strlen
12 1 -16

fl=(2) /var/www/index.php
fn=(2) helper
5 10 100
cfl=(1)
cfn=(1)
calls=1 0 0
6 1 -16

fl=(1)
fn=(1)
12 2 -32

fl=(2)
fn=(2)
5 11 50
cfl=(1)
cfn=(1)
calls=1 0 0
6 2 -32

fl=(2)
fn=(3) {main}

summary: 40 200

0 3 64
cfl=(2)
cfn=(2)
calls=2 0 0
3 24 102
]]
    local helper = prof:find("helper")
    assert.equal(21, helper:self("Time"))
    assert.equal(150, helper:self("Memory"))
    assert.equal(2, helper.called)
    assert.equal(24, helper:inclusive("Time"))
    local strlen = prof:find("php::strlen", "php:internal")
    assert.equal(-48, strlen:self("Memory"))
    assert.equal(2, strlen.called)
    local main = prof:find("{main}")
    assert.equal(0, main.called)
    assert.equal(3 + 24, main:inclusive("Time"))
    -- summary: inside the body (Xdebug up to 2.7) belongs to the same section
    local sections = prof:sections()
    assert.equal(1, #sections)
    assert.equal(40, sections[1].summary.Time)
  end)

  it("starts over at each appended profile, ids included", function()
    local prof = parse [[
version: 1
creator: xdebug 3.1.0
cmd: a.php
part: 1
positions: line
events: Time_(10ns) Memory_(bytes)
fl=(1) a.php
fn=(1) {main}
1 5 0
==== NEW PROFILING FILE ==============================================
version: 1
creator: xdebug 3.1.0
cmd: b.php
part: 1
positions: line
events: Time_(10ns) Memory_(bytes)
fl=(1) b.php
fn=(1) run
1 7 0
]]
    assert.same({}, prof:warnings())
    assert.equal(2, #prof:sections())
    assert.equal("b.php", prof:sections()[2].cmd)
    assert.equal(5, prof:find("{main}", "a.php"):self(1))
    assert.equal(7, prof:find("run", "b.php"):self(1))
    assert.equal(12, prof:total("Time_(10ns)"))
  end)
end)

describe("pprof files", function()
  it("reads calls=0 as call costs, never as self cost", function()
    local prof = parse [[
positions: instr line
events: cpu(ms)

ob=
fl=(1) f1.src
fn=(1) root
0x1000 1 10
cfl=(1)
cfn=(2) leaf
calls=0 * 1
* * 90

fn=(2)
+16 5 90
]]
    assert.equal(100, prof:total(1))
    local root = prof:find("root")
    assert.equal("", root.object)
    assert.equal(10, root:self(1))
    assert.equal(0, prof:find("leaf").called)
    -- nothing is called with a positive count: inclusive = self + calls
    assert.equal(100, root:inclusive(1))
    assert.equal(90, prof:find("leaf"):inclusive(1))
  end)
end)

describe("recursion and cycles", function()
  -- Valgrind's output for fact(3) with --separate-recs=2 and an is_even/is_odd pair.
  local prof = parse [[
events: Ir
fl=(1) a.c
fn=(1) main
12 3
cfn=(2) fact
calls=1 -5
* 94
cfn=(4) is_even
calls=1 -3
* 84
fn=(2)
7 7
cfn=(3) fact'2
calls=1 *
* 84
* 3
fn=(3)
7 60
cfn=(3)
calls=8 *
* 312
* 24
fn=(4)
9 6
cfn=(5) is_odd
calls=1 +1
* 76
* 2
fn=(5)
10 6
cfn=(6) is_even'2
calls=1 -1
* 68
* 2
fn=(7) is_odd'2
10 24
cfn=(6)
calls=4 -1
* 112
* 8
fn=(6)
9 28
cfn=(7)
calls=4 +1
* 144
* 8
]]
  local by = fixtures.functions_by_name(prof)

  it("does not count a self-call in inclusive cost", function()
    -- fact'2 costs what fact spent in it, not 84 + 312
    assert.equal(84, by["fact'2"]:inclusive(1))
    assert.equal(84, by["fact'2"]:self(1))
    assert.equal(9, by["fact'2"].called)
    assert.is_nil(by["fact'2"].cycle)
    assert.equal(94, by.fact:inclusive(1))
  end)

  it("makes mutual recursion a cycle whose cost is the sum of its members", function()
    local cycles = prof:cycles()
    assert.equal(1, #cycles)
    assert.equal("<cycle 1>", cycles[1].name)
    assert.equal(2, #cycles[1].members)
    assert.equal(by["is_even'2"], cycles[1].members[1])
    assert.equal(by["is_odd'2"], cycles[1].members[2])
    assert.equal("<cycle 1>", by["is_even'2"].cycle)
    assert.equal("<cycle 1>", by["is_odd'2"].cycle)
    assert.equal(28 + 8, by["is_even'2"]:self(1))
    assert.equal(24 + 8, by["is_odd'2"]:self(1))
    -- members: self + calls leaving the cycle (none here)
    assert.equal(36, by["is_even'2"]:inclusive(1))
    assert.equal(32, by["is_odd'2"]:inclusive(1))
    assert.equal(68, cycles[1].inclusive.Ir)
    assert.equal(68, cycles[1].self.Ir)
    -- outside the cycle the usual rule holds
    assert.equal(76, by.is_odd:inclusive(1))
    assert.equal(84, by.is_even:inclusive(1))
  end)

  it("gives the root self + calls", function()
    assert.equal(3 + 94 + 84, by.main:inclusive(1))
    assert.equal(prof:total(1), by.main:inclusive(1))
  end)

  it("numbers cycles by their first member and walks deep graphs without recursion", function()
    local text = { "events: Ir" }
    local n = 200000
    for i = 1, n do
      text[#text + 1] = ("fn=(%d) f%d\n1 1\ncfn=(%d) f%d\ncalls=1 1\n1 %d"):format(i, i, i % n + 1,
        i % n + 1, n - 1)
    end
    local big = parse(table.concat(text, "\n"))
    local cycles = big:cycles()
    assert.equal(1, #cycles)
    assert.equal(n, #cycles[1].members)
    assert.equal("f1", cycles[1].members[1].name)
  end)
end)
