-- The Lua API itself: loaders, options, errors, handles and their lifetime.
local callgrind = require "callgrind"
local fixtures = require "helpers.fixtures"

local SAMPLE = "examples/data/sample.callgrind.gz"

local function tmpfile(content)
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write(content)
  f:close()
  return path
end

local small = "events: Ir Dr\nfl=a.c\nfn=main\n1 10 1\ncfn=f\ncalls=2 5\n1 30 3\nfn=f\n5 30 3\n"

describe("callgrind.load", function()
  it("loads a path and names it in the profile", function()
    local path = tmpfile(small)
    local prof = assert(callgrind.load(path))
    assert.equal(40, prof:total("Ir"))
    assert.equal(path, prof:sections()[1].source)
    os.remove(path)
  end)

  it("loads gzip-compressed files, recognised by their bytes, not their name", function()
    local prof = assert(callgrind.load(SAMPLE))
    local section = prof:sections()[1]
    assert.equal(section.summary.Ir, prof:total("Ir"))
    assert.equal(section.totals.Ir, prof:total("Ir"))
    local plain = fixtures.read(SAMPLE)
    local renamed = tmpfile(plain) -- gzip bytes under a name without .gz
    local again = assert(callgrind.load(renamed))
    assert.equal(prof:total("Ir"), again:total("Ir"))
    os.remove(renamed)
  end)

  it("parses gzip data held in a string", function()
    local prof = assert(callgrind.parse(fixtures.read(SAMPLE), "sample"))
    assert.is_true(prof:total("Ir") > 0)
  end)

  it("sums a list of files into one model", function()
    local a = tmpfile(small)
    local b = tmpfile("events: Dr Ir\nfl=a.c\nfn=main\n1 2 4\n")
    local prof = assert(callgrind.load { a, b })
    assert.equal(44, prof:total("Ir"))
    assert.equal(6, prof:total("Dr"))
    assert.equal(14, prof:find("main"):self("Ir"))
    assert.equal(2, #prof:sections())
    assert.equal(b, prof:sections()[2].source)
    os.remove(a)
    os.remove(b)
  end)

  it("returns nil, message and kind for a missing file, a directory and an empty file", function()
    local prof, err, kind = callgrind.load("/nonexistent/callgrind.out.1")
    assert.is_nil(prof)
    assert.equal("/nonexistent/callgrind.out.1: No such file or directory", err)
    assert.equal("io", kind)
    prof, err, kind = callgrind.load("/tmp")
    assert.is_nil(prof)
    assert.equal("/tmp: is a directory", err)
    assert.equal("io", kind)
    local empty = tmpfile("")
    prof, err, kind = callgrind.load(empty)
    assert.is_nil(prof)
    assert.equal(empty .. ":0: empty input", err)
    assert.equal("format", kind)
    -- a tolerant load of an empty file is an empty profile with a warning
    prof = assert(callgrind.load(empty, { strict = false }))
    assert.equal(0, prof:stats().functions)
    assert.equal(empty .. ":0: empty input", prof:warnings()[1])
    os.remove(empty)
  end)

  it("returns nil and a message for a file that cannot be read", function()
    -- open() succeeds, read() fails: the kernel refuses to read this file from offset 0
    local prof, err, kind = callgrind.load("/proc/self/mem")
    assert.is_nil(prof)
    assert.equal("/proc/self/mem: Input/output error", err)
    assert.equal("io", kind)
    prof, err = callgrind.load("/dev/null")
    assert.is_nil(prof)
    assert.equal("/dev/null:0: empty input", err)
  end)

  it("names the file of a list that failed", function()
    local good = tmpfile(small)
    local prof, err = callgrind.load { good, "/nonexistent/b.out" }
    assert.is_nil(prof)
    assert.equal("/nonexistent/b.out: No such file or directory", err)
    os.remove(good)
  end)

  it("raises for arguments that are programmer mistakes", function()
    assert.has_error(function() callgrind.load() end)
    assert.has_error(function() callgrind.load(42) end)
    assert.has_error(function() callgrind.load({}) end)
    assert.has_error(function() callgrind.load({ "a", 3 }) end)
    assert.has_error(function() callgrind.load(SAMPLE, { strict = "no" }) end)
    assert.has_error(function() callgrind.load(SAMPLE, { progress = 1 }) end)
    assert.has_error(function() callgrind.parse() end)
  end)
end)

describe("the progress callback", function()
  it("is called a bounded number of times, ending with done == total", function()
    local calls, last_done, total_seen = 0, -1, nil
    local prof = assert(callgrind.load(SAMPLE, {
      progress = function(done, total)
        calls = calls + 1
        assert.is_true(done >= last_done)
        last_done, total_seen = done, total
      end,
    }))
    assert.is_true(calls >= 1 and calls <= 110)
    assert.equal(total_seen, last_done)
    assert.is_not_nil(prof)
  end)

  it("stops the load when it returns false", function()
    local prof, err, kind = callgrind.load(SAMPLE, { progress = function() return false end })
    assert.is_nil(prof)
    assert.equal(SAMPLE .. ": load aborted by the progress callback", err)
    assert.equal("aborted", kind)
  end)

  it("passes its own error through, and the load leaves nothing behind", function()
    local ok, err = pcall(callgrind.load, SAMPLE, { progress = function() error("stop here", 0) end })
    assert.is_false(ok)
    assert.equal("stop here", err)
    local ok2, err2 = pcall(callgrind.parse, small, "s", { progress = function() error({ code = 7 }) end })
    assert.is_false(ok2)
    assert.same({ code = 7 }, err2)
  end)
end)

describe("events", function()
  local prof = assert(callgrind.parse(small))

  it("accepts a name or a 1-based index", function()
    local main = prof:find("main")
    assert.equal(10, main:self("Ir"))
    assert.equal(10, main:self(1))
    assert.equal(1, main:self(2))
    assert.equal(40, main:inclusive(1))
  end)

  it("raises for an unknown name with the list of known ones", function()
    local main = prof:find("main")
    assert.has_error(function() main:self("Bogus") end,
      "unknown event 'Bogus' (known: Ir, Dr, CEst)")
    assert.has_error(function() prof:total(0) end)
    assert.has_error(function() prof:total(99) end)
    assert.has_error(function() main:self() end)
  end)

  it("describes raw and derived events", function()
    assert.same({ name = "Ir", index = 1, derived = false }, prof:event_info("Ir"))
    local cest = prof:event_info("CEst")
    assert.is_true(cest.derived)
    assert.equal("Cycle Estimation", cest.long_name)
    assert.same({ "Ir", "Dr" }, prof:events())
    assert.same({ "Ir", "Dr", "CEst" }, prof:events(true))
  end)

  it("says whether it has an event without raising", function()
    assert.is_true(prof:has_event("Ir"))
    assert.is_true(prof:has_event("CEst"))
    assert.is_false(prof:has_event("Bogus"))
    assert.is_false(prof:has_event(""))
    assert.has_error(function() prof:has_event() end)
  end)
end)

describe("handles", function()
  it("keep their profile alive after the profile variable is gone", function()
    local fn, call, line
    do
      local prof = assert(callgrind.parse(small))
      fn = prof:find("main")
      call = fn:callees()()
      line = fn:lines()()
    end
    collectgarbage()
    collectgarbage()
    assert.equal("main", fn.name)
    assert.equal(40, fn:inclusive("Ir"))
    assert.equal("f", call.callee.name)
    assert.equal(30, call:inclusive("Ir"))
    assert.equal(10, line:cost("Ir"))
  end)

  it("give the same value for the same function", function()
    local prof = assert(callgrind.parse(small))
    local main = prof:find("main")
    local call = main:callees()()
    assert.equal(main, call.caller)
    assert.equal(prof:find("f"), call.callee)
    local seen = {}
    for fn in prof:functions() do seen[fn] = true end
    assert.is_true(seen[main])
    assert.equal(1, main.id)
  end)

  it("survive a collection in the middle of an iteration", function()
    local prof = assert(callgrind.load(SAMPLE))
    local n = 0
    for fn in prof:functions() do
      n = n + 1
      if n == 10 then prof = nil; collectgarbage(); collectgarbage() end
      assert.is_string(fn.name)
    end
    assert.is_true(n > 100)
  end)

  it("fail clearly once the profile is closed", function()
    local prof = assert(callgrind.parse(small))
    local main = prof:find("main")
    prof:close()
    assert.has_error(function() return main.name end, "the profile is closed")
    assert.has_error(function() prof:total(1) end, "the profile is closed")
    assert.equal("callgrind profile (closed)", tostring(prof))
    prof:close() -- twice is harmless
  end)

  it("check the object a method is called on", function()
    local prof = assert(callgrind.parse(small))
    local main = prof:find("main")
    local call = main:callees()()
    assert.has_error(function() main.self(prof, 1) end)
    assert.has_error(function() call.inclusive(main, 1) end)
    assert.has_error(function() prof.total(main, 1) end)
  end)

  it("print usefully", function()
    local prof = assert(callgrind.parse(small, "s.out"))
    assert.equal("callgrind profile: 2 functions, 1 calls, events Ir Dr, from s.out", tostring(prof))
    local main = prof:find("main")
    assert.equal("main (a.c)", tostring(main))
    assert.equal("call main -> f (2 times at a.c:1)", tostring(main:callees()()))
    assert.equal("line a.c:1", tostring(main:lines()()))
  end)

  it("return nil for unknown fields", function()
    local prof = assert(callgrind.parse(small))
    assert.is_nil(prof:find("main").nonsense)
    assert.is_nil(prof:find("nothing"))
  end)

  it("count what the profile holds", function()
    local prof = assert(callgrind.parse(small))
    local stats = prof:stats()
    -- the model's memory: its tables and interned strings, some kilobytes even when tiny
    assert.is_true(stats.bytes > 1000 and stats.bytes < 1000000)
    stats.bytes = nil
    assert.same({ functions = 2, calls = 1, lines = 2, jumps = 0, sections = 1, cycles = 0, events = 2 }, stats)
  end)

  if _VERSION == "Lua 5.4" then
    it("close a profile at the end of a to-be-closed scope", function()
      local chunk = load([[
        local callgrind, text = ...
        local keep
        do
          local prof <close> = assert(callgrind.parse(text))
          keep = prof
        end
        return keep
      ]])
      local prof = chunk(callgrind, small)
      assert.equal("callgrind profile (closed)", tostring(prof))
    end)
  end
end)

describe("cycles", function()
  -- main calls a, a and b call each other; the call costs are as the file writes them
  local text = "events: Ir I1mr D1mr\nfn=main\n1 1\ncfn=a\ncalls=1 1\n2 100\n" ..
    "fn=a\n1 10 1 1\ncfn=b\ncalls=2 1\n2 90\nfn=b\n1 20 0 1\ncfn=a\ncalls=1 1\n2 70\n"

  it("are found and give costs of every event, derived ones too", function()
    local prof = assert(callgrind.parse(text))
    local cycles = prof:cycles()
    assert.equal(1, #cycles)
    assert.equal("<cycle 1>", prof:find("a").cycle)
    -- CEst, KCachegrind's cycle estimate, is Ir + 10 L1m here
    assert.same({ Ir = 30, I1mr = 1, D1mr = 2, L1m = 3, CEst = 60 }, cycles[1].self)
    -- a member costs its self cost plus the calls that leave the cycle (none here)
    assert.equal(10, prof:find("a"):inclusive("Ir"))
    assert.equal(20, prof:find("b"):inclusive("Ir"))
    assert.equal(101, prof:find("main"):inclusive("Ir"))
    assert.same({ Ir = 31, I1mr = 1, D1mr = 2, L1m = 3, CEst = 61 }, prof:sections()[1].costs)
  end)

  it("are not looked for with cycles = false: the called cost what their callers spent", function()
    local prof = assert(callgrind.parse(text, "t", { cycles = false }))
    assert.same({}, prof:cycles())
    assert.is_nil(prof:find("a").cycle)
    assert.equal(100 + 70, prof:find("a"):inclusive("Ir")) -- main -> a and b -> a
    assert.equal(90, prof:find("b"):inclusive("Ir"))
    assert.equal(101, prof:find("main"):inclusive("Ir"))
    assert.has_error(function() callgrind.parse(text, "t", { cycles = "no" }) end)
  end)

  it("follow the sources in merge, diff and select unless told", function()
    local with = assert(callgrind.parse(text))
    local without = assert(callgrind.parse(text, "t", { cycles = false }))
    assert.equal(1, #callgrind.merge({ with, with }):cycles())
    assert.equal(0, #callgrind.merge({ without, without }):cycles())
    assert.equal(340, callgrind.merge({ without, without }):find("a"):inclusive("Ir"))
    assert.equal(0, #callgrind.merge({ with }, { cycles = false }):cycles())
    assert.equal(1, #callgrind.merge({ without }, { cycles = true }):cycles())
    assert.equal(0, #callgrind.diff(with, with, { cycles = false }):cycles())
    assert.equal(0, #without:select({ drop = { name = "^main$" } }):cycles())
    assert.equal(1, #without:select({ drop = { name = "^main$" }, cycles = true }):cycles())
    assert.has_error(function() callgrind.merge({ with }, { cycles = 0 }) end)
  end)
end)

describe("prof:line_costs", function()
  -- main and helper both have code on a.c:3; helper's inlined code from h.h counts for h.h
  local text = table.concat({
    "events: Ir Dr",
    "event: Sum = Ir + Dr",
    "fl=a.c",
    "fn=main",
    "2 10 1",
    "3 5 2",
    "cfn=helper",
    "calls=1 3",
    "3 100 20",
    "fn=helper",
    "3 7 1",
    "fi=h.h",
    "9 4 4",
    "fe=a.c",
    "4 2 0",
  }, "\n") .. "\n"

  it("sums every function's self cost per file and line", function()
    local prof = assert(callgrind.parse(text))
    assert.same({ ["a.c"] = { [2] = 10, [3] = 12, [4] = 2 }, ["h.h"] = { [9] = 4 } },
      prof:line_costs("Ir"))
    assert.same({ ["a.c"] = { [2] = 1, [3] = 3, [4] = 0 }, ["h.h"] = { [9] = 4 } },
      prof:line_costs(2))
    assert.same({ ["a.c"] = { [2] = 11, [3] = 15, [4] = 2 }, ["h.h"] = { [9] = 8 } },
      prof:line_costs("Sum"))
  end)

  it("gives one file when asked", function()
    local prof = assert(callgrind.parse(text))
    assert.same({ ["h.h"] = { [9] = 4 } }, prof:line_costs("Ir", "h.h"))
    assert.same({}, prof:line_costs("Ir", "b.c"))
  end)

  it("puts code without line positions on line 0", function()
    local prof = assert(callgrind.parse("positions: instr\nevents: Ir\nfl=a.c\nfn=f\n0x10 3\n0x14 4\n"))
    assert.same({ ["a.c"] = { [0] = 7 } }, prof:line_costs("Ir"))
  end)

  it("agrees with a walk over every line record of a real profile", function()
    local prof = assert(callgrind.load(SAMPLE))
    local walked = {}
    for fn in prof:functions() do
      for line in fn:lines() do
        local lines = walked[line.file or ""] or {}
        walked[line.file or ""] = lines
        lines[line.line or 0] = (lines[line.line or 0] or 0) + line:cost("Ir")
      end
    end
    assert.same(walked, prof:line_costs("Ir"))
    local sample = "examples/data/sample.c"
    assert.equal(642646, prof:line_costs("Ir", sample)[sample][20])
  end)

  it("refuses an unknown event", function()
    local prof = assert(callgrind.parse(text))
    assert.has_error(function() prof:line_costs("Xx") end, "unknown event 'Xx' (known: Ir, Dr, Sum, CEst)")
  end)

  it("sums one function's records with fn:line_costs", function()
    local prof = assert(callgrind.parse(text))
    local main, helper = prof:find("main"), prof:find("helper")
    assert.same({ ["a.c"] = { [2] = 10, [3] = 5 } }, main:line_costs("Ir"))
    assert.same({ ["a.c"] = { [3] = 8, [4] = 2 }, ["h.h"] = { [9] = 8 } }, helper:line_costs("Sum"))
    assert.same({ ["h.h"] = { [9] = 4 } }, helper:line_costs(2, "h.h"))
    assert.same({}, main:line_costs("Ir", "h.h"))
    assert.has_error(function() main:line_costs("Xx") end, "unknown event 'Xx' (known: Ir, Dr, Sum, CEst)")
  end)

  it("agrees, function by function, with a walk over the line records of a real profile", function()
    local prof = assert(callgrind.load(SAMPLE))
    for fn in prof:functions() do
      local walked = {}
      for line in fn:lines() do
        local lines = walked[line.file or ""] or {}
        walked[line.file or ""] = lines
        lines[line.line or 0] = (lines[line.line or 0] or 0) + line:cost("Ir")
      end
      assert.same(walked, fn:line_costs("Ir"))
    end
  end)
end)
