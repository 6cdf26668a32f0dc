-- The Neovim plugin (plugin/callgrind.lua, lua/callgrind/nvim/), driven in a headless Neovim by
-- the scenarios of spec/nvim/ (through helpers.nvim): what they read back (virtual text, signs,
-- quickfix lists, notifications) is compared with numbers worked out by hand and with
-- callgrind.annotate.
local annotate = require "callgrind.annotate"
local callgrind = require "callgrind"
local format = require "callgrind.format"
local fixtures = require "helpers.fixtures"
local nvim = require "helpers.nvim"
local run = require "helpers.run"

local quote = run.quote
local execute, make_dir, scenario, once = nvim.execute, nvim.make_dir, nvim.scenario, nvim.once
local write = fixtures.write
local REPO = nvim.REPO

-- vim.log.levels.ERROR
local ERROR_LEVEL = 4

if nvim.skip("the Neovim plugin") then
  return
end

-- Virtual text of a buffer without the highlight groups: { [line] = text }.
local function texts(marks)
  local out = {}
  for line, mark in pairs(marks) do
    out[line] = mark.text
  end
  return out
end

---------------------------------------------------------------------------
-- A hand-written profile
---------------------------------------------------------------------------

-- main.c (next to the profile) calls compute in util.c (an absolute name) 3 times on line 4
-- and helper in lib/deep.c once on line 5; compute calls helper 4 times on line 12 and has
-- code of inc/fast.h (in a source directory) inlined on line 7; fast_op in inc/fast.h spans
-- lines 5 to 9; 0x1234 has no file. main.c has 5 lines: its line 6 is stale.
--
-- Self costs (Ir Dr): main.c 3: 5 1, 4: 2 0, 5: 1 0, 6: 2 1; util.c 10: 50 5, 11: 400 20,
-- 12: 30 0; fast.h 5: 3, 7: 40, 9: 2; deep.c 20: 60 10, 21: 40 0; ???: 9365.
-- Totals: Ir 10 + 520 + 100 + 5 + 9365 = 10000; Dr 2 + 25 + 10 = 37; Sum = Ir + Dr = 10037.
-- Calls: main.c:4 compute 600 33, main.c:5 helper 20 2, util.c:12 helper 80 8.
local PROFILE = [[
version: 1
positions: line
events: Ir Dr
event: Sum = Ir + Dr

fl=main.c
fn=main
3 5 1
4 2
cfl=@T@/abs/util.c
cfn=compute
calls=3 10
4 600 33
5 1
cfl=lib/deep.c
cfn=helper
calls=1 20
5 20 2
6 2 1

fl=@T@/abs/util.c
fn=compute
10 50 5
11 @UTIL11@ 20
12 30
cfl=lib/deep.c
cfn=helper
calls=4 20
12 80 8
fi=inc/fast.h
7 40

fl=lib/deep.c
fn=helper
20 60 10
21 40

fl=inc/fast.h
fn=fast_op
5 3
9 2

fl=???
fn=0x1234
0 9365
]]

local numbered = fixtures.numbered

local function profile_text(dir, util_line_11, main_calls_compute)
  local text = PROFILE:gsub("@T@", dir):gsub("@UTIL11@", util_line_11)
  if main_calls_compute then
    text = text:gsub("\n4 600 33\n", "\n4 " .. main_calls_compute .. " 33\n")
  end
  return text
end

local function hand_files()
  local dir = make_dir()
  for _, sub in ipairs({ "prof", "abs", "tree/lib", "include/inc", "work" }) do
    assert(execute("mkdir -p " .. quote(dir .. "/" .. sub)))
  end
  assert(execute("ln -s " .. quote(dir .. "/abs") .. " " .. quote(dir .. "/link")))
  write(dir .. "/prof/hand.out", profile_text(dir, 400))
  -- the rewrites the scenario moves over hand.out
  write(dir .. "/prof/hand2.next", profile_text(dir, 800, 1000))
  write(dir .. "/prof/hand3.next", profile_text(dir, 1234567))
  write(dir .. "/prof/broken.next", "events: Ir\nfl=a.c\nfn=f\n1 x\n")
  write(dir .. "/prof/broken.out", "events: Ir\nfl=a.c\nfn=f\n1 x\n")
  write(dir .. "/prof/main.c", numbered("main", 5))
  write(dir .. "/abs/util.c", numbered("util", 14))
  write(dir .. "/tree/lib/deep.c", numbered("deep", 22))
  write(dir .. "/include/inc/fast.h", numbered("fast", 10))
  write(dir .. "/work/other.c", numbered("other", 30))
  return dir
