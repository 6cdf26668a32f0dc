-- callgrind.flame: the stacks and the folded text, on call graphs worked out by hand and on every
-- profile valgrind makes for the specs, where the sums the flame graph promises are checked.
local callgrind = require "callgrind"
local flame = require "callgrind.flame"
local vg = require "helpers.valgrind"

local SAMPLE = "examples/data/sample.callgrind.gz"

-- speedscope's example: start and end both call backup, which calls read and write.
local SHARED = table.concat({
  "events: Ir",
  "fn=start", "1 0", "cfn=backup", "calls=1 1", "1 4",
  "fn=end", "1 0", "cfn=backup", "calls=1 1", "1 4",
  "fn=backup", "1 0", "cfn=read", "calls=1 1", "1 4", "cfn=write", "calls=1 1", "1 4",
  "fn=read", "1 4", "fn=write", "1 4",
}, "\n") .. "\n"

-- main -> f -> g -> f -> g as callgrind records it (see spec/c/test_flame.c)
local RECURSIVE = table.concat({
  "events: Ir",
  "fn=main", "1 1", "cfn=f", "calls=1 1", "1 6",
  "fn=f", "1 2", "cfn=g", "calls=2 1", "1 7",
  "fn=g", "1 4", "cfn=f", "calls=1 1", "1 3",
}, "\n") .. "\n"

local function parse(text)
  return assert(callgrind.parse(text, "flame.out"))
end

--- The frames as "depth name self total" strings.
local function shape(stacks)
  local out = {}
  for i, f in ipairs(stacks.frames) do out[i] = ("%d %s %s %s"):format(f.depth, f.name, f.self, f.total) end
  return out
end

