-- The command-line examples, run as a user runs them, and the progress bar they draw.
local run = require "helpers.run"
local progress = require "callgrind.progress"

local SAMPLE = "examples/data/sample.callgrind.gz"

describe("examples/annotate.lua", function()
  it("prints usage with --help", function()
    local out, _, status = run.script("examples/annotate.lua", { "--help" })
    assert.equal(0, status)
    assert.truthy(out:find("usage: annotate.lua", 1, true))
  end)

  it("lists the functions of a profile like callgrind_annotate", function()
    local out, err, status = run.script("examples/annotate.lua", { "--auto=no", SAMPLE })
    assert.equal(0, status, err)
    assert.truthy(out:find("4,976,287 (100.0%)  PROGRAM TOTALS", 1, true))
    assert.truthy(out:find("examples/data/sample.c:main", 1, true))
    assert.truthy(out:find("Auto-annotation:  off", 1, true))
  end)

  it("takes --show, --sort, --threshold, --inclusive, --tree and --show-percs", function()
    local out, err, status = run.script("examples/annotate.lua", {
      "--auto=no", "--show=Ir", "--sort=Ir", "--threshold=50", "--inclusive=yes", "--tree=caller",
      "--show-percs=no", SAMPLE })
    assert.equal(0, status, err)
    assert.truthy(out:find("Thresholds:       50", 1, true))
    assert.truthy(out:find("*  ???:0x000000000001ab70", 1, true))
    assert.falsy(out:find("%%"))
  end)

  it("fails with a message for a bad option, a bad value, an unknown event and a missing file", function()
    local _, err, status = run.script("examples/annotate.lua", { "--colour=yes", SAMPLE })
    assert.equal(2, status)
    assert.truthy(err:find("unknown option '--colour=yes'", 1, true))
    _, err, status = run.script("examples/annotate.lua", { "--inclusive=maybe", SAMPLE })
    assert.equal(2, status)
    assert.truthy(err:find("--inclusive expects yes or no", 1, true))
    _, err, status = run.script("examples/annotate.lua", { "--show=Nope", "--auto=no", SAMPLE })
    assert.equal(2, status)
    assert.truthy(err:find("unknown event 'Nope'", 1, true))
    _, err, status = run.script("examples/annotate.lua", { "/nonexistent/profile" })
    assert.equal(2, status)
    assert.truthy(err:find("/nonexistent/profile: No such file or directory", 1, true))
    _, err, status = run.script("examples/annotate.lua", {})
    assert.equal(2, status)
    assert.truthy(err:find("usage:", 1, true))
  end)
end)

describe("examples/top.lua", function()
  it("prints the hottest functions of the bundled sample", function()
    local out, err, status = run.script("examples/top.lua", { SAMPLE, "Ir", "5" })
    assert.equal(0, status, err)
    assert.truthy(out:find("4,976,287 Ir total", 1, true))
    assert.truthy(out:find("1,859,688  37.4%", 1, true))
  end)
end)