end

describe("the Neovim plugin on a hand-written profile", function()
  local dir
  local findings = once(function()
    dir = hand_files()
    return scenario("hand.lua", dir, dir .. "/work")
  end)

  teardown(function()
    if dir then
      execute("rm -rf " .. quote(dir))
    end
  end)

  it("checks its numbers against the module", function()
    findings()
    local prof = assert(callgrind.parse(profile_text(dir, 400), "hand"))
    assert.are.equal(10000, prof:total("Ir"))
    assert.are.equal(37, prof:total("Dr"))
    assert.are.equal(10037, prof:total("Sum"))
  end)

  it("defines the commands at startup and loads the plugin's code when one runs", function()
    local f = findings()
    assert.are.same({ commands = true, module = false, core = false }, f.loaded_by_plugin_file)
    assert.are.equal(1, #f.reload_without_profile)
    assert.are.equal(0, f.sourced_again) -- vim.g.loaded_callgrind
  end)

  it("raises on mistakes in calls to its Lua functions", function()
    local errors = findings().api_errors
    assert.matches("option 'display' must be", errors.display, 1, true)
    assert.matches("unknown option 'colour'", errors.unknown_option, 1, true)
    assert.matches("set_format expects \"absolute\" or \"percent\", got decimal", errors.set_format, 1, true)
    assert.matches("set_event expects an event name, got number", errors.set_event, 1, true)
    assert.matches("top expects a count >= 1, got 0", errors.top, 1, true)
    assert.matches("render expects a buffer number, got main.c", errors.render, 1, true)
    assert.matches("load expects a file name, got 42", errors.load, 1, true)
    assert.matches("option 'sign_texts' must be a list of four texts of one or two cells", errors.sign_texts, 1, true)
    assert.matches("one or two cells, got 'abc'", errors.sign_width, 1, true)
  end)

  it("loads through the commands the plugin file defines", function()
    local f = findings()
    assert.is_true(f.commands_before_load)
    assert.are.equal(1, f.state.generation)
    assert.are.equal(dir .. "/prof/hand.out", f.state.path)
    assert.are.equal("Ir", f.state.event)
    assert.are.equal("absolute", f.state.format)
    assert.are.equal("both", f.state.display)
    -- main.c, util.c, deep.c and fast.h; not other.c
    assert.are.equal(4, f.annotated)
  end)

  it("sums a buffer's file when the buffer is drawn, for its event only", function()
    local f = findings()
    -- only main.c was open when the profile loaded
    assert.are.same({ ["Ir main.c"] = true }, f.summed_after_load)
    local opened = { ["Ir main.c"] = true, ["Ir " .. dir .. "/abs/util.c"] = true,
      ["Ir lib/deep.c"] = true, ["Ir inc/fast.h"] = true }
    assert.are.same(opened, f.summed_after_open)
    -- another event: every annotated buffer drawn again, each asking for its own file
    local both = {}
    for key in pairs(opened) do
      both[key] = true
      both["Dr" .. key:sub(3)] = true
    end
    assert.are.same(both, f.summed_after_event)
  end)

  it("draws self costs and the inclusive cost of calls, resolving every kind of file name", function()
    local marks = findings().absolute.marks
    -- next to the profile; line 6 lies past the end of the 5-line file
    assert.are.same({ [3] = "Ir 5", [4] = "Ir 2 ⇒ 600 incl", [5] = "Ir 1 ⇒ 20 incl" }, texts(marks.main))
    -- an absolute name, the buffer opened through a symbolic link
    assert.are.same({ [10] = "Ir 50", [11] = "Ir 400", [12] = "Ir 30 ⇒ 80 incl" }, texts(marks.util))
    -- by the ending of the path
    assert.are.same({ [20] = "Ir 60", [21] = "Ir 40" }, texts(marks.deep))
    -- in a source directory; line 7 is compute's inlined code
    assert.are.same({ [5] = "Ir 3", [7] = "Ir 40", [9] = "Ir 2" }, texts(marks.fast))
    assert.are.same({}, marks.other)
  end)

  it("highlights hot lines (1% of the total by default) and the call costs", function()
    local marks = findings().absolute.marks
    assert.are.equal("CallgrindHot", marks.util[11].groups) -- 400 of 10000: 4%
    assert.are.equal("CallgrindCost", marks.util[10].groups) -- 0.5%
    assert.are.equal("CallgrindCost,CallgrindCall", marks.main[4].groups)
    assert.are.equal("eol", marks.main[4].pos)
  end)

  it("places a sign by the share of the total on lines with self cost", function()
    local f = findings()
    local signs = f.absolute.signs
    -- levels from 0.1%, 1% and 10%: 5/10000 = 0.05% level 1, 50 = 0.5% level 2, 400 = 4% level 3
    assert.are.same({ [3] = "CallgrindHeat1", [4] = "CallgrindHeat1", [5] = "CallgrindHeat1" }, signs.main)
    assert.are.same({ [10] = "CallgrindHeat2", [11] = "CallgrindHeat3", [12] = "CallgrindHeat2" }, signs.util)
    assert.are.same({ [20] = "CallgrindHeat2", [21] = "CallgrindHeat2" }, signs.deep)
    assert.are.same({ [5] = "CallgrindHeat1", [7] = "CallgrindHeat2", [9] = "CallgrindHeat1" }, signs.fast)
    assert.are.same({}, signs.other)
    -- one extmark per line holds both the text and the sign; nothing of the legacy sign API
    assert.are.same({ [10] = "▄", [11] = "▆", [12] = "▄" }, f.sign_texts)
    assert.are.equal(0, f.drawn_legacy_signs)
    -- option sign_texts
    assert.are.same({ [10] = "2", [11] = "3", [12] = "2" }, f.own_sign_texts)
  end)

  it("shows percentages of the event total, toggled by :CallgrindFormat", function()
    local f = findings()
    assert.are.equal("percent", f.percent_format)
    assert.are.same({ [3] = "Ir 0.05%", [4] = "Ir 0.02% ⇒ 6.00% incl", [5] = "Ir 0.01% ⇒ 0.20% incl" },
      texts(f.percent.marks.main))
    assert.are.same({ [10] = "Ir 0.50%", [11] = "Ir 4.00%", [12] = "Ir 0.30% ⇒ 0.80% incl" },
      texts(f.percent.marks.util))
    assert.are.equal(1, #f.bad_format)
    assert.are.equal(ERROR_LEVEL, f.bad_format[1].level)
  end)

  it("switches events, derived ones included, and refuses unknown ones", function()
    local f = findings()
    -- Dr: lines without Dr but with calls keep their call cost; 20 of 37 is 54.05%, level 4
    assert.are.same({ [3] = "Dr 1", [4] = "Dr 0 ⇒ 33 incl", [5] = "Dr 0 ⇒ 2 incl" }, texts(f.dr.marks.main))
    assert.are.same({ [10] = "Dr 5", [11] = "Dr 20", [12] = "Dr 0 ⇒ 8 incl" }, texts(f.dr.marks.util))
    assert.are.same({ [20] = "Dr 10" }, texts(f.dr.marks.deep))
    assert.are.same({}, f.dr.marks.fast)
    assert.are.equal("CallgrindHot", f.dr.marks.main[3].groups) -- 1 of 37: 2.70%
    assert.are.same({ [3] = "CallgrindHeat3" }, f.dr.signs.main)
    assert.are.same({ [10] = "CallgrindHeat4", [11] = "CallgrindHeat4" }, f.dr.signs.util)
    -- Sum = Ir + Dr
    assert.are.same({ [10] = "Sum 55", [11] = "Sum 420", [12] = "Sum 30 ⇒ 88 incl" }, texts(f.sum.marks.util))
    assert.are.equal(1, #f.bogus_event)
    assert.matches("Ir, Dr, Sum", f.bogus_event[1].message, 1, true)
    assert.are.equal("Sum", f.event_after_bogus)
    assert.are.same({ "Ir", "Dr", "Sum", "CEst" }, f.event_completion)
    assert.are.same({ "percent" }, f.format_completion)
  end)

  it("lists the hottest functions by self cost at their first line", function()
    local f = findings()
    local T = dir
    assert.are.same({
      title = "callgrind: top 5 functions by self Ir",
      items = {
        { file = "", lnum = 0, text = "9,365 self  9,365 incl  0x1234" },
        { file = T .. "/abs/util.c", lnum = 10, text = "  520 self    600 incl  compute" },
        { file = T .. "/tree/lib/deep.c", lnum = 20, text = "  100 self    100 incl  helper" },
        { file = T .. "/prof/main.c", lnum = 3, text = "   10 self    630 incl  main" },
        { file = T .. "/include/inc/fast.h", lnum = 5, text = "    5 self      5 incl  fast_op" },
      },
    }, f.top)
    assert.are.equal("callgrind: top 2 functions by self Ir", f.top2.title)
    assert.are.equal(2, #f.top2.items)
    assert.are.equal("  520 self    600 incl  compute", f.top2.items[2].text)
    assert.are.same({ "callgrind: top 3 functions by self Dr", "25 self  33 incl  compute",
      "10 self  10 incl  helper", " 2 self  37 incl  main" },
      { f.top_dr.title, f.top_dr.items[1].text, f.top_dr.items[2].text, f.top_dr.items[3].text })
  end)

  it("lists the callers and callees of the function under the cursor", function()
    local f = findings()
    local T = dir
    assert.are.same({
      title = "callgrind: callers of compute (Ir)",
      items = { { file = T .. "/prof/main.c", lnum = 4, text = "main → compute  3 calls  inclusive 600" } },
    }, f.callers_compute)
    assert.are.same({
      title = "callgrind: callees of compute (Ir)",
      items = { { file = T .. "/tree/lib/deep.c", lnum = 20, text = "compute → helper  4 calls  inclusive 80  from util.c:12" } },
    }, f.callees_compute)
    assert.are.same({
      title = "callgrind: callees of main (Ir)",
      items = {
        { file = T .. "/abs/util.c", lnum = 10, text = "main → compute  3 calls  inclusive 600  from main.c:4" },
        { file = T .. "/tree/lib/deep.c", lnum = 20, text = "main → helper  1 call  inclusive 20  from main.c:5" },
      },
    }, f.callees_main)
    assert.are.same({
      title = "callgrind: callers of helper (Ir)",
      items = {
        { file = T .. "/abs/util.c", lnum = 12, text = "compute → helper  4 calls  inclusive 80" },
        { file = T .. "/prof/main.c", lnum = 5, text = "main → helper  1 call  inclusive 20" },
      },
    }, f.callers_helper)
    -- the narrowest range holding the line wins: compute's line 7 inside fast_op's 5..9
    assert.are.equal("callgrind: callees of compute (Ir)", f.callees_at_fast_7.title)
    assert.are.same({ title = "callgrind: callers of fast_op (Ir)", items = {} }, f.callers_at_fast_5)
    -- no function: said so, the list left alone
    assert.are.equal(1, #f.no_function)
    assert.are.equal("callgrind: callers of fast_op (Ir)", f.quickfix_after_no_function)
    assert.are.equal(1, #f.no_costs)
  end)

  it("keeps the loaded profile when another fails to load", function()
    local f = findings()
    assert.are.equal(1, #f.load_error)
    assert.are.equal(ERROR_LEVEL, f.load_error[1].level)
    assert.are.equal("callgrind: " .. dir .. "/prof/broken.out:4: bad cost 'x'", f.load_error[1].message)
    assert.are.equal(dir .. "/prof/hand.out", f.path_after_error)
    assert.are.equal("Ir 400", f.util_after_error[11].text)
  end)

  it("shows signs only, virtual text only, or both", function()
    local f = findings()
    assert.are.same({}, f.signs_only.marks)
    assert.are.same({ [10] = "CallgrindHeat2", [11] = "CallgrindHeat3", [12] = "CallgrindHeat2" }, f.signs_only.signs)
    assert.are.same({ [10] = "Ir 50", [11] = "Ir 400", [12] = "Ir 30 ⇒ 80 incl" }, texts(f.text_only.marks))
    assert.are.same({}, f.text_only.signs)
  end)

  it("reads the profile again when its file changes, and keeps the data when that fails", function()
    local f = findings()
    assert.is_true(f.reloaded_in_time)
    assert.are.same({ [10] = "Ir 50", [11] = "Ir 800", [12] = "Ir 30 ⇒ 80 incl" }, texts(f.reloaded.marks.util))
    assert.are.same({ [3] = "Ir 5", [4] = "Ir 2 ⇒ 1,000 incl", [5] = "Ir 1 ⇒ 20 incl" }, texts(f.reloaded.marks.main))
    assert.is_true(f.reload_error_in_time)
    assert.are.equal(1, f.reload_error_generation)
    assert.are.equal("Ir 800", f.after_reload_error[11].text)
    assert.are.equal(2, f.explicit_reload.generation)
    assert.are.equal("Ir 1,234,567", f.explicit_reload.marks[11].text)
  end)

  it("clears every mark, sign and autocommand, and forgets the profile", function()
    local f = findings()
    assert.are.same({ marks = 0, signs = 0, legacy_signs = 0 }, f.cleared)
    assert.is_false(f.cleared_state.loaded)
    assert.is_nil(f.cleared_state.path)
    assert.are.equal(0, f.cleared_autocmds)
    assert.are.same({ marks = {}, signs = {} }, f.reopened_after_clear)
    assert.are.equal(1, #f.top_without_profile)
    assert.are.equal("quickfix", f.window_after_top)
  end)
end)

---------------------------------------------------------------------------
-- The bundled sample
---------------------------------------------------------------------------

describe("the Neovim plugin on the bundled sample profile", function()
  local dir
  local findings = once(function()
    dir = make_dir()
    return scenario("sample.lua", dir, REPO)
  end)

  teardown(function()
    if dir then
      execute("rm -rf " .. quote(dir))
    end
  end)

  local prof = assert(callgrind.load("examples/data/sample.callgrind.gz"))
  local total = prof:total("Ir")

  -- What the plugin should write on each line, from annotate.file_costs.
  local function expected(number)
    local lines = annotate.file_costs(prof, "examples/data/sample.c", { "Ir" })
    local out = {}
    for n, entry in pairs(lines) do
      if n > 0 and (entry.self.Ir ~= 0 or #entry.calls > 0) then
        local text = "Ir " .. number(entry.self.Ir)
        if #entry.calls > 0 then
          local inclusive = 0
          for _, call in ipairs(entry.calls) do
            inclusive = inclusive + call.inclusive.Ir
          end
          text = text .. " ⇒ " .. number(inclusive) .. " incl"
        end
        out[n] = text
      end
    end
    return out
  end

  it("annotates the source opened after the load with annotate.file_costs' numbers", function()
    local f = findings()
    assert.are.equal(72, f.lines)
    assert.are.same(expected(format.thousands), texts(f.marks))
    assert.are.same({}, f.signs) -- virtual text only by default
  end)

  it("loads in the background, the main loop turning", function()
    assert.is_true(findings().loaded_in_time)
    assert.is_nil(findings().state.loading)
  end)

  it("writes the numbers callgrind_annotate prints for sample.c", function()
    local marks = texts(findings().marks)
    -- callgrind_annotate 3.19 on the sample: line 20 642,646; line 27 180,832 with
    -- 685,824 + 695 in its calls; line 44 321,519 with 1,808,505 + 732; line 70 7 with
    -- 121,231 + 673; total 4,976,287
    assert.are.equal(4976287, total)
    assert.are.equal("Ir 642,646", marks[20])
    assert.are.equal("Ir 180,832 ⇒ 686,519 incl", marks[27])
    assert.are.equal("Ir 321,519 ⇒ 1,809,237 incl", marks[44])
    assert.are.equal("Ir 7 ⇒ 121,904 incl", marks[70])
    assert.is_nil(marks[62]) -- no cost there
  end)

  it("writes percentages of the total", function()
    local percent = texts(findings().percent)
    assert.are.same(expected(function(n)
      return ("%.2f%%"):format(100 * n / total)
    end), percent)
    assert.are.equal("Ir 12.91%", percent[20]) -- 642,646 / 4,976,287
    assert.are.equal("Ir 6.46% ⇒ 36.36% incl", percent[44])
  end)

  it("lists the hottest functions as prof:top orders them", function()
    local top = findings().top
    assert.are.equal("callgrind: top 5 functions by self Ir", top.title)
    assert.are.equal(5, #top.items)
    for i, fn in ipairs(prof:top { event = "Ir", limit = 5 }) do
      local item = top.items[i]
      assert.are.equal(format.thousands(fn:self("Ir")), item.text:match("^%s*([%d,]+) self"))
      assert.are.equal(format.thousands(fn:inclusive("Ir")), item.text:match("self  %s*([%d,]+) incl"))
      assert.are.equal(fn.name, item.text:match("incl  (.*)$"))
      -- a line of the function's code in its own file
      local own = false
      for record in fn:lines() do
        own = own or (record.file == fn.file and record.line == item.lnum)
      end
      assert.is_true(own, fn.name .. " placed at " .. item.lnum)
      -- glibc's sources are not in the repository: named as the profile writes them
      assert.are.equal(fn.file:match("[^/]+$"), item.file:match("[^/]+$"))
    end
    assert.are.equal("1,859,688 self  4,852,108 incl  main", top.items[1].text)
    -- where main starts, not the hash() inlined into it on lines 19 and 20
    assert.are.same({ REPO .. "/examples/data/sample.c", 56 }, { top.items[1].file, top.items[1].lnum })
    -- where the callers enter them
    assert.are.same({ 41, 249, 39 }, { top.items[2].lnum, top.items[3].lnum, top.items[5].lnum })
    local fib = top.items[4]
    assert.are.same({ REPO .. "/examples/data/sample.c", 54 }, { fib.file, fib.lnum })
    assert.matches("fib'2$", fib.text)
  end)

  it("lists the callers of the function on the cursor line", function()
    local callers = findings().callers_fib
    -- on line 54 fib and fib'2 both span one line; fib'2 costs more
    assert.are.equal("callgrind: callers of fib'2 (Ir)", callers.title)
    local fn, calls = nil, {}
    for candidate in prof:functions() do
      if candidate.name == "fib'2" then
        fn = candidate
      end
    end
    for call in fn:callers() do
      calls[#calls + 1] = call
    end
    table.sort(calls, function(a, b)
      return a:inclusive("Ir") > b:inclusive("Ir")
    end)
    assert.are.equal(#calls, #callers.items)
    for i, call in ipairs(calls) do
      local item = callers.items[i]
      assert.are.equal(call.line, item.lnum)
      assert.are.equal(("%s → fib'2  %s  inclusive %s"):format(call.caller.name,
        format.thousands(call.count) .. (call.count == 1 and " call" or " calls"),
        format.thousands(call:inclusive("Ir"))), item.text)
    end
  end)
end)