--- Sums over folded text: per last frame, per first frame, and in all.
local function folded_sums(text)
  local by_leaf, by_root, all, lines = {}, {}, 0, 0
  for line in text:gmatch("[^\n]+") do
    local stack, cost = line:match("^(.*) (%d+)$")
    assert(stack, "not a folded line: " .. line)
    cost = tonumber(cost)
    local frames = {}
    for frame in (stack .. ";"):gmatch("([^;]*);") do frames[#frames + 1] = frame end
    by_leaf[frames[#frames]] = (by_leaf[frames[#frames]] or 0) + cost
    by_root[frames[1]] = (by_root[frames[1]] or 0) + cost
    all = all + cost
    lines = lines + 1
  end
  return by_leaf, by_root, all, lines
end

describe("callgrind.flame", function()
  it("is callgrind.flame", function()
    assert.are.equal(flame, callgrind.flame)
  end)

  describe("stacks", function()
    it("shares a function's costs among the paths that reach it", function()
      local stacks = flame.stacks(parse(SHARED), { min_share = 0 })
      assert.are.equal("Ir", stacks.event)
      assert.are.equal(8, stacks.total)
      assert.are.same({
        "1 end 0 4", "2 backup 0 4", "3 read 2 2", "3 write 2 2",
        "1 start 0 4", "2 backup 0 4", "3 read 2 2", "3 write 2 2",
      }, shape(stacks))
      local frames = stacks.frames
      assert.are.equal("function", frames[3].kind)
      assert.are.equal(2, frames[3].parent)
      assert.are.equal(1, frames[2].parent)
      assert.is_nil(frames[1].parent)
      assert.are.equal(parse(SHARED):find("read").name, frames[3].fn.name)
    end)

    it("cuts recursion so that no cost counts twice", function()
      local prof = parse(RECURSIVE)
      local stacks = flame.stacks(prof, { min_share = 0 })
      assert.are.same({ "1 main 1 7", "2 f 2 6", "3 g 4 4" }, shape(stacks))
      assert.are.equal(prof:find("f"), stacks.frames[2].fn)
    end)

    it("folds what min_share and max_depth prune into one [other] frame", function()
      local wide = parse(table.concat({
        "events: Ir",
        "fn=main", "1 0", "cfn=big", "calls=1 1", "1 990",
        "cfn=small1", "calls=1 1", "1 5", "cfn=small2", "calls=1 1", "1 5",
        "fn=big", "1 990", "fn=small1", "1 5", "fn=small2", "1 5",
      }, "\n") .. "\n")
      assert.are.same({ "1 main 0 1000", "2 big 990 990", "2 [other] 10 10" },
        shape(flame.stacks(wide, { min_share = 1 })))
      assert.are.equal("other", flame.stacks(wide, { min_share = 1 }).frames[3].kind)
      assert.is_nil(flame.stacks(wide, { min_share = 1 }).frames[3].fn)
      assert.are.same({ "1 main 0 1000", "2 [other] 1000 1000" }, shape(flame.stacks(wide, { max_depth = 1 })))
      -- the default keeps calls of 0.01% of the total and more
      assert.are.equal(4, #flame.stacks(wide).frames)
    end)

    it("gives exact decimal strings on request, beyond 2^53 too", function()
      local big = parse("events: Ir\nfn=a\n1 0\ncfn=c\ncalls=1 1\n1 9007199254740993\nfn=c\n1 9007199254740993\n")
      local stacks = flame.stacks(big, { exact = true })
      assert.are.equal("9007199254740993", stacks.total_exact)
      assert.are.equal("0", stacks.frames[1].self_exact)
      assert.are.equal("9007199254740993", stacks.frames[1].total_exact)
      assert.are.equal("9007199254740993", stacks.frames[2].self_exact)
      assert.is_nil(flame.stacks(big).frames[1].total_exact)
    end)

    it("keeps only the stacks through the focus functions", function()
      local prof = parse(SHARED)
      local stacks = flame.stacks(prof, { focus = "read", min_share = 0 })
      assert.are.same({ "1 end 0 2", "2 backup 0 2", "3 read 2 2", "1 start 0 2", "2 backup 0 2", "3 read 2 2" },
        shape(stacks))
      assert.are.equal(4, stacks.total)
      assert.are.same({ "1 start 0 4", "2 backup 0 4", "3 read 2 2", "3 write 2 2" },
        shape(flame.stacks(prof, { focus = { prof:find("start") }, min_share = 0 })))
    end)

    it("draws a list of profiles each under a root of its own", function()
      local a, b = parse(SHARED), parse(RECURSIVE)
      local stacks = flame.stacks({ a, b }, { min_share = 0, labels = { "first" }, exact = true })
      local s = shape(stacks)
      assert.are.same({ "1 first 0 8", "2 end 0 4" }, { s[1], s[2] })
      assert.are.same({ "1 thread 1 0 7", "2 main 1 7", "3 f 2 6", "4 g 4 4" }, { s[10], s[11], s[12], s[13] })
      assert.are.equal("thread", stacks.frames[1].kind)
      assert.are.equal(15, stacks.total)
      assert.are.equal("15", stacks.total_exact)
      assert.are.equal("7", stacks.frames[10].total_exact)
      assert.are.equal(10, stacks.frames[11].parent)
    end)
  end)

  describe("folded", function()
    it("writes one line per stack, as flamegraph.pl reads it", function()
      assert.are.equal("end;backup;read 2\nend;backup;write 2\nstart;backup;read 2\nstart;backup;write 2\n",
        flame.folded(parse(SHARED), { min_share = 0 }))
      local located = parse("events: Ir\nob=prog\nfl=a.c\nfn=main\n1 3\n")
      assert.are.equal("a.c:main 3\n", flame.folded(located, { file = true }))
      assert.are.equal("main [prog] 3\n", flame.folded(located, { object = true }))
      assert.are.equal("a.c:main [prog] 3\n", flame.folded(located, { file = true, object = true }))
    end)

    it("prefixes each profile of a list with its root", function()
      local text = flame.folded({ parse(RECURSIVE), parse(RECURSIVE) }, { labels = { "one", "two" } })
      assert.are.equal("one;main 1\none;main;f 2\none;main;f;g 4\ntwo;main 1\ntwo;main;f 2\ntwo;main;f;g 4\n", text)
    end)

    it("writes costs beyond 2^53 exactly", function()
      local big = parse("events: Ir\nfn=a\n1 9223372036854775807\n")
      assert.are.equal("a 9223372036854775807\n", flame.folded(big))
    end)

    it("writes the sample's stacks with the sample's total", function()
      local prof = assert(callgrind.load(SAMPLE))
      local by_leaf, by_root, all = folded_sums(flame.folded(prof, { min_share = 0 }))
      assert.are.equal(prof:total("Ir"), all)
      assert.are.equal(prof:find("main"):self("Ir"), by_leaf.main)
      assert.are.equal(prof:total("Ir"), by_root["0x000000000001ab70"])
    end)
  end)

  describe("threads", function()
    it("loads every thread of a profile as a profile of its own", function()
      if not vg.available() then return pending("valgrind is not installed") end
      local path = vg.profile("callgrind_threads_combined")[1]
      local profiles, labels = flame.threads(path)
      assert.are.same({ "thread 1", "thread 2", "thread 3", "thread 4" }, labels)
      local whole = assert(callgrind.load(path))
      local stacks = flame.stacks(profiles, { min_share = 0 })
      assert.are.equal(whole:total("Ir"), stacks.total)
      local roots = {}
      for _, frame in ipairs(stacks.frames) do
        if frame.depth == 1 then roots[#roots + 1] = frame.name .. " " .. frame.total end
      end
      for i, p in ipairs(profiles) do
        assert.are.equal(labels[i] .. " " .. p:total("Ir"), roots[i])
      end
      assert.are.same({ nil, "missing.out: No such file or directory", "io" }, { flame.threads("missing.out") })
    end)
  end)

  describe("errors", function()
    local prof = parse(SHARED)
    local function message(f, ...)
      local ok, err = pcall(f, ...)
      assert.is_false(ok)
      return err
    end

    it("names the function, the option and what is wrong", function()
      assert.are.equal("flame.stacks: unknown option 'colour'", message(flame.stacks, prof, { colour = 1 }))
      assert.are.equal("flame.svg: min_share must be a number from 0 to 100",
        message(flame.svg, prof, { min_share = -1 }))
      assert.are.equal("flame.folded: max_depth must be a whole number from 1",
        message(flame.folded, prof, { max_depth = 0.5 }))
      assert.are.equal("flame.svg: colors must be 'object', 'file' or 'name', not 'red'",
        message(flame.svg, prof, { colors = "red" }))
      assert.are.equal("flame.stacks: a profile or a list of profiles expected", message(flame.stacks, "x"))
      assert.are.equal("flame.stacks: item 2 of the list is not a profile", message(flame.stacks, { prof, {} }))
      assert.are.equal("flame.stacks: focus: no function named 'nowhere'",
        message(flame.stacks, prof, { focus = "nowhere" }))
      assert.matches("flame.stacks: unknown event 'Dr'", message(flame.stacks, prof, { event = "Dr" }), 1, true)
      assert.are.equal("flame.stacks: the flame graph needs more than 3 frames: raise min_share or lower max_depth",
        message(flame.stacks, prof, { max_frames = 3 }))
      assert.are.equal("flame.diff_svg: by must be 'self' or 'total', not 'both'",
        message(flame.diff_svg, prof, prof, { by = "both" }))
    end)

    it("keeps every frame of 100,000 roots, past the sizes at which its arrays move into huge pages", function()
      -- the arrays of frames grow each by its own bytes: the doubles of the frames' shares reach
      -- a huge page at half the count of the words beside them (a heap overflow once)
      local lines = { "events: Ir" }
      for i = 1, 100000 do lines[#lines + 1] = ("fn=(%d) root_%d\n%d %d"):format(i, i, i, i % 7 + 1) end
      local prof = parse(table.concat(lines, "\n") .. "\n")
      local stacks = flame.stacks(prof, { min_share = 0, max_frames = 200000 })
      assert.are.equal(100000, #stacks.frames)
      local self, roots = 0, 0
      for _, frame in ipairs(stacks.frames) do
        self = self + frame.self
        if frame.depth == 1 then roots = roots + 1 end
      end
      -- i % 7 + 1 over i = 1..100000: 14,285 whole rounds of 1..7 (28 each), then 2..6
      assert.are.equal(14285 * 28 + 20, self)
      assert.are.equal(100000, roots)
      assert.are.equal(self, stacks.total)
    end)

    it("refuses negative costs, and says what to draw instead", function()
      local base = assert(callgrind.load(SAMPLE))
      local diff = callgrind.diff(base, parse("events: Ir\nfn=main\n1 1\n"))
      assert.matches("has a negative cost of event Ir: a flame graph needs costs of 0 or more "
        .. "(draw the two runs of a difference instead)", message(flame.folded, diff), 1, true)
    end)
  end)
end)

-- The sums the flame graph promises, on real profiles: the stacks ending in each function add
-- up to its self cost, all stacks to the total, and the stacks under each root to its cost:
-- the inclusive cost of a function nobody calls with a cost, the rest of its cost for a
-- function whose own cost exceeds what its callers bring in (the merged threads' `clone`).
-- Where callgrind charged a call more than the callee cost (_Exit in callgrind_cache_branch,
-- whose call is 2 instructions dearer than _Exit itself), no stacks can add up to both the
-- total and that root's inclusive cost; the roots then fall short by exactly that overcharge.
describe("callgrind.flame on valgrind's profiles", function()
  if not vg.available() then
    it("needs valgrind", function() pending("valgrind is not installed") end)
    return
  end

  --- "file:name [object]" as the folded text names a function with file and object.
  local function key_of(fn)
    local key = (fn.file ~= "" and fn.file or "???") .. ":" .. fn.name
    if fn.object ~= "" then key = key .. " [" .. fn.object .. "]" end
    return key
  end

  --- What calls from other functions bring to fn, and what fn costs with its calls.
  local function balance(fn, ev)
    local brought, costs = 0, fn:self(ev)
    for call in fn:callers() do
      if call.caller ~= fn then brought = brought + call:inclusive(ev) end
    end
    for call in fn:callees() do
      if call.callee ~= fn then costs = costs + call:inclusive(ev) end
    end
    return brought, costs
  end

  local function check(prof, name)
    for _, ev in ipairs(prof:events()) do
      local text = flame.folded(prof, { event = ev, min_share = 0, file = true, object = true })
      local by_leaf, by_root, all = folded_sums(text)
      assert.are.equal(prof:total(ev), all, name .. " " .. ev)
      local fn_of, overcharge = {}, 0
      for fn in prof:functions() do
        local key = key_of(fn)
        fn_of[key] = fn
        assert.are.equal(fn:self(ev), by_leaf[key] or 0, ("%s %s: %s"):format(name, ev, key))
        local brought, costs = balance(fn, ev)
        if not fn.cycle and brought > costs then overcharge = overcharge + brought - costs end
      end
      local short = 0
      for key, sum in pairs(by_root) do
        local fn = assert(fn_of[key], key)
        local brought, costs = balance(fn, ev)
        local expected = brought == 0 and fn:inclusive(ev) or costs - brought
        assert.is_true(sum <= expected, ("%s %s: root %s"):format(name, ev, key))
        short = short + expected - sum
      end
      assert.are.equal(overcharge, short, name .. " " .. ev)
    end
  end

  for _, config in ipairs(vg.configs()) do
    it("keeps the sums on " .. config.name, function()
      for _, path in ipairs((vg.profile(config.name))) do
        check(assert(callgrind.load(path)), config.name)
      end
    end)
  end

  it("keeps them for each thread drawn on its own", function()
    for _, config in ipairs { "callgrind_threads_combined", "callgrind_threads_combined_single" } do
      for _, p in ipairs((flame.threads(vg.profile(config)[1]))) do check(p, config) end
    end
  end)
end)