describe("the progress bar", function()
  local function sink()
    local written = {}
    return { write = function(_, ...) for _, s in ipairs { ... } do written[#written + 1] = s end end,
      flush = function() end, text = function() return table.concat(written) end }
  end

  it("draws a bar that reaches 100% and ends the line", function()
    local out = sink()
    local bar = progress.bar { terminal = true, out = out, min_bytes = 0, width = 10 }
    bar(0, 200)
    bar(100, 200)
    bar(100, 200) -- no change: nothing new drawn
    bar(200, 200)
    local text = out.text()
    assert.truthy(text:find("[#####     ]  50%", 1, true))
    assert.truthy(text:find("[##########] 100% of 0.0 MB\n", 1, true))
    local _, draws = text:gsub("\r", "")
    assert.equal(3, draws)
  end)

  it("waits `delay` seconds before it draws, so that quick loads draw nothing", function()
    local now = 0
    local out = sink()
    local bar = progress.bar { terminal = true, out = out, min_bytes = 0, width = 10, delay = 1,
      clock = function() return now end }
    bar(0, 200)
    now = 0.5
    bar(100, 200)
    assert.equal("", out.text())
    now = 1.5
    bar(150, 200)
    bar(200, 200)
    assert.equal("\r[########  ]  75% of 0.0 MB\r[##########] 100% of 0.0 MB\n", out.text())
    local quick = sink()
    local quick_bar = progress.bar { terminal = true, out = quick, min_bytes = 0, delay = 1, clock = function() return 0 end }
    quick_bar(0, 200)
    quick_bar(200, 200)
    assert.equal("", quick.text())
  end)

  it("draws nothing for small inputs or when stderr is not a terminal", function()
    local out = sink()
    local bar = progress.bar { terminal = true, out = out }
    bar(10, 100)
    assert.equal("", out.text())
    local quiet = sink()
    local piped = progress.bar { out = quiet, min_bytes = 0, terminal = false }
    piped(10, 100)
    assert.equal("", quiet.text())
  end)
end)

describe("examples/merge.lua and examples/diff.lua", function()
  local callgrind = require "callgrind"
  local dir

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir " .. dir))
    local a = assert(callgrind.parse("events: Ir\nfl=a.c\nfn=main\n1 10\ncfn=work\ncalls=2 5\n2 30\nfn=work\n5 30\n"))
    local b = assert(callgrind.parse("events: Ir\nfl=a.c\nfn=main\n1 10\ncfn=work\ncalls=2 5\n2 90\nfn=work\n5 90\n"))
    assert(a:write(dir .. "/a.out"))
    assert(b:write(dir .. "/b.out"))
  end)

  teardown(function() os.execute("rm -rf " .. dir) end)

  it("merges profiles into one file", function()
    local _, err, status = run.script("examples/merge.lua", { dir .. "/m.out", dir .. "/a.out", dir .. "/b.out" })
    assert.equal(0, status, err)
    assert.truthy(err:find("2 profiles, 2 functions", 1, true))
    local merged = assert(callgrind.load(dir .. "/m.out"))
    assert.equal(10 + 30 + 10 + 90, merged:total("Ir"))
    assert.equal(4, merged:find("work").called)
  end)

  it("names the function that grew", function()
    local out, err, status = run.script("examples/diff.lua", { dir .. "/a.out", dir .. "/b.out" })
    assert.equal(0, status, err)
    assert.truthy(out:find("Total: 40 -> 100 (+60)", 1, true))
    local first = out:match("Biggest regressions by self cost\n[^\n]*\n([^\n]*)")
    assert.truthy(first:find("+60", 1, true) and first:find("a.c:work", 1, true), out)
  end)

  it("fail with usage or a message", function()
    local _, err, status = run.script("examples/diff.lua", { dir .. "/a.out" })
    assert.equal(2, status)
    assert.truthy(err:find("usage:", 1, true))
    _, err, status = run.script("examples/diff.lua", { dir .. "/a.out", "/nonexistent/b" })
    assert.equal(2, status)
    assert.truthy(err:find("/nonexistent/b: No such file or directory", 1, true))
    _, err, status = run.script("examples/merge.lua", { dir .. "/x.out" })
    assert.equal(2, status)
    assert.truthy(err:find("usage:", 1, true))
    _, err, status = run.script("examples/merge.lua", { "/nonexistent/dir/x.out", dir .. "/a.out", dir .. "/b.out" })
    assert.equal(1, status)
    assert.truthy(err:find("No such file or directory", 1, true))
  end)

  it("merge the per-thread files beside the empty base file valgrind leaves", function()
    local empty = io.open(dir .. "/base.out", "wb")
    empty:close()
    local _, err, status = run.script("examples/merge.lua",
      { dir .. "/m2.out", dir .. "/base.out", dir .. "/a.out", dir .. "/b.out" })
    assert.equal(0, status, err)
    assert.truthy(err:find("merge.lua: warning: " .. dir .. "/base.out:0: empty input\n", 1, true), err)
    assert.equal(140, assert(callgrind.load(dir .. "/m2.out")):total("Ir"))
  end)
end)

