-- Malformed input: a strict load stops at the first bad line with "NAME:LINE: message"; a
-- tolerant load (strict = false) skips the line and reports the same text as a warning.
local callgrind = require "callgrind"

local cases = {
  {
    what = "a cost line before 'events:'",
    text = "fn=main\n16 20\nevents: Ir\n",
    message = "bad.out:2: cost line before the 'events:' line",
  },
  {
    what = "calls= not followed by a position line",
    text = "events: Ir\nfn=main\ncfn=f\ncalls=1 10\nfn=other\n16 400\n",
    message = "bad.out:5: expected the position line of the calls= on line 4",
  },
  {
    what = "calls= at the end of the input",
    text = "events: Ir\nfn=main\ncfn=f\ncalls=1 10\n",
    message = "bad.out:4: calls= on line 4 has no position line (end of input)",
  },
  {
    what = "jump= not followed by a position line",
    text = "events: Ir\nfn=main\n1 1\njump=3 5\ncfn=x\n",
    message = "bad.out:5: expected the position line of the jump= on line 4",
  },
  {
    what = "calls= without a callee",
    text = "events: Ir\nfn=main\ncalls=1 10\n16 400\n",
    message = "bad.out:3: calls= without a cfn= before it",
  },
  {
    what = "an undefined compressed function id",
    text = "events: Ir\nfn=(1) main\n1 1\ncfn=(2)\n",
    message = "bad.out:4: undefined function id (2)",
  },
  {
    what = "an undefined compressed file id",
    text = "events: Ir\nfl=(7)\n",
    message = "bad.out:2: undefined file id (7)",
  },
  {
    what = "an undefined compressed object id",
    text = "events: Ir\nob=(3)\n",
    message = "bad.out:2: undefined object id (3)",
  },
  {
    what = "a bad compressed id",
    text = "events: Ir\nfl=(2 ) x.c\n",
    message = "bad.out:2: bad compressed file id '(2 )'",
  },
  {
    what = "a relative subposition with nothing before it",
    text = "events: Ir\nfn=main\n+3 10\n",
    message = "bad.out:3: relative line position '+3' with no previous position",
  },
  {
    what = "'*' with nothing before it",
    text = "positions: instr line\nevents: Ir\nfn=main\n* 3 10\n",
    message = "bad.out:4: relative instr position '*' with no previous position",
  },
  {
    what = "a relative subposition below zero",
    text = "events: Ir\nfn=main\n5 1\n-20 1\n",
    message = "bad.out:4: line position '-20' from 5 is out of range",
  },
  {
    what = "too many costs",
    text = "events: Ir\nfn=main\n10 20 30\n",
    message = "bad.out:3: too many costs: 'events:' lists 1 event",
  },
  {
    what = "too many costs for two events",
    text = "events: Ir Dr\nfn=main\n10 20 30 40\n",
    message = "bad.out:3: too many costs: 'events:' lists 2 events",
  },
  {
    what = "a bad cost",
    text = "events: Ir\nfn=main\n11 hello\n",
    message = "bad.out:3: bad cost 'hello'",
  },
  {
    what = "a bad position",
    text = "events: Ir\nfn=main\n9a 21\n",
    message = "bad.out:3: bad line position '9a'",
  },
  {
    what = "a bad call count",
    text = "events: Ir\nfn=main\ncfn=f\ncalls=x 10\n",
    message = "bad.out:4: bad call count 'x'",
  },
  {
    what = "a cost over 64 bits",
    text = "events: Ir\nfn=main\n1 18446744073709551616\n",
    message = "bad.out:3: number '18446744073709551616' does not fit in 64 bits",
  },
  {
    what = "a cost over the signed 64-bit range",
    text = "events: Ir\nfn=main\n1 9223372036854775808\n",
    message = "bad.out:3: number '9223372036854775808' does not fit in 64 bits",
  },
  {
    what = "a hex position over 64 bits",
    text = "positions: instr\nevents: Ir\nfn=main\n0x10000000000000000 1\n",
    message = "bad.out:4: number '0x10000000000000000' does not fit in 64 bits",
  },
  {
    what = "a sum over 64 bits",
    text = "events: Ir\nfn=main\n1 9223372036854775807\n1 1\n",
    message = "bad.out:4: cost sum does not fit in 64 bits",
  },
  {
    what = "a NUL byte",
    text = "events: Ir\nfn=main\n1 2\n3\0 4\n",
    message = "bad.out:4: NUL byte in line",
  },
  {
    what = "a NUL byte in a comment",
    text = "events: Ir\n# a\0b\n",
    message = "bad.out:2: NUL byte in line",
  },
  {
    what = "an unknown key= line",
    text = "events: Ir\nfn=main\nfoo=bar\n",
    message = "bad.out:3: unknown specification 'foo='",
  },
  {
    what = "an unrecognized line",
    text = "events: Ir\nfn=main\naa 40\n",
    message = "bad.out:3: unrecognized line starting with 'aa'",
  },
  {
    what = "a cost line outside a function",
    text = "events: Ir\nfl=a.c\n1 2\n",
    message = "bad.out:3: cost line outside a function (no fn= before it)",
  },
  {
    what = "a jcnd= taken more often than executed",
    text = "events: Ir\nfn=main\n1 1\njcnd=5/3 2\n*\n",
    message = "bad.out:4: jcnd= jump taken 5 times but executed only 3",
  },
  {
    what = "costs on a jump's source line",
    text = "events: Ir\nfn=main\n1 1\njump=2 4\n* 7\n",
    message = "bad.out:5: costs on the source line of a jump",
  },
  {
    what = "an unknown positions: kind",
    text = "positions: instr column\nevents: Ir\n",
    message = "bad.out:1: unknown position 'column' in 'positions:'",
  },
  {
    what = "positions: out of order",
    text = "positions: line instr\nevents: Ir\n",
    message = "bad.out:1: 'positions:' must list instr, bb and line at most once each, in that order",
  },
  {
    what = "an event listed twice",
    text = "events: Ir Dr Ir\n",
    message = "bad.out:1: event 'Ir' listed twice in 'events:'",
  },
  {
    what = "summary: before events:",
    text = "summary: 10\nevents: Ir\n",
    message = "bad.out:1: 'summary:' before the 'events:' line",
  },
  {
    what = "an input without events:",
    text = "# only a comment\n",
    message = "bad.out:1: no 'events:' line in the input",
  },
  {
    what = "an empty input",
    text = "",
    message = "bad.out:0: empty input",
  },
}

