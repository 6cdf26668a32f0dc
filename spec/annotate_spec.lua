-- callgrind.annotate: annotated source compared with callgrind_annotate --auto=yes on
-- fresh valgrind profiles, and checked on small written profiles whose numbers are
-- worked out by hand.
local callgrind = require "callgrind"
local annotate = require "callgrind.annotate"
local vg = require "helpers.valgrind"
local fixtures = require "helpers.fixtures"

---------------------------------------------------------------------------
-- Reading annotated source text (ours and callgrind_annotate's)
---------------------------------------------------------------------------

local function split_lines(text)
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    lines[#lines + 1] = line
  end
  return lines
end

local function trim(s)
  return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end

-- Reads `count` cost columns at the start of `line`: each a number with thousands
-- separators or "." (no cost), optionally followed by a share "( 1.23%)". Returns the
-- costs by event and the rest of the line, or nil.
local function read_columns(line, events)
  local costs, pos = {}, 1
  for _, ev in ipairs(events) do
    local _, e, count = line:find("^%s*([%d,]+)", pos)
    if not e then
      _, e, count = line:find("^%s*(%.)", pos)
    end
    if not e then
      return nil
    end
    costs[ev] = vg.parse_count(count)
    pos = e + 1
    local _, pe = line:find("^ %(%s*%-?[%d%.]+%%%)", pos)
    if pe then
      pos = pe + 1
    end
  end
  return costs, line:sub(pos)
end

-- Parses the annotated-source part of the output:
-- { files = { [label] = section }, order = {label, ...}, missing = {file, ...},
--   missing_header =, annotated = {ev = n} }
-- section = { kind = "Auto"|"User", lines = { [n] = {costs =, text =} },
--   calls = { [n] = { {key =, count =, costs =}, ... } }, separators = {n, ...},
--   shown = {n, ...}, bogus = { [n] = costs }, unidentified = costs, no_info = bool }
local function parse_source(text, events)
  local lines = split_lines(text)
  local result = { files = {}, order = {}, missing = {} }
  local i = 1
  while i <= #lines do
    local line = lines[i]
    local kind, label = line:match("^%-%- (%a+)%-annotated source: (.*)$")
    if kind then
      local section = { kind = kind, lines = {}, calls = {}, separators = {}, shown = {}, bogus = {} }
      result.files[label] = section
      result.order[#result.order + 1] = label
      i = i + 2 -- the rule
      if lines[i]:find("^  No information has been collected for ") then
        section.no_info = true
      else
        i = i + 2 -- event names, blank line
        local next_line, current = 1, nil
        while i <= #lines and lines[i] ~= "" do
          local row = lines[i]
          local sep = row:match("^%-%- line (%d+) %-+$")
          if sep then
            section.separators[#section.separators + 1] = tonumber(sep)
            next_line = tonumber(sep)
          elseif not row:find("^@") then -- callgrind_annotate's warnings
            local costs, rest = read_columns(row, events)
            assert(costs, "cannot read: " .. row)
            local body = trim(rest)
            local key, count = body:match("^=> (.-) %(([%d,]+)x%)$")
            local bogus = body:match("^<bogus line (%d+)>$")
            if key then
              local calls = section.calls[current] or {}
              section.calls[current] = calls
              calls[#calls + 1] = { key = key, count = vg.parse_count(count), costs = costs }
            elseif bogus then
              current = tonumber(bogus)
              section.bogus[current] = costs
            elseif body:find("^<counts for unidentified lines in ") then
              current = 0
              section.unidentified = costs
            else
              current = next_line
              next_line = next_line + 1
              section.lines[current] = { costs = costs, text = body }
              section.shown[#section.shown + 1] = current
            end
          end
          i = i + 1
        end
        -- after the blank line: lines past the end of the file, unidentified lines
        while i + 1 <= #lines and lines[i] == "" and lines[i + 1] ~= "" and not lines[i + 1]:find("^%-%-%-%-") do
          i = i + 1
          while i <= #lines and lines[i] ~= "" do
            local row = lines[i]
            local costs, rest = read_columns(row, events)
            if costs then
              local body = trim(rest)
              local bogus = body:match("^<bogus line (%d+)>$")
              local key, count = body:match("^=> (.-) %(([%d,]+)x%)$")
              if bogus then
                current = tonumber(bogus)
                section.bogus[current] = costs
              elseif key then
                local calls = section.calls[current] or {}
                section.calls[current] = calls
                calls[#calls + 1] = { key = key, count = vg.parse_count(count), costs = costs }
              elseif body:find("^<counts for unidentified lines in ") then
                current = 0
                section.unidentified = costs
              end
            end
            i = i + 1
          end
        end
      end
    elseif line:find("^The following files chosen for .*could not be found:$") then
      result.missing_header = line
      i = i + 2
      while i <= #lines and lines[i] ~= "" do
        result.missing[#result.missing + 1] = trim(lines[i])
        i = i + 1
      end
    elseif line:find("events annotated%s*$") then
      result.annotated = read_columns(line, events)
    end
    i = i + 1
  end
  return result
end

-- "key|count|ev=n,ev=n" for each call of a line, sorted, to compare as sets.
local function call_set(calls, events)
  local set = {}
  for _, call in ipairs(calls or {}) do
    local costs = {}
    for _, ev in ipairs(events) do
      costs[#costs + 1] = ev .. "=" .. tostring(call.costs[ev])
    end
    set[#set + 1] = call.key .. "|" .. call.count .. "|" .. table.concat(costs, ",")
  end
  table.sort(set)
  return set
end

local function source_lines(text)
  local lines = {}
  for line in text:gmatch("([^\n]*)\n") do
    lines[#lines + 1] = line
  end
  local last = text:match("([^\n]+)$")
  if last then
    lines[#lines + 1] = last
  end
  return lines
end

-- A read_file that serves a table of path -> text and records what was asked.
local function files_from(contents)
  local asked = {}
  return function(path)
    asked[#asked + 1] = path
    return contents[path]
  end, asked
end

local numbered = fixtures.numbered

local function range(a, b)
  local list = {}
  for n = a, b do
    list[#list + 1] = n
  end
  return list
end

---------------------------------------------------------------------------
-- Comparison with callgrind_annotate
---------------------------------------------------------------------------

describe("annotate.source compared with callgrind_annotate --auto=yes", function()
  if not vg.available() then
    pending("gcc, valgrind and callgrind_annotate are needed on PATH")
    return
  end

  -- configuration, the program's own files, and whether the threshold choice is compared
  -- (callgrind_annotate takes the summary: line as the total, the cache simulation's
  -- summary may exceed the sum of the costs)
  local cases = {
    { config = "callgrind_default", files = { "recursion.c" }, threshold = true },
    { config = "callgrind_inline", files = { "inline.c", "inline.h" }, threshold = true },
    { config = "callgrind_cache_branch", files = { "recursion.c" }, threshold = false },
  }

  for _, case in ipairs(cases) do
    describe(case.config, function()
      local prof, events, ca, ours

      local function setup()
        if prof then
          return
        end
        local path = vg.profile(case.config)[1]
        prof = assert(callgrind.load(path))
        events = prof:events()
        ca = parse_source(vg.annotate(path, { args = { "--auto=yes" } }).text, events)
        ours = parse_source(annotate.source(prof, { threshold = 100 }), events)
      end

      it("gives every line of the program's sources the same cost and the same calls", function()
        setup()
        for _, name in ipairs(case.files) do
          local file = vg.programs_dir .. "/" .. name
          local want, have = ca.files[file], ours.files[file]
          assert.is_not_nil(want, "callgrind_annotate did not annotate " .. file)
          assert.is_not_nil(have, "not annotated: " .. file)
          assert.are.equal("Auto", have.kind)
          local text = source_lines(assert(vg.read_file(file)))
          assert.are.same(want.shown, have.shown)
          assert.are.same(want.separators, have.separators)
          local costed = 0
          for _, n in ipairs(want.shown) do
            assert.are.same(want.lines[n].costs, have.lines[n].costs, name .. ":" .. n)
            assert.are.equal(trim(text[n]), have.lines[n].text, name .. ":" .. n)
            assert.are.same(call_set(want.calls[n], events), call_set(have.calls[n], events), name .. ":" .. n .. " calls")
            if want.lines[n].costs[events[1]] > 0 then
              costed = costed + 1
            end
          end
          assert.is_true(costed > 3, name .. " has costs")
          assert.are.same(want.bogus, have.bogus)
        end
      end)

      if case.config == "callgrind_inline" then
        it("annotates the inlined header with the code inlined into both callers", function()
          setup()
          local header = ours.files[vg.programs_dir .. "/inline.h"]
          local total = 0
          for _, line in pairs(header.lines) do
            total = total + line.costs.Ir
          end
          local main_part, checksum_part = 0, 0
          for fn in prof:functions() do
            for line in fn:lines() do
              if line.file == vg.programs_dir .. "/inline.h" then
                if fn.name == "main" then
                  main_part = main_part + line:cost("Ir")
                else
                  checksum_part = checksum_part + line:cost("Ir")
                end
              end
            end
          end
          assert.is_true(main_part > 0 and checksum_part > 0)
          assert.are.equal(main_part + checksum_part, total)
        end)
      end

      if case.config == "callgrind_default" then
        it("leaves out the calls made deeper in a recursion that starts on the same line", function()
          setup()
          local file = vg.programs_dir .. "/recursion.c"
          local costs = annotate.file_costs(prof, file)
          local fact = prof:find("fact", file)
          local call_line
          for call in fact:callees() do
            call_line = call.line
          end
          local calls = costs[call_line].calls
          assert.are.equal(1, #calls)
          assert.are.equal("fact'2", calls[1].callee.name)
          assert.are.equal(1, calls[1].count)
        end)
      end

      it("annotates the same files, misses the same files and annotates the same total", function()
        setup()
        local want, have = {}, {}
        for _, label in ipairs(ca.order) do
          want[#want + 1] = label
        end
        for _, label in ipairs(ours.order) do
          have[#have + 1] = label
        end
        table.sort(want)
        table.sort(have)
        assert.are.same(want, have)
        assert.are.same(ca.missing, ours.missing)
        assert.is_true(#ours.missing > 0)
        assert.are.same(ca.annotated, ours.annotated)
      end)

      if case.threshold then
        it("chooses the files callgrind_annotate chooses at its default threshold", function()
          setup()
          local path = vg.profile(case.config)[1]
          local ca99 = parse_source(vg.annotate(path, { args = { "--auto=yes", "--threshold=99" } }).text, events)
          local ours99 = parse_source(annotate.source(prof), events)
          assert.are.same(ca99.missing, ours99.missing)
          assert.is_true(#ours99.missing < #ours.missing)
          assert.are.same(ca99.annotated, ours99.annotated)
        end)
      end
    end)
  end
end)

---------------------------------------------------------------------------
-- Hand-written profiles
---------------------------------------------------------------------------

-- main and work in a.c, with code inlined from b.h; helper and leaf in b.h; recursion in
-- r.c: rec enters rec'2 on line 20, rec'2 recurses on the same line; start enters the
-- ping/pong cycle on line 50, where ping also calls pong; loop calls itself on line 40.
local PROFILE = [[
version: 1
positions: line
events: Ir Dr

ob=prog
fl=a.c
fn=main
1 2 1
2 3
cfn=work
calls=2 10
2 100 20
cfi=b.h
cfn=helper
calls=1 5
3 7 1
3 1
fi=b.h
5 4
cfn=leaf
calls=2 30
5 16 2
fe=a.c
4 1

fn=work
10 50 10
fi=b.h
5 5
cfn=leaf
calls=1 30
5 8 1
fe=a.c
11 20 4
cfi=b.h
cfn=helper
calls=3 5
11 30 6

fl=b.h
fn=helper
5 10 2
6 20 4
cfi=r.c
cfn=rec
calls=1 20
6 40

fn=leaf
30 8 1

fl=r.c
fn=rec
20 4
cfn=rec'2
calls=1 20
20 30
0 3

fn=rec'2
20 12
cfn=rec'2
calls=2 20
20 24

fn=loop
40 10
cfn=loop
calls=5 40
40 50

fn=start
50 1
cfn=ping
calls=1 50
50 30

fn=ping
50 2
cfn=pong
calls=1 60
50 20

fn=pong
60 2
cfn=ping
calls=1 50
60 18
]]

-- Self costs: a.c 1:2/1 2:3 3:1 4:1 10:50/10 11:20/4; b.h 5:4+5+10=19/2 6:20/4 30:8/1;
-- r.c 0:3 20:4+12=16 40:10 50:1+2=3 60:2. Total Ir 2+3+1+1+50+20 + 19+20+8 + 3+16+10+3+2 = 158,
-- Dr 1+10+4 + 2+4+1 = 22.

local function load(text)
  return assert(callgrind.parse(text, "hand"))
end

local function summarize(costs)
  -- file_costs() with the callee as "name" for comparison
  local out = {}
  for n, line in pairs(costs) do
    local calls = {}
    for i, call in ipairs(line.calls) do
      calls[i] = { callee = call.callee.name, count = call.count, inclusive = call.inclusive }
    end
    out[n] = { self = line.self, calls = calls }
  end
  return out
end

describe("annotate.file_costs", function()
  local prof = load(PROFILE)

  it("has the totals the hand-worked numbers add up to", function()
    assert.are.equal(158, prof:total("Ir"))
    assert.are.equal(22, prof:total("Dr"))
  end)

  it("gives each line of a file its self cost and its calls", function()
    assert.are.same({
      [1] = { self = { Ir = 2, Dr = 1 }, calls = {} },
      [2] = { self = { Ir = 3, Dr = 0 }, calls = { { callee = "work", count = 2, inclusive = { Ir = 100, Dr = 20 } } } },
      [3] = { self = { Ir = 1, Dr = 0 }, calls = { { callee = "helper", count = 1, inclusive = { Ir = 7, Dr = 1 } } } },
      [4] = { self = { Ir = 1, Dr = 0 }, calls = {} },
      [10] = { self = { Ir = 50, Dr = 10 }, calls = {} },
      [11] = { self = { Ir = 20, Dr = 4 }, calls = { { callee = "helper", count = 3, inclusive = { Ir = 30, Dr = 6 } } } },
    }, summarize(annotate.file_costs(prof, "a.c")))
  end)

  it("sums the functions that share a line, inlined code included, and their calls per callee", function()
    -- b.h:5 holds code of main and work (inlined) and of helper; main and work both call leaf there
    assert.are.same({
      [5] = { self = { Ir = 19, Dr = 2 }, calls = { { callee = "leaf", count = 3, inclusive = { Ir = 24, Dr = 3 } } } },
      [6] = { self = { Ir = 20, Dr = 4 }, calls = { { callee = "rec", count = 1, inclusive = { Ir = 40, Dr = 0 } } } },
      [30] = { self = { Ir = 8, Dr = 1 }, calls = {} },
    }, summarize(annotate.file_costs(prof, "b.h")))
  end)

  it("shows the call entering a recursion and leaves out the recursion below it on the same line", function()
    assert.are.same({
      [0] = { self = { Ir = 3 }, calls = {} },
      -- rec -> rec'2 shown; rec'2 -> rec'2 (2x, 24) is inside its 30
      [20] = { self = { Ir = 16 }, calls = { { callee = "rec'2", count = 1, inclusive = { Ir = 30 } } } },
      -- a line with only a recursive call shows it
      [40] = { self = { Ir = 10 }, calls = { { callee = "loop", count = 5, inclusive = { Ir = 50 } } } },
      -- start -> ping shown; ping -> pong (same cycle) is inside it
      [50] = { self = { Ir = 3 }, calls = { { callee = "ping", count = 1, inclusive = { Ir = 30 } } } },
      [60] = { self = { Ir = 2 }, calls = { { callee = "ping", count = 1, inclusive = { Ir = 18 } } } },
    }, summarize(annotate.file_costs(prof, "r.c", { "Ir" })))
  end)

  it("gives the callee as the function value and accepts event indexes", function()
    local costs = annotate.file_costs(prof, "a.c", { 2 })
    assert.are.equal(prof:find("work"), costs[2].calls[1].callee)
    assert.are.same({ Dr = 20 }, costs[2].calls[1].inclusive)
    assert.are.same({ Dr = 10 }, costs[10].self)
  end)

  it("gives an empty table for a file without costs, and raises on unknown events", function()
    assert.are.same({}, annotate.file_costs(prof, "nowhere.c"))
    assert.has_error(function()
      annotate.file_costs(prof, "a.c", { "Bogus" })
    end)
  end)
end)

describe("annotate.costs_by_file", function()
  local prof = load(PROFILE)

  local function names(by_file)
    local list = {}
    for file in pairs(by_file) do
      list[#list + 1] = file
    end
    table.sort(list)
    return list
  end

  it("gives every file of the profile what file_costs gives it", function()
    local by_file = annotate.costs_by_file(prof)
    assert.are.same({ "a.c", "b.h", "r.c" }, names(by_file))
    for _, file in ipairs(names(by_file)) do
      assert.are.same(summarize(annotate.file_costs(prof, file)), summarize(by_file[file]))
    end
  end)

  it("has the hand-worked numbers", function()
    local by_file = annotate.costs_by_file(prof, { "Ir", "Dr" })
    -- b.h:5: main 4 + work 5 + helper 10 Ir, helper's 2 Dr; leaf called from main (2x) and work (1x)
    assert.are.same({ self = { Ir = 19, Dr = 2 }, calls = { { callee = "leaf", count = 3, inclusive = { Ir = 24, Dr = 3 } } } },
      summarize(by_file["b.h"])[5])
    assert.are.same({ self = { Ir = 50, Dr = 10 }, calls = {} }, summarize(by_file["a.c"])[10])
    assert.are.same({ Ir = 3, Dr = 0 }, by_file["r.c"][0].self)
    assert.are.same({ { callee = "rec'2", count = 1, inclusive = { Ir = 30, Dr = 0 } } }, summarize(by_file["r.c"])[20].calls)
    -- every line's self cost adds up to the totals
    local sums = { Ir = 0, Dr = 0 }
    for _, lines in pairs(by_file) do
      for _, line in pairs(lines) do
        sums.Ir, sums.Dr = sums.Ir + line.self.Ir, sums.Dr + line.self.Dr
      end
    end
    assert.are.same({ Ir = 158, Dr = 22 }, sums)
  end)

  it("keeps only the events asked for, by name or index", function()
    local by_file = annotate.costs_by_file(prof, { 2 })
    assert.are.same({ Dr = 10 }, by_file["a.c"][10].self)
    assert.are.same({ Dr = 20 }, by_file["a.c"][2].calls[1].inclusive)
    assert.has_error(function()
      annotate.costs_by_file(prof, { "Bogus" })
    end)
  end)

  it("agrees with file_costs on the bundled sample", function()
    local sample = assert(callgrind.load("examples/data/sample.callgrind.gz"))
    local by_file = annotate.costs_by_file(sample, { "Ir" })
    local total = 0
    for _, lines in pairs(by_file) do
      for _, line in pairs(lines) do
        total = total + line.self.Ir
      end
    end
    assert.are.equal(4976287, total)
    for _, file in ipairs({ "examples/data/sample.c", "./malloc/./malloc/malloc.c", "???" }) do
      assert.are.same(annotate.file_costs(sample, file, { "Ir" }), by_file[file])
    end
    -- callgrind_annotate: sample.c line 20 costs 642,646; line 27 180,832 and calls 685,824 + 695
    local source = by_file["examples/data/sample.c"]
    assert.are.equal(642646, source[20].self.Ir)
    assert.are.equal(180832, source[27].self.Ir)
    assert.are.equal(685824, source[27].calls[1].inclusive.Ir)
    assert.are.equal(695, source[27].calls[2].inclusive.Ir)
    sample:close()
  end)
end)

describe("annotate.line_totals", function()
  local prof = load(PROFILE)

  -- What line_totals must give, worked out from costs_by_file.
  local function expected(by_file, event)
    local self, calls = {}, {}
    for file, lines in pairs(by_file) do
      self[file] = {}
      for n, line in pairs(lines) do
        self[file][n] = line.self[event]
        if #line.calls > 0 then
          local sum = 0
          for _, call in ipairs(line.calls) do sum = sum + call.inclusive[event] end
          calls[file] = calls[file] or {}
          calls[file][n] = sum
        end
      end
    end
    return self, calls
  end

  it("sums each line's self cost and its calls' inclusive cost", function()
    local self, calls = annotate.line_totals(prof, "Ir")
    -- b.h:5: main 4 + work 5 + helper 10; its calls to leaf cost 24 inclusive
    assert.are.equal(19, self["b.h"][5])
    assert.are.equal(24, calls["b.h"][5])
    -- r.c:20 enters the recursion once: rec'2's 30, the recursive calls below left out
    assert.are.equal(30, calls["r.c"][20])
    local want_self, want_calls = expected(annotate.costs_by_file(prof, { "Dr" }), "Dr")
    local got_self, got_calls = annotate.line_totals(prof, 2)
    assert.are.same(want_self, got_self)
    assert.are.same(want_calls, got_calls)
  end)

  it("agrees with costs_by_file and callgrind_annotate on the bundled sample", function()
    local sample = assert(callgrind.load("examples/data/sample.callgrind.gz"))
    local self, calls = annotate.line_totals(sample, "Ir")
    local want_self, want_calls = expected(annotate.costs_by_file(sample, { "Ir" }), "Ir")
    assert.are.same(want_self, self)
    assert.are.same(want_calls, calls)
    -- callgrind_annotate: sample.c line 27 costs 180,832 and calls 685,824 + 695
    assert.are.equal(180832, self["examples/data/sample.c"][27])
    assert.are.equal(686519, calls["examples/data/sample.c"][27])
    sample:close()
  end)
end)


describe("one file's lines, from the profile's file index", function()
  local prof = load(PROFILE)

  -- m.c's main runs code inlined from i.h (through f) and makes its only call from only.h,
  -- where no line record lies; 0x10 has no file at all.
  local INDEXED = [[
version: 1
positions: line
events: Ir Dr

fl=m.c
fn=main
1 5 1
fi=only.h
cfn=f
calls=2 10
7 30 3
fe=m.c
2 1

fn=f
10 15 2
fi=i.h
11 4
fe=m.c
12 11 1

fn=0x10
fl=
3 9
]]

  it("lists every file with line records or call sites, once, by name", function()
    assert.are.same({ "a.c", "b.h", "r.c" }, prof:source_files())
    local indexed = load(INDEXED)
    assert.are.same({ "", "i.h", "m.c", "only.h" }, indexed:source_files())
  end)

  it("gives one file's sums, worked out by hand", function()
    -- b.h: line 5 main 4 + work 5 + helper 10, calls to leaf 16 + 8; line 6 helper 20 and its
    -- call to rec 40; line 30 leaf 8
    local self, calls = annotate.line_totals(prof, "Ir", "b.h")
    assert.are.same({ ["b.h"] = { [5] = 19, [6] = 20, [30] = 8 } }, self)
    assert.are.same({ ["b.h"] = { [5] = 24, [6] = 40 } }, calls)
    assert.are.same({ ["b.h"] = { [5] = 2, [6] = 4, [30] = 1 } }, prof:line_costs("Dr", "b.h"))

    local indexed = load(INDEXED)
    -- only.h: no line record, one call line
    self, calls = annotate.line_totals(indexed, "Ir", "only.h")
    assert.are.same({}, self)
    assert.are.same({ ["only.h"] = { [7] = 30 } }, calls)
    assert.are.same({}, indexed:line_costs("Ir", "only.h"))
    assert.are.same({ [7] = { self = { Ir = 0 }, calls = { { callee = "f", count = 2, inclusive = { Ir = 30 } } } } },
      summarize(annotate.file_costs(indexed, "only.h", { "Ir" })))
    -- i.h: f's inlined line only; m.c: main's and f's own lines
    self, calls = annotate.line_totals(indexed, "Dr", "i.h")
    assert.are.same({ ["i.h"] = { [11] = 0 } }, self)
    assert.are.same({}, calls)
    assert.are.same({ ["m.c"] = { [1] = 5, [2] = 1, [10] = 15, [12] = 11 } }, indexed:line_costs("Ir", "m.c"))
    assert.are.same({ [""] = { [3] = 9 } }, indexed:line_costs("Ir", ""))
    -- a file the profile does not name
    self, calls = annotate.line_totals(indexed, "Ir", "nowhere.c")
    assert.are.same({}, self)
    assert.are.same({}, calls)
    assert.are.same({}, indexed:line_costs("Ir", "nowhere.c"))
    assert.has_error(function()
      annotate.line_totals(indexed, "Ir", 3)
    end)
  end)

  it("reads a function once for several files, a file named twice once", function()
    local core = require "callgrind.core"
    -- main and work have code in both a.c and b.h
    local both = core.file_lines(prof, { "b.h", "a.c", "b.h" }, { "Ir" })
    assert.are.same(core.file_lines(prof, { "a.c" }, { "Ir" })["a.c"], both["a.c"])
    assert.are.same(core.file_lines(prof, { "b.h" }, { "Ir" })["b.h"], both["b.h"])
    assert.are.equal(19, both["b.h"][5].self.Ir)
    assert.are.equal(3, both["a.c"][2].self.Ir)
  end)

  -- Every profile of spec/data and examples/data: each file's forms are the whole-profile forms
  -- restricted to that file.
  local function restricted(by_file, file)
    return by_file[file] and { [file] = by_file[file] } or {}
  end

  local function check_profile(p, name)
    local files = p:source_files()
    local events = p:events()
    local whole_costs = annotate.costs_by_file(p)
    local named = {}
    for _, ev in ipairs({ events[1], events[#events] }) do
      local whole_self, whole_calls = annotate.line_totals(p, ev)
      local whole_lines = p:line_costs(ev)
      for file in pairs(whole_self) do named[file] = true end
      for file in pairs(whole_calls) do named[file] = true end
      for _, file in ipairs(files) do
        local self, calls = annotate.line_totals(p, ev, file)
        assert.are.same(restricted(whole_self, file), self, name .. ": " .. file)
        assert.are.same(restricted(whole_calls, file), calls, name .. ": " .. file)
        assert.are.same(restricted(whole_lines, file), p:line_costs(ev, file), name .. ": " .. file)
      end
    end
    local listed = {}
    for _, file in ipairs(files) do listed[file] = true end
    assert.are.same(named, listed, name)
    for _, file in ipairs(files) do
      assert.are.same(whole_costs[file], annotate.file_costs(p, file), name .. ": " .. file)
    end
    return #files
  end

  it("equals the whole-profile forms restricted to each file, on every profile of the data", function()
    local paths = fixtures.testdata_profiles("")
    paths[#paths + 1] = "examples/data/sample.callgrind.gz"
    local checked, files = 0, 0
    for _, path in ipairs(paths) do
      local p = callgrind.load(path, { strict = false })
      if p and #p:events() > 0 then
        files = files + check_profile(p, path)
        checked = checked + 1
        p:close()
      end
    end
    assert.are.equal(#paths, checked)
    assert.is_true(files >= 1000, files .. " files checked")
  end)
end)
describe("annotate.source", function()
  local prof = load(PROFILE)
  local contents = {
    ["a.c"] = numbered("a", 12),
    ["b.h"] = numbered("b", 30),
    ["r.c"] = numbered("r", 60),
  }

  it("prints each file with its costs, calls and the events annotated", function()
    local reader = files_from(contents)
    local text = annotate.source(prof, { threshold = 100, read_file = reader })
    local parsed = parse_source(text, { "Ir", "Dr" })
    assert.are.same({ "a.c", "b.h", "r.c" }, parsed.order)
    local a = parsed.files["a.c"]
    assert.are.same(range(1, 12), a.shown)
    assert.are.same({}, a.separators)
    assert.are.same({ Ir = 50, Dr = 10 }, a.lines[10].costs)
    assert.are.equal("a 10", a.lines[10].text)
    assert.are.same({ Ir = 0, Dr = 0 }, a.lines[5].costs)
    assert.are.same({ "b.h:helper|3|Ir=30,Dr=6" }, call_set(a.calls[11], { "Ir", "Dr" }))
    assert.are.same({ "a.c:work|2|Ir=100,Dr=20" }, call_set(a.calls[2], { "Ir", "Dr" }))
    local b = parsed.files["b.h"]
    assert.are.same({ "b.h:leaf|3|Ir=24,Dr=3" }, call_set(b.calls[5], { "Ir", "Dr" }))
    assert.are.same({ Ir = 8, Dr = 1 }, b.lines[30].costs)
    local r = parsed.files["r.c"]
    assert.are.same({ "r.c:rec'2|1|Ir=30,Dr=0" }, call_set(r.calls[20], { "Ir", "Dr" }))
    -- line 0: costs of code without line information, after the source
    assert.are.same({ Ir = 3, Dr = 0 }, r.unidentified)
    assert.matches("<counts for unidentified lines in r.c>", text, 1, true)
    -- r.c, context 8: 12..28 around 20; 32..68 around 40, 50 and 60, cut at the 60th line
    local shown = range(12, 28)
    for n = 32, 60 do
      shown[#shown + 1] = n
    end
    assert.are.same(shown, r.shown)
    assert.are.same({ 12, 28, 32 }, r.separators)
    -- everything but line 0 is next to its source line
    assert.are.same({ Ir = 155, Dr = 22 }, parsed.annotated)
    assert.matches("155 (98.10%)", text, 1, true)
    assert.is_nil(parsed.missing_header)
  end)

  it("writes separators where lines beyond the context are skipped", function()
    local long = load("events: Ir\nfl=long.c\nfn=f\n3 1\n40 2\n44 3\n100 4\n")
    local reader = files_from({ ["long.c"] = numbered("x", 60) })
    local text = annotate.source(long, { context = 2, read_file = reader })
    local parsed = parse_source(text, { "Ir" })
    local file = parsed.files["long.c"]
    -- 1..5 around line 3; 38..46 around 40 and 44 (closer than twice the context)
    local shown = range(1, 5)
    for n = 38, 46 do
      shown[#shown + 1] = n
    end
    assert.are.same(shown, file.shown)
    -- as callgrind_annotate reads the file: the range around line 100 starts past its end,
    -- which ends the annotation after the separator
    assert.are.same({ 5, 38, 46, 98 }, file.separators)
    assert.matches("\n%-%- line 38 %-+\n", text)
    -- line 100 lies past the 60 lines of the file: listed at the end, not annotated
    assert.are.same({ [100] = { Ir = 4 } }, file.bogus)
    assert.matches("Information recorded about lines past the end of 'long.c'", text, 1, true)
    assert.are.same({ Ir = 6 }, parsed.annotated)

    local tight = parse_source(annotate.source(long, { context = 0, read_file = reader }), { "Ir" })
    assert.are.same({ 3, 40, 44 }, tight.files["long.c"].shown)
    assert.are.same({ 3, 3, 40, 40, 44, 44, 100 }, tight.files["long.c"].separators)

    local wide = parse_source(annotate.source(long, { context = 40, read_file = reader }), { "Ir" })
    assert.are.same(range(1, 60), wide.files["long.c"].shown)
    assert.are.same({}, wide.files["long.c"].separators)
    -- a context past any line number: one range, its end at the end of the file
    for _, huge in ipairs { 2 ^ 62, 1e30 } do
      local all = parse_source(annotate.source(long, { context = huge, read_file = reader }), { "Ir" })
      assert.are.same(range(1, 60), all.files["long.c"].shown)
      assert.are.same({}, all.files["long.c"].separators)
    end
  end)

  it("prints a callee of one name in two objects once, and reads text with CRLF line ends", function()
    local two = load [[
events: Ir
ob=prog
fl=m.c
fn=main
2 1
cob=liba.so
cfi=lib.c
cfn=f
calls=1 0
2 10
cob=libb.so
cfi=lib.c
cfn=f
calls=2 0
2 20
ob=liba.so
fl=lib.c
fn=f
1 10
ob=libb.so
fl=lib.c
fn=f
1 20
]]
    local reader = files_from({ ["m.c"] = "line one\r\nline two\r\nline three\r\n" })
    local text = annotate.source(two, { files = { "m.c" }, read_file = reader })
    local parsed = parse_source(text, { "Ir" })
    local m = parsed.files["m.c"]
    assert.are.same({ 1, 2, 3 }, m.shown)
    assert.are.equal("line two", m.lines[2].text)
    -- callgrind_annotate's call key names no object: the two callees are one line, summed
    assert.are.same({ "lib.c:f|3|Ir=30" }, call_set(m.calls[2], { "Ir" }))
    assert.is_nil(text:find("\r", 1, true))
    assert.matches("\n1 %( 3%.23%%%)  line two\n30 %(96%.77%%%)  => lib%.c:f %(3x%)\n", text, 1)
    assert.are.same({ Ir = 1 }, parsed.annotated)
  end)

  it("shows the events asked for, with or without percentages", function()
    local reader = files_from(contents)
    local text = annotate.source(prof, { files = { "a.c" }, show = { "Dr" }, context = 0, read_file = reader })
    local parsed = parse_source(text, { "Dr" })
    local a = parsed.files["a.c"]
    -- lines 2, 3 and 4 have no Dr but line records (Ir): shown with '.', as callgrind_annotate
    -- shows every line it has costs for
    assert.are.same({ 1, 2, 3, 4, 10, 11 }, a.shown)
    assert.are.same({ Dr = 10 }, a.lines[10].costs)
    assert.matches("10 (45.45%)", text, 1, true)
    -- the heading pads the name to its column, as callgrind_annotate's does
    assert.matches("\nDr +\n", text)
    assert.is_nil(text:find("Ir", 1, true))

    local plain = annotate.source(prof, { files = { "a.c" }, percentages = false, read_file = reader })
    assert.is_nil(plain:find("%", 1, true))
    assert.are.same({ Ir = 50, Dr = 10 }, parse_source(plain, { "Ir", "Dr" }).files["a.c"].lines[10].costs)
  end)

  it("annotates the files named, as user-annotated, and only those", function()
    local reader = files_from(contents)
    local text = annotate.source(prof, { files = { "b.h", "missing.c" }, read_file = reader })
    local parsed = parse_source(text, { "Ir", "Dr" })
    assert.are.same({ "b.h" }, parsed.order)
    assert.are.equal("User", parsed.files["b.h"].kind)
    assert.are.same({ "missing.c" }, parsed.missing)
    assert.are.equal("The following files chosen for annotation could not be found:", parsed.missing_header)
    -- with auto as well, the threshold's files follow
    local both = parse_source(annotate.source(prof, { files = { "b.h" }, auto = true, threshold = 100, read_file = reader }),
      { "Ir", "Dr" })
    assert.are.same({ "b.h", "a.c", "r.c" }, both.order)
    assert.are.equal("Auto", both.files["a.c"].kind)
  end)

  it("says so when a file named has no costs", function()
    local reader = files_from({ ["quiet.c"] = "int x;\n" })
    local text = annotate.source(prof, { files = { "quiet.c" }, read_file = reader })
    assert.matches("No information has been collected for quiet.c", text, 1, true)
    assert.is_nil(text:find("events annotated", 1, true))
  end)

  it("lists the chosen files it cannot read, sorted", function()
    local text = annotate.source(prof, { threshold = 100, read_file = function() return nil end })
    local parsed = parse_source(text, { "Ir", "Dr" })
    assert.are.same({}, parsed.order)
    assert.are.same({ "a.c", "b.h", "r.c" }, parsed.missing)
    assert.are.equal("The following files chosen for auto-annotation could not be found:", parsed.missing_header)
    assert.is_nil(parsed.annotated)
  end)

  it("chooses files by the threshold on the first sort event", function()
    -- f in one.c costs 90, g in two.c 9, h in three.c 1 (and 50 Dr)
    local shares = load("events: Ir Dr\nfl=one.c\nfn=f\n1 90\nfl=two.c\nfn=g\n1 9\nfl=three.c\nfn=h\n1 1 50\n")
    local function missing(opts)
      opts.read_file = function() return nil end
      return parse_source(annotate.source(shares, opts), { "Ir", "Dr" }).missing
    end
    assert.are.same({ "one.c", "two.c" }, missing({}))
    assert.are.same({ "one.c" }, missing({ threshold = 90 }))
    assert.are.same({ "one.c", "three.c", "two.c" }, missing({ threshold = 100 }))
    assert.are.same({ "three.c" }, missing({ sort = { "Dr" }, threshold = 50 }))
  end)

  it("finds files as written, then in the include directories", function()
    local reader, asked = files_from({ ["/inc2/src/x.c"] = "a\nb\n" })
    local xprof = load("events: Ir\nfl=src/x.c\nfn=f\n2 7\n")
    local text = annotate.source(xprof, { include = { "/inc1", "/inc2/" }, read_file = reader })
    assert.are.same({ "src/x.c", "/inc1/src/x.c", "/inc2/src/x.c" }, asked)
    local parsed = parse_source(text, { "Ir" })
    assert.are.same({ "/inc2/ + src/x.c" }, parsed.order)
    assert.are.same({ Ir = 7 }, parsed.files["/inc2/ + src/x.c"].lines[2].costs)
    assert.are.equal("b", parsed.files["/inc2/ + src/x.c"].lines[2].text)
  end)

  it("reads the files from disk by default, relative to the current directory or an include directory", function()
    -- the specs run from the repository's root
    local relative = load("events: Ir\nfl=spec/programs/inline.h\nfn=mix\n8 5\n")
    local parsed = parse_source(annotate.source(relative), { "Ir" })
    local file = parsed.files["spec/programs/inline.h"]
    assert.is_not_nil(file)
    assert.are.equal("x ^= x >> 7;", file.lines[8].text)

    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p '" .. dir .. "/src'"))
    local fh = assert(io.open(dir .. "/src/inc.c", "wb"))
    fh:write("one\ntwo\nthree\n")
    fh:close()
    local inc = load("events: Ir\nfl=inc.c\nfn=f\n3 9\n")
    local found = parse_source(annotate.source(inc, { include = { dir .. "/nothing", dir .. "/src" } }), { "Ir" })
    local section = found.files[dir .. "/src/ + inc.c"]
    assert.is_not_nil(section)
    assert.are.same({ Ir = 9 }, section.lines[3].costs)
    assert.are.equal("three", section.lines[3].text)
    local lost = parse_source(annotate.source(inc), { "Ir" })
    assert.are.same({ "inc.c" }, lost.missing)
    os.remove(dir .. "/src/inc.c")
    os.remove(dir .. "/src")
    os.remove(dir)
  end)

  it("leaves unknown files out of the automatic choice", function()
    local unknown = load("events: Ir\nfl=???\nfn=0x1234\n0 50\nfl=k.c\nfn=f\n1 50\n")
    local parsed = parse_source(annotate.source(unknown, { read_file = function() return nil end }), { "Ir" })
    assert.are.same({ "k.c" }, parsed.missing)
  end)

  it("rejects a negative context and unknown events", function()
    assert.has_error(function()
      annotate.source(prof, { context = -1 })
    end)
    assert.has_error(function()
      annotate.source(prof, { show = { "Bogus" } })
    end)
  end)
end)
describe("core.annotated_source", function()
  local core = require "callgrind.core"
  local prof = load(PROFILE)
  local a_text = numbered("a", 12)

  it("gives each file's lines as annotate.source prints them, false without lines, and the sums", function()
    local texts, sums = core.annotated_source(prof, { "a.c", "none.c" }, { a_text, "x\n" }, { "Ir", "Dr" }, true, 8)
    assert.equal(2, #texts)
    assert.is_false(texts[2])
    local whole = annotate.source(prof, { files = { "a.c" }, read_file = files_from({ ["a.c"] = a_text }) })
    assert.truthy(whole:find(texts[1], 1, true))
    local parsed = parse_source(whole, { "Ir", "Dr" })
    assert.same({ parsed.annotated.Ir, parsed.annotated.Dr }, sums)
    assert.same({ {}, { 0 } }, { core.annotated_source(prof, {}, {}, { "Ir" }, false, 0) })
  end)

  it("refuses bad arguments with the argument's name", function()
    local function fails(pattern, ...)
      local args = { ... }
      local ok, err = pcall(core.annotated_source, prof, (table.unpack or unpack)(args, 1, 5))
      assert.is_false(ok)
      assert.matches(pattern, err)
    end
    fails("a text for each file expected", { "a.c" }, {}, { "Ir" }, true, 8)
    fails("a list of strings expected", { 1 }, { "x" }, { "Ir" }, true, 8)
    fails("a list of events expected", { "a.c" }, { a_text }, {}, true, 8)
    fails("unknown event 'Bc'", { "a.c" }, { a_text }, { "Bc" }, true, 8)
    fails("a number >= 0 expected", { "a.c" }, { a_text }, { "Ir" }, true, -1)
    fails("table expected", "a.c", { a_text }, { "Ir" }, true, 8)
  end)
end)
