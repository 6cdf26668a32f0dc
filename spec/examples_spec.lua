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
    assert.equal(1, status)
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
    assert.equal(1, status)
    assert.truthy(err:find("/nonexistent/b: No such file or directory", 1, true))
    _, err, status = run.script("examples/merge.lua", { dir .. "/x.out" })
    assert.equal(2, status)
    assert.truthy(err:find("usage:", 1, true))
    _, err, status = run.script("examples/merge.lua", { "/nonexistent/dir/x.out", dir .. "/a.out", dir .. "/b.out" })
    assert.equal(1, status)
    assert.truthy(err:find("No such file or directory", 1, true))
  end)
end)