describe("a strict load of malformed input", function()
  for _, case in ipairs(cases) do
    it("stops at " .. case.what, function()
      local prof, err, kind = callgrind.parse(case.text, "bad.out")
      assert.is_nil(prof)
      assert.equal(case.message, err)
      assert.equal("format", kind)
    end)
  end
end)

describe("a tolerant load of malformed input", function()
  for _, case in ipairs(cases) do
    it("warns about " .. case.what .. " and goes on", function()
      local prof, err = callgrind.parse(case.text, "bad.out", { strict = false })
      assert.is_not_nil(prof, err)
      local warnings = prof:warnings()
      assert.equal(case.message, warnings[1])
    end)
  end

  it("keeps the good lines around a bad one", function()
    local prof = assert(callgrind.parse("events: Ir\nfn=main\n10 20 30\n11 hello\n12 10   \n",
      "bad.out", { strict = false }))
    assert.equal(10, prof:total("Ir"))
    assert.equal(2, #prof:warnings())
  end)

  it("names an undefined id's function '???' and keeps its costs", function()
    local prof = assert(callgrind.parse("events: Ir\nfn=(5)\n1 7\n", "bad.out", { strict = false }))
    assert.equal(7, prof:find("???"):self("Ir"))
  end)

  it("keeps a calls= waiting across other lines, as KCachegrind does", function()
    local prof = assert(callgrind.parse("events: Ir\nfn=main\ncfn=f\ncalls=2 10\nfl=a.c\n16 400\n",
      "bad.out", { strict = false }))
    local call = prof:find("main"):callees()()
    assert.equal(2, call.count)
    assert.equal(400, call:inclusive("Ir"))
    assert.equal("a.c", call.file)
  end)

  it("caps the warnings it keeps and counts the rest", function()
    local text = { "events: Ir", "fn=main" }
    for i = 1, 50 do text[#text + 1] = "bad" .. i end
    local prof = assert(callgrind.parse(table.concat(text, "\n"), "bad.out",
      { strict = false, max_warnings = 10 }))
    local warnings, dropped = prof:warnings()
    assert.equal(10, #warnings)
    assert.equal(40, dropped)
  end)
end)

describe("sums beyond 64 bits found by the analysis", function()
  local text = "events: Ir\nfn=a\n1 1\nfn=b\n1 1\ncfn=a\ncalls=1 1\n1 9223372036854775807\n" ..
    "fn=c\n1 1\ncfn=a\ncalls=1 1\n1 9223372036854775807\n"

  it("stop a strict load, reported at the end of the input", function()
    local prof, err, kind = callgrind.parse(text, "o.out")
    assert.is_nil(prof)
    assert.equal("o.out:13: the inclusive cost of 'a' does not fit in 64 bits", err)
    assert.equal("overflow", kind)
  end)

  it("saturate with a warning in a tolerant load", function()
    local prof = assert(callgrind.parse(text, "o.out", { strict = false }))
    -- a: two calls of 2^63 - 1; b and c: 1 of self cost plus such a call
    assert.same({ "o.out:13: the inclusive cost of 'a' does not fit in 64 bits",
      "o.out:13: the inclusive cost of 'b' does not fit in 64 bits",
      "o.out:13: the inclusive cost of 'c' does not fit in 64 bits" }, prof:warnings())
    assert.equal(math.maxinteger or 2 ^ 63, prof:find("a"):inclusive(1))
  end)

  describe("in the called counts", function()
    -- a: called 2^64 - 1 times by b and twice by c; b: 2^64 - 1 times by c and once by d
    local counts = "events: Ir\nfn=a\n1 1\nfn=b\n1 1\ncfn=a\ncalls=18446744073709551615 1\n1 5\n" ..
      "fn=c\n1 1\ncfn=a\ncalls=2 1\n1 5\ncfn=b\ncalls=18446744073709551615 1\n1 2\n" ..
      "fn=d\n1 1\ncfn=b\ncalls=1 1\n1 2\n"

    it("stop a strict load", function()
      for _, threads in ipairs { 1, 2 } do
        local prof, err, kind = callgrind.parse(counts, "o.out", { threads = threads })
        assert.is_nil(prof)
        assert.equal("o.out:21: the call count of 'a' does not fit in 64 bits", err)
        assert.equal("overflow", kind)
      end
    end)

    it("saturate with a warning each in a tolerant load, the costs still summed", function()
      for _, threads in ipairs { 1, 2 } do
        local prof = assert(callgrind.parse(counts, "o.out", { strict = false, threads = threads }))
        assert.same({ "o.out:21: the call count of 'a' does not fit in 64 bits",
          "o.out:21: the call count of 'b' does not fit in 64 bits" }, prof:warnings())
        assert.equal("18446744073709551615", prof:find("a"):exact("called"))
        assert.equal("18446744073709551615", prof:find("b"):exact("called"))
        assert.equal("0", prof:find("c"):exact("called"))
        -- a: the costs of its two calls, 5 + 5; b: the costs of the calls to it, 2 + 2
        assert.equal(10, prof:find("a"):inclusive(1))
        assert.equal(4, prof:find("b"):inclusive(1))
        prof:close()
      end
    end)
  end)
end)

describe("faults no mode skips", function()
  it("refuses format version 2 and above", function()
    for _, strict in ipairs { true, false } do
      local prof, err = callgrind.parse("version: 2\nevents: Ir\n", "v.out", { strict = strict })
      assert.is_nil(prof)
      assert.equal("v.out:1: unsupported format version 2 (this reader knows 1)", err)
    end
  end)

  it("accepts version 1 and Xdebug's 0.9.6", function()
    assert.is_not_nil(callgrind.parse("version: 1\nevents: Ir\n"))
    assert.is_not_nil(callgrind.parse("version: 0.9.6\nevents: Ir\n"))
  end)

  it("refuses an events: line with too many events", function()
    local names = {}
    for i = 1, 300 do names[i] = "E" .. i end
    local prof, err = callgrind.parse("events: " .. table.concat(names, " ") .. "\n", "e.out",
      { strict = false })
    assert.is_nil(prof)
    assert.equal("e.out:1: too many events in 'events:' (at most 256)", err)
  end)
end)

describe("doubts that are only warnings", function()
  it("warns when a compressed id is redefined to another name, and the last one wins", function()
    local prof = assert(callgrind.parse("events: Ir\nfl=(2) file1.c\nfn=(1) main\n10 9\nfn=(1) main2\n11 1\nfn=(1)\n12 1\n",
      "r.out"))
    assert.same({ "r.out:5: function id (1) redefined from 'main' to 'main2'" }, prof:warnings())
    assert.equal(2, prof:find("main2"):self("Ir"))
  end)

  it("is silent when an id is defined again with the same name", function()
    local prof = assert(callgrind.parse("events: Ir\nfn=(1) main\n10 9\nfn=(1) main\n11 1\n"))
    assert.same({}, prof:warnings())
    assert.equal(10, prof:find("main"):self("Ir"))
  end)

  it("warns when totals: disagrees with the section's costs", function()
    local prof = assert(callgrind.parse("events: Ir Dr\nfn=main\n10 9 1\ntotals: 9 2\n", "t.out"))
    assert.same({ "t.out:4: totals: Dr is 2 but the section's costs sum to 1" }, prof:warnings())
  end)

  it("is silent when totals: agrees", function()
    local prof = assert(callgrind.parse("events: Ir Dr\nfn=main\n10 9 1\ntotals: 9 1\n", "t.out"))
    assert.same({}, prof:warnings())
  end)
end)

describe("inputs that end too soon", function()
  local fixtures = require "helpers.fixtures"
  local TRUNCATED = "the input ends before the totals: line that callgrind writes last, so it looks truncated"
  local sample -- the bundled sample profile, written by callgrind: summary: first, totals: last

  setup(function()
    local pipe = assert(io.popen("gzip -dc examples/data/sample.callgrind.gz"))
    sample = pipe:read("*a")
    pipe:close()
  end)

  local function first_lines(text, n)
    local cut, count = 0, 0
    while count < n do
      cut = text:find("\n", cut + 1, true)
      count = count + 1
    end
    return text:sub(1, cut)
  end

  it("fails a strict load of a callgrind file cut short, with the summary and the sum read", function()
    local summary = tonumber(sample:match("\nsummary: (%d+)"))
    local cut = first_lines(sample, 5000)
    local read = assert(callgrind.parse(cut, "cut", { strict = false })):total("Ir")
    assert.is_true(read < summary)
    local prof, err, kind = callgrind.parse(cut, "cut")
    assert.is_nil(prof)
    assert.equal(("cut:5000: %s (summary: Ir is %d, the costs read sum to %d)"):format(TRUNCATED, summary, read), err)
    assert.equal("format", kind)
  end)

  it("warns in a tolerant load of a callgrind file cut short", function()
    local prof = assert(callgrind.parse("creator: callgrind-3.19.0\nevents: Ir\nsummary: 10\nfn=main\n1 9\n",
      "c.out", { strict = false }))
    assert.same({ "c.out:5: " .. TRUNCATED .. " (summary: Ir is 10, the costs read sum to 9)" }, prof:warnings())
    assert.equal(9, prof:total("Ir"))
  end)

  it("says a callgrind file cut before its summary: is truncated too", function()
    local _, err = callgrind.parse("creator: callgrind-3.19.0\nevents: Ir\nfn=main\n1 9\n", "c.out")
    assert.equal("c.out:4: " .. TRUNCATED, err)
  end)

  it("is silent when callgrind's summary: exceeds its totals: (it counts the thread's events)", function()
    local prof = assert(callgrind.parse(
      "creator: callgrind-3.19.0\nevents: Ir\nsummary: 12\nfn=main\n1 9\ntotals: 9\n", "c.out"))
    assert.same({}, prof:warnings())
  end)

  it("warns when summary: disagrees with the costs and there is no totals:", function()
    local prof = assert(callgrind.parse("events: Ir Dr\nsummary: 10 1\nfn=main\n1 9 1\n", "s.out"))
    assert.same({ "s.out:2: summary: Ir is 10 but the section's costs sum to 9" }, prof:warnings())
    prof = assert(callgrind.parse("events: Ir\nfn=main\n1 9\nsummary: 9\n", "s.out"))
    assert.same({}, prof:warnings())
  end)

  it("reports a gzip stream cut anywhere as such, never the half line it ends on", function()
    local dir = os.tmpname()
    fixtures.write(dir .. ".txt", sample)
    os.execute("gzip -c " .. dir .. ".txt > " .. dir .. ".gz")
    local gz = fixtures.read(dir .. ".gz")
    for _, size in ipairs { 1000, 2000, 3000, 4000, 5000, 6000, 7000, #gz - 10 } do
      local prof, err = callgrind.parse(gz:sub(1, size), "cut.gz")
      assert.is_nil(prof)
      local line = tonumber(err:match("^cut%.gz:(%d+): gzip data ends early$"))
      assert(line, err)
      -- the lines before the cut are read: a tolerant load keeps them and warns
      local kept = assert(callgrind.parse(gz:sub(1, size), "cut.gz", { strict = false }))
      assert.equal(("cut.gz:%d: gzip data ends early"):format(line), kept:warnings()[1])
    end
    os.remove(dir .. ".txt")
    os.remove(dir .. ".gz")
    os.remove(dir)
  end)

  it("skips an empty file in a list with a warning, and fails when every file is empty", function()
    local dir = os.tmpname()
    fixtures.write(dir .. ".base", "") -- what valgrind leaves beside --separate-threads=yes files
    fixtures.write(dir .. "-01", "events: Ir\nfn=main\n1 9\n")
    local prof = assert(callgrind.load { dir .. ".base", dir .. "-01" })
    assert.equal(9, prof:total("Ir"))
    assert.same({ dir .. ".base:0: empty input" }, prof:warnings())
    local none, err = callgrind.load { dir .. ".base", dir .. ".base" }
    assert.is_nil(none)
    assert.equal(dir .. ".base:0: empty input", err)
    os.remove(dir .. ".base")
    os.remove(dir .. "-01")
    os.remove(dir)
  end)
end)