-- What no command-line program may print: a Lua traceback or a place inside the module.
local function assert_clean(err)
  assert.falsy(err:find("stack traceback", 1, true), err)
  assert.falsy(err:find("%.lua:%d+:"), err)
end

describe("the examples on bad input", function()
  local dir

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir " .. dir))
    local function write(name, text)
      local f = assert(io.open(dir .. "/" .. name, "wb"))
      f:write(text)
      f:close()
    end
    write("empty.out", "")
    write("binary.out", "\127ELF\2\1\1\0\0\0\0\0\0\0\0\0\3\0>\0\1\0\0\0")
    write("text.out", "Dear reader,\nthis is not a profile.\n")
    -- a cycle of 20 functions, f1 -> f2 -> ... -> f20 -> f1
    local cycle = { "events: Ir", "fn=main", "1 1", "cfn=f1", "calls=1 1", "1 100" }
    for i = 1, 20 do
      cycle[#cycle + 1] = ("fn=f%d\n1 5\ncfn=f%d\ncalls=1 1\n1 1"):format(i, i % 20 + 1)
    end
    write("cycle.out", table.concat(cycle, "\n") .. "\n")
    write("cache.out", "events: Ir Dr\nfl=a.c\nfn=main\n1 10 2\nfn=work\n2 5 1\nsummary: 15 3\n")
  end)

  teardown(function() os.execute("rm -rf " .. dir) end)

  for _, case in ipairs {
    { "empty.out", "empty.out:0: empty input" },
    { "binary.out", "binary.out:1: NUL byte in line" },
    { "text.out", "text.out:1: unrecognized line starting with 'Dear'" },
  } do
    it("annotate.lua names the file and line of " .. case[1] .. ", with no traceback", function()
      local _, err, status = run.script("examples/annotate.lua", { dir .. "/" .. case[1] })
      assert.equal(2, status)
      assert.equal("annotate.lua: " .. dir .. "/" .. case[2] .. "\n", err)
      assert_clean(err)
    end)
  end

  it("annotate.lua --strict=no on a file with no events fails rather than crashing later", function()
    local _, err, status = run.script("examples/annotate.lua", { "--strict=no", dir .. "/text.out" })
    assert.equal(2, status)
    assert.truthy(err:find("annotate.lua: " .. dir .. "/text.out: no events: not a Callgrind or Cachegrind profile\n",
      1, true), err)
    assert_clean(err)
  end)

  it("annotate.lua and top.lua name an unknown event with the known ones", function()
    local _, err, status = run.script("examples/annotate.lua", { "--show=Nope", SAMPLE })
    assert.equal(2, status)
    assert.equal("annotate.lua: unknown event 'Nope' (known: Ir, CEst)\n", err)
    _, err, status = run.script("examples/top.lua", { SAMPLE, "Nope" })
    assert.equal(2, status)
    assert.equal("top.lua: unknown event 'Nope' (known: Ir, CEst)\n", err)
  end)

  it("top.lua shortens the member list of a long cycle", function()
    local out, err, status = run.script("examples/top.lua", { dir .. "/cycle.out" })
    assert.equal(0, status, err)
    assert.truthy(out:find("\n<cycle 1> (20 functions: f1, f10, f11, f12, f13, f14, f15, f16, ...): inclusive 100\n",
      1, true), out)
  end)

  it("top.lua shows no inclusive listing for a profile without calls", function()
    local out, err, status = run.script("examples/top.lua", { dir .. "/cache.out" })
    assert.equal(0, status, err)
    assert.truthy(out:find("By self cost (Ir)", 1, true))
    assert.falsy(out:find("By inclusive cost", 1, true), out)
  end)
end)
