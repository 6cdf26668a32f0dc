-- Reports and iteration helpers: hand-worked numbers on small profiles, then the same numbers
-- as callgrind_annotate on every profile the specs make with valgrind.
local callgrind = require "callgrind"
local report = require "callgrind.report"
local format = require "callgrind.format"
local vg = require "helpers.valgrind"

local function parse(text)
  return assert(callgrind.parse(text, "t.out"))
end

local extended = parse [[
events: Ir Dr
fl=file1.c
fn=main
16 20 2
cfn=func1
calls=1 50
16 400 40
cfi=file2.c
cfn=func2
calls=3 20
16 400 40
fn=func1
51 100 10
cfi=file2.c
cfn=func2
calls=2 20
51 300 30
fl=file2.c
fn=func2
20 700 70
]]

local function names(list)
  local out = {}
  for i, fn in ipairs(list) do out[i] = fn.name end
  return out
end

-- The rows of a report as {key, cost...} for the shown events, through the same parser the
-- specs use for callgrind_annotate's output.
local function listing(text, events)
  local parsed = assert(vg.parse_annotate(text))
  local out = {}
  for i, row in ipairs(parsed.rows) do
    local entry = { row.key }
    for _, ev in ipairs(events) do entry[#entry + 1] = row.costs[ev] end
    out[i] = entry
  end
  return out, parsed
end

describe("format", function()
  it("writes thousands separators and callgrind_annotate's percentages", function()
    assert.equal("0", format.thousands(0))
    assert.equal("999", format.thousands(999))
    assert.equal("1,000", format.thousands(1000))
    assert.equal("-1,234,567", format.thousands(-1234567))
    assert.equal("(100.0%)", format.percent(5, 5))
    assert.equal("(48.78%)", format.percent(400, 820))
    assert.equal("( 0.04%)", format.percent(4, 10000))
    assert.equal("(n/a)", format.percent(1, 0))
    assert.equal("-999", format.thousands(-999))
    assert.equal("-1,000", format.thousands(-1000))
    assert.equal("12,345,678,901,234,567,890", format.thousands("12345678901234567890"))
  end)

  it("writes a share without padding: the percentage's digits, its rounding at 99.995", function()
    assert.equal("100.0%", format.share(5, 5))
    assert.equal("48.78%", format.share(400, 820))
    assert.equal("0.04%", format.share(4, 10000))
    assert.equal("99.99%", format.share(9999, 10000))
    assert.equal("100.0%", format.share(99995, 100000))
    assert.equal("-12.50%", format.share(-1, 8))
    assert.equal("-100.0%", format.share(-3, 3))
    assert.equal("n/a", format.share(1, 0))
    for _, n in ipairs { 0, 1, 7, 123, 4999, 99994, 99995, 100000, 250000, -42 } do
      assert.equal(format.share(n, 100000), (format.percent(n, 100000):gsub("[ ()]", "")))
    end
  end)
end)

describe("callgrind.layout", function()
  local layout = require "callgrind.layout"
  local core = require "callgrind.core"

  it("lays out callgrind_annotate's columns: widths from the names and counts, shares after them", function()
    -- 700 of 820: 3 digits and 9 for " (85.37%)": a column of 12, then a blank
    local block = layout.block({ "Ir" }, { Ir = 820 })
    block:add({ Ir = 700 }, "a")
    block:add({ Ir = 20 }, "b")
    assert.equal(table.concat({ string.rep("-", 80), "Ir" .. string.rep(" ", 12) .. "x", string.rep("-", 80),
      "700 (85.37%)  a", " 20 ( 2.44%)  b" }, "\n"), block:render("x"))
  end)

  it("rounds shares as printf does, ties to even, and writes zeros and negative counts", function()
    local cols = core.columns({ "Ir" }, { 800 }, true)
    assert.equal("1 ( 0.12%) ", cols:cells({ 1 })) -- 0.125 exactly: printf keeps the even digit
    assert.equal("100 (12.50%) ", cols:cells({ 100 }))
    assert.equal("800 (100.0%) ", cols:cells({ 800 }))
    -- no count, or no share: 9 blanks where the share goes
    assert.equal("." .. string.rep(" ", 10), cols:cells({ 0 }, true))
    assert.equal("0" .. string.rep(" ", 10), cols:cells({ 0 }))
    assert.equal("." .. string.rep(" ", 10), cols:cells(nil))
    local plain = core.columns({ "Ir" }, { 10 }, false)
    assert.equal("-1,234,567 ", plain:cells({ -1234567 }))
    plain:fit({ 123456789 })
    -- 123,456,789 makes the column 11 wide; a row may also be keyed by event name
    assert.equal(string.rep(" ", 6) .. "1,000 ", plain:cells({ Ir = 1000 }))
  end)
end)

describe("prof:top", function()
  it("sorts by self cost by default, by inclusive cost on request", function()
    assert.same({ "func2", "func1", "main" }, names(extended:top()))
    assert.same({ "main", "func2", "func1" }, names(extended:top { inclusive = true }))
    assert.same({ "func2" }, names(extended:top { limit = 1 }))
    assert.same({ "func2", "func1", "main" }, names(extended:top { event = "Dr" }))
  end)

  it("stops at a threshold of the total, like callgrind_annotate", function()
    -- self costs 700, 100, 20 of 820: 700 < 85% of 820 = 697? no, 700 covers it
    assert.same({ "func2" }, names(extended:top { threshold = 85 }))
    assert.same({ "func2", "func1" }, names(extended:top { threshold = 86 }))
    assert.same({ "func2", "func1", "main" }, names(extended:top { threshold = 100 }))
  end)

  it("cuts inclusive listings as callgrind_annotate does: after the first below 100 - threshold", function()
    -- inclusive 820 (main), 700 (func2), 400 (func1) of 820: after func2 the total less its
    -- cost, 120, is 14.6% of it; coverage would stop after main, whose cost is the total
    assert.same({ "main", "func2", "func1" }, names(extended:top { inclusive = true, threshold = 99 }))
    assert.same({ "main", "func2", "func1" }, names(extended:top { inclusive = true, threshold = 15 }))
    assert.same({ "main", "func2" }, names(extended:top { inclusive = true, threshold = 14 }))
    assert.same({}, names(extended:top { inclusive = true, threshold = 0 }))
    local rows = listing(report.flat(extended, { inclusive = true, threshold = 14, show = "Ir" }), { "Ir" })
    assert.same({ { "file1.c:main", 820 }, { "file2.c:func2", 700 } }, rows)
    assert.equal(3, #listing(report.flat(extended, { inclusive = true, show = "Ir" }), { "Ir" }))
  end)

  it("lists rows of equal cost by name, where the threshold cuts inside them too", function()
    -- self costs 60 (e) and 10 each (d, c, b, a, written in that order) of 100: 75% takes e and
    -- two of the tens, which are the first two by name whatever the order they were read in
    local ties = parse [[
events: Ir
fl=t.c
fn=d
1 10
fn=e
2 60
fn=c
3 10
fn=b
4 10
fn=a
5 10
]]
    local function keys(opts)
      opts.show = "Ir"
      local out = {}
      for i, row in ipairs(listing(report.flat(ties, opts), { "Ir" })) do out[i] = row[1] .. "=" .. row[2] end
      return out
    end
    assert.same({ "t.c:e=60", "t.c:a=10", "t.c:b=10" }, keys { threshold = 75 })
    assert.same({ "t.c:e=60", "t.c:a=10", "t.c:b=10", "t.c:c=10", "t.c:d=10" }, keys { threshold = 100 })
    assert.same({ "t.c:e=60" }, keys { threshold = 60 })
  end)

  it("filters by name, file or object pattern, or by a predicate", function()
    assert.same({ "func2", "func1" }, names(extended:top { filter = { name = "^func" } }))
    assert.same({ "func1", "main" }, names(extended:top { filter = { file = "file1" } }))
    assert.same({ "main" }, names(extended:top { filter = function(fn) return fn.called == 0 end }))
    assert.same({}, names(extended:top { filter = { name = "f.n", plain = true } }))
    assert.has_error(function() extended:top { filter = 3 } end)
    assert.has_error(function() extended:top { event = "Bogus" } end)
  end)

  it("groups self costs by file and by object", function()
    local files = extended:by_file("Ir")
    assert.same({ file = "file2.c", costs = { Ir = 700, Dr = 70 } }, files[1])
    assert.same({ file = "file1.c", costs = { Ir = 120, Dr = 12 } }, files[2])
    local objects = extended:by_object()
    assert.same({ { object = "", costs = { Ir = 820, Dr = 82 } } }, objects)
  end)

  it("finds every function of a name", function()
    local prof = parse("events: Ir\nfl=a.c\nfn=dup\n1 1\nfl=b.c\nfn=dup\n1 2\n")
    local all = prof:find_all("dup")
    assert.equal(2, #all)
    assert.equal("b.c", all[2].file)
    assert.equal(1, #prof:find_all("dup", "a.c"))
    assert.same({}, prof:find_all("nothing"))
  end)
end)

describe("report.flat", function()
  it("lists program totals and every function with every event and percentages", function()
    local text = report.flat(extended, { threshold = 100 })
    local rows, parsed = listing(text, { "Ir", "Dr" })
    assert.same({ Ir = 820, Dr = 82 }, parsed.totals)
    assert.same({ { "file2.c:func2", 700, 70 }, { "file1.c:func1", 100, 10 },
      { "file1.c:main", 20, 2 } }, rows)
    assert.truthy(text:find("700 (85.37%)", 1, true))
    assert.truthy(text:find("Events shown:     Ir Dr", 1, true))
    assert.truthy(text:find("Profile data file 't.out'", 1, true))
  end)

  it("lists inclusive costs", function()
    local rows = listing(report.flat(extended, { inclusive = true, threshold = 100 }), { "Ir" })
    assert.same({ { "file1.c:main", 820 }, { "file2.c:func2", 700 }, { "file1.c:func1", 400 } }, rows)
  end)

  it("shows and sorts by chosen events, cuts at the threshold and the limit", function()
    local text = report.flat(extended, { show = "Dr", sort = { "Dr" }, threshold = 90, percentages = false })
    assert.same({ { "file2.c:func2", 70 }, { "file1.c:func1", 10 } }, (listing(text, { "Dr" })))
    assert.falsy(text:find("%%"))
    local limited = report.flat(extended, { limit = 1, threshold = 100 })
    assert.equal(1, #(listing(limited, { "Ir" })))
    assert.has_error(function() report.flat(extended, { show = "Nope" }) end)
  end)

  it("splits inlined code into rows of its header file unless asked to merge", function()
    local prof = parse("events: Ir\nfl=a.c\nfn=main\n1 3\nfi=inl.h\n2 40\ncfn=f\ncalls=1 9\n2 5\nfe=a.c\n3 1\n" ..
      "fl=a.c\nfn=f\n9 5\n")
    assert.same({ { "inl.h:main", 40, 45 }, { "a.c:f", 5, 5 }, { "a.c:main", 4, 4 } },
      (function()
        local self_rows = listing(report.flat(prof, { threshold = 100 }), { "Ir" })
        local incl = listing(report.flat(prof, { threshold = 100, inclusive = true }), { "Ir" })
        local by = {}
        for _, r in ipairs(incl) do by[r[1]] = r[2] end
        for _, r in ipairs(self_rows) do r[3] = by[r[1]] end
        return self_rows
      end)())
    local merged = listing(report.flat(prof, { threshold = 100, inlined = "merge" }), { "Ir" })
    assert.same({ { "a.c:main", 44 }, { "a.c:f", 5 } }, merged)
  end)

  it("gives the same rows whether the file index was built before it or not", function()
    -- the rows read each function up to its second file without the index, and take the
    -- index's word for the functions in one file with it
    local text = "events: Ir\nfl=a.c\nfn=main\n1 3\nfi=inl.h\n2 40\nfe=a.c\n3 1\nfi=inl.h\n4 2\n" ..
      "fl=b.c\nfn=g\n7 11\n8 13\nfl=a.c\nfn=h\n0 17\n"
    local without = report.flat(parse(text), { threshold = 100 })
    local indexed = parse(text)
    assert.same({ "a.c", "b.c", "inl.h" }, indexed:source_files())
    assert.equal(without, report.flat(indexed, { threshold = 100 }))
    assert.same({ { "inl.h:main", 42 }, { "b.c:g", 24 }, { "a.c:h", 17 }, { "a.c:main", 4 } },
      (listing(without, { "Ir" })))
  end)
end)

describe("report.tree", function()
  it("prints callers and callees with call counts and inclusive call costs", function()
    local _, parsed = listing(report.tree(extended, { threshold = 100 }), { "Ir" })
    local func2 = parsed.by_key["file2.c:func2"]
    assert.equal(700, func2.costs.Ir)
    assert.equal(2, #func2.callers)
    assert.same({ "file1.c:main", 3, 400 }, { func2.callers[1].key, func2.callers[1].count, func2.callers[1].costs.Ir })
    assert.same({ "file1.c:func1", 2, 300 }, { func2.callers[2].key, func2.callers[2].count, func2.callers[2].costs.Ir })
    local main = parsed.by_key["file1.c:main"]
    assert.equal(0, #main.callers)
    assert.same({ "file1.c:func1", "file2.c:func2" }, { main.callees[1].key, main.callees[2].key })
    assert.same({ 1, 3 }, { main.callees[1].count, main.callees[2].count })
  end)

  it("prints only callers or only callees on request", function()
    local callers = report.tree(extended, { tree = "caller", threshold = 100 })
    assert.falsy(callers:find(">   ", 1, true))
    assert.truthy(callers:find("< ", 1, true))
    local callees = report.tree(extended, { tree = "calling", threshold = 100 })
    assert.falsy(callees:find("< file", 1, true))
    assert.has_error(function() report.tree(extended, { tree = "sideways" }) end)
  end)
end)

describe("report.cycles", function()
  it("names each cycle with its members and costs", function()
    local prof = parse("events: Ir\nfn=a\n1 1\ncfn=b\ncalls=1 1\n1 10\nfn=b\n1 6\ncfn=a\ncalls=1 1\n1 4\n" ..
      "fn=main\n1 1\ncfn=a\ncalls=1 1\n1 11\n")
    local text = report.cycles(prof)
    assert.truthy(text:find("<cycle 1> (2 functions)", 1, true))
    assert.truthy(text:find(":b (self)", 1, true))
    assert.truthy(text:find(":a (self)", 1, true))
    assert.equal("no cycles\n", report.cycles(extended))
  end)

  it("shows derived events of a cycle and its members", function()
    -- L1m = I1mr + D1mr: a 1 + 1 and b 0 + 1 of self costs, 3 for the cycle
    local prof = parse("events: Ir I1mr D1mr\nfn=a\n1 10 1 1\ncfn=b\ncalls=1 1\n1 5 0 1\n" ..
      "fn=b\n1 3 0 1\ncfn=a\ncalls=1 1\n1 4 1 1\n")
    local text = report.cycles(prof, { show = { "L1m" } })
    assert.truthy(text:find("\n3 %(100%.0%%%)  %*  <cycle 1> %(2 functions%)\n"), text)
    assert.truthy(text:find("\n2 %(66%.67%%%)      %?%?%?:a %(self%)\n"), text)
    assert.truthy(text:find("\n1 %(33%.33%%%)      %?%?%?:b %(self%)\n"), text)
  end)
end)

---------------------------------------------------------------------------------------------------
-- callgrind_annotate parity on real profiles
---------------------------------------------------------------------------------------------------

if not vg.available() then
  describe("reports compared with callgrind_annotate", function()
    pending("gcc, valgrind and callgrind_annotate are needed on PATH")
  end)
  return
end

local function basename(path) return (path:match("[^/]*$")) end

-- Rows of a parsed listing summed by key: callgrind_annotate merges one file and name found in
-- two objects (glibc's fstat in libc and ld.so) into one row, which our report keeps apart.
local function by_key(parsed, events)
  local sums = {}
  for _, row in ipairs(parsed.rows) do
    local s = sums[row.key]
    if not s then
      s = { costs = {}, callers = {}, callees = {} }
      for _, ev in ipairs(events) do s.costs[ev] = 0 end
      sums[row.key] = s
    end
    for _, ev in ipairs(events) do s.costs[ev] = s.costs[ev] + (row.costs[ev] or 0) end
    for _, list in ipairs { "callers", "callees" } do
      for _, c in ipairs(row[list] or {}) do
        local e = s[list][c.key] or { count = 0, costs = {} }
        s[list][c.key] = e
        e.count = e.count + (c.count or 0)
        for _, ev in ipairs(events) do e.costs[ev] = (e.costs[ev] or 0) + (c.costs[ev] or 0) end
      end
    end
  end
  return sums
end

-- What callgrind_annotate 3.19 does differently on purpose or by mistake, per row key:
-- - it adds the cost line of `calls=0` (a call that was running when an earlier part was
--   dumped) to the caller's self cost, and leaves such calls out of its call lists;
-- - it adds self-calls and calls inside a cycle to inclusive costs, counting nested recursion
--   again;
-- - it gives a key that is called by anyone the sum of its incoming calls, also when another
--   function under the same key (another object) is not called.
local function differences(prof, path)
  local zero_count, recursive, mixed = {}, {}, {}
  -- calls=0 lines, read from the file itself: the model sums them with other calls of a site
  for _, call in ipairs(vg.read_raw(path).calls) do
    if call.count == 0 then
      zero_count[call.ca_key] = true
      zero_count[call.callee.file .. ":" .. call.callee.name] = true
    end
  end
  local called_keys, uncalled_keys = {}, {}
  for fn in prof:functions() do
    local key = fn.file .. ":" .. fn.name
    local recursion = fn.cycle ~= nil
    for call in fn:callees() do
      if call.callee == fn then recursion = true end
    end
    if recursion then
      recursive[key] = true
      for line in fn:lines() do recursive[line.file .. ":" .. fn.name] = true end
    end
    if fn.called > 0 then called_keys[key] = true else uncalled_keys[key] = true end
  end
  for key in pairs(called_keys) do
    if uncalled_keys[key] then mixed[key] = true end
  end
  return zero_count, recursive, mixed
end

local function compare(mismatches, label, events, want, have)
  for _, ev in ipairs(events) do
    local w, h = want and want[ev] or 0, have and have[ev] or 0
    if w ~= h then mismatches[#mismatches + 1] = ("%s %s: callgrind_annotate %s, report %s"):format(label, ev, tostring(w), tostring(h)) end
  end
end

local function assert_none(mismatches, compared, expected_some)
  if expected_some ~= false then assert.is_true(compared > 0, "nothing compared") end
  local shown = {}
  for i = 1, math.min(20, #mismatches) do shown[i] = mismatches[i] end
  assert.equal(0, #mismatches, table.concat(shown, "\n"))
end

for _, config in ipairs(vg.configs()) do
  describe("reports compared with callgrind_annotate on " .. config.name, function()
    it("give every row of report.flat and report.flat{inclusive=true} callgrind_annotate's numbers", function()
      for _, path in ipairs((vg.profile(config.name))) do
        local prof = assert(callgrind.load(path))
        local events = prof:events()
        local zero_count, recursive, mixed = differences(prof, path)
        local mismatches, compared = {}, 0
        -- self
        local ca = by_key(vg.annotate(path), events)
        local ours = by_key(assert(vg.parse_annotate(report.flat(prof, { threshold = 100 }))), events)
        for key, row in pairs(ours) do
          if not zero_count[key] then
            compared = compared + 1
            compare(mismatches, basename(path) .. " self " .. key, events, ca[key] and ca[key].costs, row.costs)
          end
        end
        for key, row in pairs(ca) do
          if not ours[key] and not zero_count[key] then
            compare(mismatches, basename(path) .. " self " .. key, events, row.costs, nil)
          end
        end
        -- inclusive
        local ca_incl = by_key(vg.annotate(path, { inclusive = true }), events)
        local ours_incl = by_key(assert(vg.parse_annotate(report.flat(prof, { threshold = 100, inclusive = true }))), events)
        for key, row in pairs(ours_incl) do
          if not (zero_count[key] or recursive[key] or mixed[key]) then
            compared = compared + 1
            compare(mismatches, basename(path) .. " inclusive " .. key, events,
              ca_incl[key] and ca_incl[key].costs, row.costs)
          end
        end
        assert_none(mismatches, compared)
      end
    end)

    it("give every caller and callee of report.tree callgrind_annotate's counts and costs", function()
      for _, path in ipairs((vg.profile(config.name))) do
        local prof = assert(callgrind.load(path))
        local events = prof:events()
        local zero_count = differences(prof, path)
        local ca = by_key(vg.annotate(path, { tree = "both" }), events)
        local ours = by_key(assert(vg.parse_annotate(report.tree(prof, { threshold = 100 }))), events)
        local mismatches, compared = {}, 0
        for key, row in pairs(ours) do
          if not zero_count[key] then
            for _, list in ipairs { "callers", "callees" } do
              local theirs = ca[key] and ca[key][list] or {}
              for other, entry in pairs(row[list]) do
                if not zero_count[other] then
                  compared = compared + 1
                  local t = theirs[other]
                  local label = basename(path) .. " " .. key .. " " .. list .. " " .. other
                  if not t or t.count ~= entry.count then
                    mismatches[#mismatches + 1] = label .. ": count " .. tostring(t and t.count) .. " vs " .. entry.count
                  end
                  compare(mismatches, label, events, t and t.costs, entry.costs)
                end
              end
              for other in pairs(theirs) do
                if not row[list][other] and not zero_count[other] then
                  mismatches[#mismatches + 1] = basename(path) .. " " .. key .. " " .. list .. ": missing " .. other
                end
              end
            end
          end
        end
        assert_none(mismatches, compared, prof:stats().calls > 0)
      end
    end)
  end)
end
