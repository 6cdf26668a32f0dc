-- callgrind.nvim.functions outside Neovim (it needs only the module): where :CallgrindTop and
-- :CallgrindCallees place a function. Its first line in its own file, not a line of code
-- inlined into it, from another file or from the same one.
local callgrind = require "callgrind"
local functions = require "callgrind.nvim.functions"
local vg = require "helpers.valgrind"

local function parse(lines)
  return assert(callgrind.parse(table.concat(lines, "\n") .. "\n", "inline.callgrind"))
end

-- The lowest line of a function's records in its own file: where inlining misleads.
local function lowest_line(fn)
  local lowest
  for record in fn:lines() do
    if record.file == fn.file and record.line and record.line > 0 then
      lowest = math.min(lowest or record.line, record.line)
    end
  end
  return lowest
end

-- wordfreq.c: hash() (lines 10 to 15) inlined into main (lines 38 to 45), both in the same
-- file, as callgrind writes it: main's records start with hash's lines. Called from
-- (below main), whose calls= line names line 38, where main is entered.
local SAME_FILE = {
  "version: 1", "positions: line", "events: Ir",
  "fl=wordfreq.c", "fn=main",
  "11 40", "12 300", "13 60",
  "38 3", "40 20", "44 5",
  "fl=libc.c", "fn=(below main)",
  "100 2",
  "cfl=wordfreq.c", "cfn=main",
  "calls=1 38",
  "101 428",
}

describe("callgrind.nvim.functions.first_line", function()
  it("places a function where its callers enter it, not at code inlined from its own file", function()
    local main = parse(SAME_FILE):find("main")
    assert.are.equal(11, lowest_line(main))
    assert.are.equal(38, functions.first_line(main))
  end)

  it("places a function nothing calls at its lowest address when the profile has addresses", function()
    -- main's first instruction (0x1000) is on line 38; the inlined hash follows it
    local prof = parse({
      "version: 1", "positions: instr line", "events: Ir",
      "fl=wordfreq.c", "fn=main",
      "0x1000 38 3", "0x1004 11 40", "0x1008 12 300", "0x1010 40 20",
    })
    assert.are.equal(38, functions.first_line(prof:find("main")))
  end)

  it("keeps the lowest line when nothing tells where the function is entered", function()
    local prof = parse({ "version: 1", "positions: line", "events: Ir", "fl=a.c", "fn=f", "9 1", "5 1", "7 1" })
    assert.are.equal(5, functions.first_line(prof:find("f")))
  end)

  it("takes only lines of the function's own file, and only calls that name one of them", function()
    -- mix() of inline.h is inlined at lines 3 to 5, below main's first line; the call names
    -- line 4, a line of the header, and is passed over
    local prof = parse({
      "version: 1", "positions: line", "events: Ir",
      "fl=main.c", "fn=main",
      "20 2", "fi=inline.h", "3 10", "4 10", "5 10", "fe=main.c", "21 4",
      "fl=libc.c", "fn=start",
      "1 1", "cfl=main.c", "cfn=main", "calls=1 4", "2 36",
    })
    local main = prof:find("main")
    assert.are.equal(20, functions.first_line(main))
  end)

  it("gives nil for a function without a line in its own file", function()
    local prof = parse({ "version: 1", "positions: line", "events: Ir", "fl=???", "fn=0x1234", "0 9" })
    assert.is_nil(functions.first_line(prof:find("0x1234")))
  end)

  it("places main of the bundled sample at sample.c:56, not at the inlined hash() of line 19", function()
    -- examples/data/sample.c: hash() (lines 18 to 22) is inlined into main, which starts on 56
    local prof = assert(callgrind.load("examples/data/sample.callgrind.gz"))
    local main = prof:find("main")
    assert.are.equal(19, lowest_line(main))
    assert.are.equal(56, functions.first_line(main))
    -- fib'2 is entered on its only line
    assert.are.equal(54, functions.first_line(prof:find("fib'2")))
    prof:close()
  end)

  it("places main of a program valgrind profiles at its own first line, below the header's inlined code", function()
    if not vg.available() then
      pending("valgrind or gcc is not installed")
      return
    end
    -- spec/programs/inline.c: main opens on line 15; mix() of inline.h is inlined into it
    local prof = assert(callgrind.load(vg.profile("callgrind_inline")[1]))
    local main
    for fn in prof:functions() do
      if fn.name == "main" and fn.file:match("inline%.c$") then main = fn end
    end
    assert.are.equal(15, functions.first_line(main))
    prof:close()
  end)
end)
